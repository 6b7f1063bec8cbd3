# smolagents 1.26.0: a call to an unknown tool name, among parallel tool calls, discards the
# results of the valid calls that already ran.
# Steps: one model turn calls no_such_tool() and slow_ok() (returns "ok" after 0.3 s);
#   run ToolCallingAgent(stream=True).
# Expected: slow_ok's result "ok" under its id, plus an error result for the unknown call.
# Actual: slow_ok ran, but no ToolOutput is produced for either call and the step memory has
#   no observations; only ActionStep.error ("Unknown tool ...") is set.
# parcall: RUNTIME-MALFORMED-ANSWERED
import time
from smolagents import Tool, ToolCallingAgent
from smolagents.agents import ToolOutput
from smolagents.models import ChatMessage, ChatMessageToolCall, ChatMessageToolCallFunction, MessageRole, Model


class Scripted(Model):  # offline model: turn 1 = the given parallel tool calls, then text
    def __init__(self, calls):
        super().__init__(model_id="scripted")
        self.calls, self.turn = calls, 0

    def generate(self, messages, **kwargs):
        self.turn += 1
        if self.turn > 1:
            return ChatMessage(role=MessageRole.ASSISTANT, content="done")
        return ChatMessage(role=MessageRole.ASSISTANT, content=None, tool_calls=[
            ChatMessageToolCall(id=i, type="function", function=ChatMessageToolCallFunction(name=n, arguments=a))
            for i, n, a in self.calls])


RAN = []


class SlowOk(Tool):
    name, description, output_type = "slow_ok", "Returns ok slowly.", "string"
    inputs = {}

    def forward(self) -> str:
        time.sleep(0.3)
        RAN.append("slow_ok")
        return "ok"


calls = [("c_bad", "no_such_tool", {}), ("c_ok", "slow_ok", {})]
agent = ToolCallingAgent(tools=[SlowOk()], model=Scripted(calls), max_steps=1, verbosity_level=-1)
outs = [(e.id, e.observation) for e in agent.run("go", stream=True) if isinstance(e, ToolOutput)]
step = agent.memory.steps[1]
print("EXPECTED: results for c_bad (error) and c_ok ('ok')")
print("ACTUAL:   ran", RAN, "results", outs, "memory observations", repr(step.observations),
      "step error:", repr(str(step.error)))

# smolagents 1.26.0: one raising tool among parallel tool calls discards the results of the
# OTHER calls, and the failing call gets no result of its own.
# Steps: one model turn calls fail() (raises RuntimeError at once) and slow_ok() (returns
#   "ok" after 0.3 s); run ToolCallingAgent(stream=True).
# Expected: slow_ok's result "ok" under its id, and an error result under fail's id;
#   both recorded in the step's memory for the next model turn.
# Actual: both tools ran, but there is no ToolOutput at all; ActionStep.tool_calls and
#   .observations stay None (the model never sees "ok"), only ActionStep.error is set. The
#   AgentToolExecutionError escapes the as_completed() loop in process_tool_calls.
# parcall: RUNTIME-ERROR-ISOLATED
# parcall: RUNTIME-RESULT-PER-CALL
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


class Fail(Tool):
    name, description, output_type = "fail", "Always fails.", "string"
    inputs = {}

    def forward(self) -> str:
        RAN.append("fail")
        raise RuntimeError("boom")


class SlowOk(Tool):
    name, description, output_type = "slow_ok", "Returns ok slowly.", "string"
    inputs = {}

    def forward(self) -> str:
        time.sleep(0.3)
        RAN.append("slow_ok")
        return "ok"


calls = [("c_fail", "fail", {}), ("c_ok", "slow_ok", {})]
agent = ToolCallingAgent(tools=[Fail(), SlowOk()], model=Scripted(calls), max_steps=1, verbosity_level=-1)
outs = [(e.id, e.observation) for e in agent.run("go", stream=True) if isinstance(e, ToolOutput)]
step = agent.memory.steps[1]
print("EXPECTED: results for c_fail (error) and c_ok ('ok'); memory observations contain 'ok'")
print("ACTUAL:   ran", sorted(RAN), "results", outs, "memory observations", repr(step.observations),
      "step error:", repr(str(step.error)))

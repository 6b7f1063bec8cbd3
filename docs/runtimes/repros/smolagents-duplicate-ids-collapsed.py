# smolagents 1.26.0: ToolCallingAgent silently runs only ONE of several tool calls that share
# an id (or that all lack an id).
# Steps: a model turn asks for record("first") and record("second"), both with id "dup";
#   run ToolCallingAgent. Same again with id=None for both.
# Expected: both calls run and each gets a result (or the turn is rejected with an error).
# Actual: only record("second") runs, one result, no error - process_tool_calls stores calls
#   in a dict keyed by tool_call.id, so the later call overwrites the earlier one.
# parcall: RUNTIME-EXECUTE-ONCE
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


class Record(Tool):
    name, description, output_type = "record", "Record x.", "string"
    inputs = {"x": {"type": "string", "description": "text"}}

    def forward(self, x: str) -> str:
        RAN.append(x)
        return "recorded " + x


for dup in ["dup", None]:
    RAN.clear()
    calls = [(dup, "record", {"x": "first"}), (dup, "record", {"x": "second"})]
    agent = ToolCallingAgent(tools=[Record()], model=Scripted(calls), max_steps=1, verbosity_level=-1)
    outs = [e for e in agent.run("go", stream=True) if isinstance(e, ToolOutput)]
    print(f"id={dup!r} EXPECTED: ran ['first', 'second'], 2 results (or an error)")
    print(f"id={dup!r} ACTUAL:   ran {RAN}, {len(outs)} result(s):", [o.observation for o in outs],
          "step error:", agent.memory.steps[1].error)

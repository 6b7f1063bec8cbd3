# smolagents 1.26.0: ToolCallingAgent crashes (TypeError) after running every tool when one
# parallel tool call has no id and another has one.
# Steps: one model turn has tool calls with id "call_a" and id None (some OpenAI-compatible
#   servers omit ids); run ToolCallingAgent.
# Expected: both calls answered (id kept as None or generated), or the turn rejected before
#   any tool runs.
# Actual: both tools run, then agent.run() raises TypeError: '<' not supported between
#   instances of 'NoneType' and 'str' (sorted(parallel_calls.keys()) in process_tool_calls).
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


class Record(Tool):
    name, description, output_type = "record", "Record x.", "string"
    inputs = {"x": {"type": "string", "description": "text"}}

    def forward(self, x: str) -> str:
        RAN.append(x)
        return "recorded " + x


calls = [("call_a", "record", {"x": "a"}), (None, "record", {"x": "b"})]
agent = ToolCallingAgent(tools=[Record()], model=Scripted(calls), max_steps=1, verbosity_level=-1)
print("EXPECTED: 2 results, or an error before any tool runs")
try:
    outs = [e for e in agent.run("go", stream=True) if isinstance(e, ToolOutput)]
    print("ACTUAL:   ", len(outs), "results")
except TypeError as e:
    print("ACTUAL:   tools ran", sorted(RAN), "then agent.run raised TypeError:", e)

# smolagents 1.26.0: ToolCallingAgent returns parallel tool results in completion order
# (ToolOutput stream) and files them in memory sorted by call id, never in call order.
# Steps: a model turn asks for calls "z-first" (slow) and "a-second" (fast) in that order;
#   run ToolCallingAgent(stream=True) and look at the ToolOutput events and ActionStep memory.
# Expected: results in the order of the model's tool_calls: z-first, a-second.
# Actual: ToolOutput events come as completed (a-second, z-first), and ActionStep.tool_calls /
#   observations are sorted by id (a-second, z-first) - process_tool_calls uses as_completed()
#   and sorted(parallel_calls.keys()); the observation lines carry no call id at all.
# parcall: RUNTIME-RESULT-ORDER
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


class Echo(Tool):
    name, description, output_type = "echo", "Echo x after delay seconds.", "string"
    inputs = {"x": {"type": "string", "description": "text"}, "delay": {"type": "number", "description": "s"}}

    def forward(self, x: str, delay: float) -> str:
        time.sleep(delay)
        return x


calls = [("z-first", "echo", {"x": "Z", "delay": 0.3}), ("a-second", "echo", {"x": "A", "delay": 0.0})]
agent = ToolCallingAgent(tools=[Echo()], model=Scripted(calls), max_steps=1, verbosity_level=-1)
events = list(agent.run("go", stream=True))
step = agent.memory.steps[1]
print("EXPECTED: ToolOutput ids ['z-first', 'a-second'], memory tool_calls ['z-first', 'a-second']")
print("ACTUAL:   ToolOutput ids", [e.id for e in events if isinstance(e, ToolOutput)],
      "memory tool_calls", [tc.id for tc in step.tool_calls], "observations", repr(step.observations))

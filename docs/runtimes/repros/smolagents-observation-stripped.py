# smolagents 1.26.0: ToolCallingAgent strips whitespace from a tool's returned string.
# Steps: a tool returns "  indented\n code \n"; a model turn calls it via ToolCallingAgent.
# Expected: the recorded observation (ToolOutput.observation / ActionStep.observations, what
#   the model sees next turn) is exactly the returned string "  indented\n code \n".
# Actual: it is "indented\n code" - process_tool_calls does str(result).strip(), so leading
#   indentation and trailing newlines of tool output (code, tables, diffs) are lost.
# parcall: RUNTIME-CONTENT-UNCHANGED
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


class Raw(Tool):
    name, description, output_type = "raw", "Return x unchanged.", "string"
    inputs = {"x": {"type": "string", "description": "text"}}

    def forward(self, x: str) -> str:
        return x


returned = "  indented\n code \n"
agent = ToolCallingAgent(tools=[Raw()], model=Scripted([("c1", "raw", {"x": returned})]),
                         max_steps=1, verbosity_level=-1)
outs = [e for e in agent.run("go", stream=True) if isinstance(e, ToolOutput)]
print("EXPECTED: observation", repr(returned))
print("ACTUAL:   observation", repr(outs[0].observation), "| memory", repr(agent.memory.steps[1].observations))

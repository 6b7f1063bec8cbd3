# smolagents 1.26.0: a tool whose input is named "self" can never be called by
# ToolCallingAgent.
# Steps: a tool with inputs {"self": {"type": "string"}} (a plain schema property name);
#   a model turn calls it with {"self": "me"}; run ToolCallingAgent.
# Expected: the tool runs with self="me" and its result is recorded.
# Actual: the tool never runs; the step fails with "TypeError: Tool.__call__() got multiple
#   values for argument 'self'" because execute_tool_call does tool(**arguments, ...).
# parcall: RUNTIME-ARGS-UNCHANGED
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


class Named(Tool):
    name, description, output_type = "named", "Takes an input called self.", "string"
    inputs = {"self": {"type": "string", "description": "a property literally named self"}}
    skip_forward_signature_validation = True  # forward cannot declare a 2nd param named self

    def forward(self, **kwargs) -> str:
        RAN.append(kwargs)
        return "got " + kwargs["self"]


agent = ToolCallingAgent(tools=[Named()], model=Scripted([("c1", "named", {"self": "me"})]),
                         max_steps=1, verbosity_level=-1)
outs = [e.observation for e in agent.run("go", stream=True) if isinstance(e, ToolOutput)]
print("EXPECTED: ran [{'self': 'me'}], results ['got me']")
print("ACTUAL:   ran", RAN, "results", outs, "step error:", repr(str(agent.memory.steps[1].error)))

# Title: @function_tool's default error handling answers every failure with the same fixed text
# Framework: openai-agents 0.24.0 (import `agents`), Python 3.11, offline scripted Model
# Steps: a @function_tool raises ValueError("quota exceeded for user 42") in a parallel turn
#   next to a call that raises KeyError("missing"); default failure_error_function.
# Expected: each failing call's output reports its error (type and/or message), so the model
#   can tell the two failures apart and react.
# Actual: both outputs are "An error occurred while running the tool. Please try again."; the
#   exception type and message are withheld (by design of default_tool_error_function), and
#   "Please try again" invites a retry of a call that already ran.
# parcall: RUNTIME-ERROR-REPORTED
import json
from agents import Agent, Runner, function_tool, set_tracing_disabled
from agents.items import ModelResponse
from agents.models.interface import Model
from agents.usage import Usage
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText

set_tracing_disabled(True)

class Scripted(Model):
    turn = 0
    async def get_response(self, *a, **k):
        self.turn += 1
        if self.turn == 1:
            out = [ResponseFunctionToolCall(type="function_call", call_id=f"c{x}", name="fail",
                   arguments=json.dumps({"x": x})) for x in (1, 2)]
        else:
            out = [ResponseOutputMessage(id="m", type="message", role="assistant", status="completed",
                   content=[ResponseOutputText(type="output_text", text="done", annotations=[])])]
        return ModelResponse(output=out, usage=Usage(), response_id=None)
    def stream_response(self, *a, **k): raise NotImplementedError

@function_tool
def fail(x: int) -> str:
    """Fails in two different ways."""
    if x == 1:
        raise ValueError("quota exceeded for user 42")
    raise KeyError("missing")

r = Runner.run_sync(Agent(name="a", model=Scripted(), tools=[fail]), "go")
print("EXPECTED: c1 mentions ValueError/quota exceeded, c2 mentions KeyError/missing")
print("ACTUAL:", [(i.raw_item["call_id"], i.raw_item["output"]) for i in r.new_items
                  if i.type == "tool_call_output_item"])

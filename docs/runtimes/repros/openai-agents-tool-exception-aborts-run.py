# Title: a FunctionTool that raises aborts the whole run; the other calls' results are lost
# Framework: openai-agents 0.24.0 (import `agents`), Python 3.11, offline scripted Model
# Steps: one model turn asks for two parallel function calls: "ok" (returns a string) and
#   "boom" (raises RuntimeError). Tools are FunctionTool objects with default error handling.
# Expected: the failing call gets a function_call_output reporting the error, "ok" gets its
#   own output, Runner.run_sync returns (tool failure isolated to its call).
# Actual: Runner.run_sync raises UserError("Error running tool boom: boom"); both tools ran,
#   but no output item of the turn survives.
# parcall: RUNTIME-ERROR-ISOLATED
import json
from agents import Agent, FunctionTool, Runner, set_tracing_disabled
from agents.items import ModelResponse
from agents.models.interface import Model
from agents.usage import Usage
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText

set_tracing_disabled(True)
CALLS = [("c1", "ok"), ("c2", "boom")]

class Scripted(Model):
    turn = 0
    async def get_response(self, *a, **k):
        self.turn += 1
        if self.turn == 1:
            out = [ResponseFunctionToolCall(type="function_call", call_id=i, name=n, arguments="{}")
                   for i, n in CALLS]
        else:
            out = [ResponseOutputMessage(id="m", type="message", role="assistant", status="completed",
                   content=[ResponseOutputText(type="output_text", text="done", annotations=[])])]
        return ModelResponse(output=out, usage=Usage(), response_id=None)
    def stream_response(self, *a, **k): raise NotImplementedError

ran = []
def tool(name, fn):
    async def invoke(ctx, args_json):
        ran.append(name)
        return fn(json.loads(args_json))
    return FunctionTool(name=name, description=name, on_invoke_tool=invoke, strict_json_schema=False,
                        params_json_schema={"type": "object", "properties": {}})

def boom(args): raise RuntimeError("boom")
agent = Agent(name="a", model=Scripted(), tools=[tool("ok", lambda a: "fine"), tool("boom", boom)])
print("EXPECTED: outputs for c1 ('fine') and c2 (an error message); the run returns")
try:
    r = Runner.run_sync(agent, "go")
    print("ACTUAL:", [(i.raw_item["call_id"], i.raw_item["output"]) for i in r.new_items
                      if i.type == "tool_call_output_item"])
except Exception as e:
    print(f"ACTUAL: tools ran {ran}, then run raised {type(e).__name__}: {e}; no outputs")

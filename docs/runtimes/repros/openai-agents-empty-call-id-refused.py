# Title: an empty-string (or missing) call_id refuses the whole parallel turn
# Framework: openai-agents 0.24.0 (import `agents`), Python 3.11, offline scripted Model
# Steps: one model turn returns two function calls: call_id "c1" and call_id "" (a provider or
#   proxy that sends an empty id); a second variant has call_id None.
# Expected: both calls run; each output echoes its call_id exactly ("c1" and "").
# Actual: ModelBehaviorError("Tool invocations require a non-empty string call ID before
#   execution.") before any tool runs; the valid call c1 gets no output either.
#   (Model's docstring requires non-empty ids; the whole turn is refused, not just that call.)
# parcall: RUNTIME-ID-ECHOED
import json
from agents import Agent, FunctionTool, Runner, set_tracing_disabled
from agents.items import ModelResponse
from agents.models.interface import Model
from agents.usage import Usage
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText

set_tracing_disabled(True)

class Scripted(Model):
    def __init__(self, calls): self.calls, self.turn = calls, 0
    async def get_response(self, *a, **k):
        self.turn += 1
        if self.turn == 1:  # model_construct so that an empty/None call_id reaches the runner as is
            out = [ResponseFunctionToolCall.model_construct(type="function_call", call_id=i, name=n,
                   arguments=json.dumps(args), status="completed") for i, n, args in self.calls]
        else:
            out = [ResponseOutputMessage(id="m", type="message", role="assistant", status="completed",
                   content=[ResponseOutputText(type="output_text", text="done", annotations=[])])]
        return ModelResponse(output=out, usage=Usage(), response_id=None)
    def stream_response(self, *a, **k): raise NotImplementedError

ran = []
async def echo(ctx, args_json):
    ran.append(json.loads(args_json))
    return "echo " + args_json
TOOL = FunctionTool(name="echo", description="echo", on_invoke_tool=echo, strict_json_schema=False,
                    params_json_schema={"type": "object", "properties": {}})

def run(calls):
    ran.clear()
    try:
        r = Runner.run_sync(Agent(name="a", model=Scripted(calls), tools=[TOOL]), "go")
        outs = [(i.raw_item["call_id"], i.raw_item["output"]) for i in r.new_items
                if i.type == "tool_call_output_item"]
        return f"ran {len(ran)} time(s) {ran}, outputs {outs}"
    except Exception as e:
        return f"ran {len(ran)} time(s) {ran}, then raised {type(e).__name__}: {e}"

print("EXPECTED: ran 2 time(s), outputs [('c1', ...), ('', ...)]")
print("ACTUAL (''):  ", run([("c1", "echo", {"x": 1}), ("", "echo", {"x": 2})]))
print("ACTUAL (None):", run([("c1", "echo", {"x": 1}), (None, "echo", {"x": 2})]))

# Title: two function calls sharing a call_id are collapsed into one execution and one output
# Framework: openai-agents 0.24.0 (import `agents`), Python 3.11, offline scripted Model
# Steps: one model turn returns two function_call items with the same call_id "dup" (same tool,
#   same arguments: e.g. the model really wants the side effect twice); a third variant gives the
#   shared id different arguments.
# Expected: every function_call item the model emitted is executed once and answered once
#   (two executions, two function_call_output items with call_id "dup").
# Actual: identical calls: the tool runs once and only one output is produced (the second call
#   is silently dropped); different arguments: ModelBehaviorError, nothing runs.
# parcall: RUNTIME-EXECUTE-ONCE
# parcall: RUNTIME-POLICY-DECLARED
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

print("EXPECTED: ran 2 time(s), outputs [('dup', ...), ('dup', ...)] in both cases")
print("ACTUAL (same args):", run([("dup", "echo", {"x": 1}), ("dup", "echo", {"x": 1})]))
print("ACTUAL (diff args):", run([("dup", "echo", {"x": 1}), ("dup", "echo", {"x": 2})]))

# Title: a model turn with two tool calls that both lack a tool_call_id (None) aborts Agent.run_sync
#        before any tool runs (UnexpectedModelBehavior), though one such call alone is answered
# Framework: pydantic-ai-slim 2.78.0 (Python 3.11), default Agent settings, no network.
# Steps: a FunctionModel answers the first request with ONE ModelResponse holding two ToolCallParts
#        to the registered tool `add` (different args), both with tool_call_id=None; the second
#        request gets a final text. Run agent.run_sync. For comparison, run the same with ONE call.
# Expected: both calls run and are answered by ToolReturnParts with tool_call_id None, in call order,
#        as the single-call run is (it finishes with one return under None). A missing id is not a
#        duplicate id; at worst the run goes on with per-call error results the model can see.
# Actual: run_sync raises UnexpectedModelBehavior("Function tool calls must have unique
#        `tool_call_id` values; duplicate `tool_call_id`s: [None]"); no tool runs, no result. The
#        uniqueness check counts None as an id value, so absent ids collide.
# parcall: RUNTIME-POLICY-DECLARED
from pydantic_ai import Agent
from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import FunctionModel

def run(args_list):
    ran = []

    def add(a: int, b: int) -> str:
        ran.append((a, b))
        return str(a + b)

    def model(messages, info):
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart("add", a, tool_call_id=None) for a in args_list])
        return ModelResponse(parts=[TextPart("done")])

    agent = Agent(FunctionModel(model), tools=[add])
    try:
        result = agent.run_sync("go")
        returns = [(p.tool_call_id, p.content) for m in result.all_messages() for p in m.parts
                   if p.part_kind == "tool-return"]
        outcome = f"finished; returns {returns}"
    except Exception as e:
        outcome = f"run_sync raised {type(e).__name__}: {e}"
    return f"{outcome}; tool ran {len(ran)} times"

print("EXPECTED: two calls: finished; returns [(None, '3'), (None, '7')]; tool ran 2 times")
print(f"ACTUAL:   two calls: {run([{'a': 1, 'b': 2}, {'a': 3, 'b': 4}])}")
print(f"          one call:  {run([{'a': 1, 'b': 2}])}")

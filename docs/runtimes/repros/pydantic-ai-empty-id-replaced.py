# Title: a retried tool return for a call with tool_call_id "" (e.g. an unknown tool name) is
#        stored under a made-up "pyd_ai_<hex>" id, so the model is never told why the call failed
# Framework: pydantic-ai-slim 2.78.0 (Python 3.11), default Agent settings, no network.
# Steps: a FunctionModel answers the first request with ONE ModelResponse holding two ToolCallParts:
#        `known` (registered) with tool_call_id "call_k", and `no_such_tool` (NOT registered) with
#        tool_call_id "" (empty string); the second request gets a final text. Run agent.run_sync and
#        look at the tool-return parts in all_messages() and in what the model got on request 2.
# Expected: the unknown tool's retried ToolReturnPart ("Unknown tool name: ...") keeps
#        tool_call_id "", the id of the call it answers, and the model sees that error.
# Actual: it is stored under a fresh "pyd_ai_<hex>" id (build_retried_tool_return in _output.py only
#        copies the call's id `if tool_call_id:`, so "" falls back to the default factory). The
#        history repair before request 2 then drops it as an orphan and synthesizes an "interrupted"
#        return under "", so the model never sees "Unknown tool name". A registered tool that SUCCEEDS
#        with id "" keeps it; a registered tool's retried return (bad args / ModelRetry) loses it too.
# parcall: RUNTIME-ID-ECHOED
from pydantic_ai import Agent
from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import FunctionModel

seen_by_model = []

def known(x: int) -> str:
    return f"known {x}"

def model(messages, info):
    if len(messages) == 1:
        return ModelResponse(parts=[
            ToolCallPart("known", {"x": 1}, tool_call_id="call_k"),
            ToolCallPart("no_such_tool", {}, tool_call_id=""),
        ])
    seen_by_model.extend((p.tool_name, p.tool_call_id, p.content) for p in messages[-1].parts
                         if p.part_kind == "tool-return")
    return ModelResponse(parts=[TextPart("done")])

agent = Agent(FunctionModel(model), tools=[known])
result = agent.run_sync("go")
stored = [(p.tool_name, p.tool_call_id, p.outcome) for m in result.all_messages() for p in m.parts
          if p.part_kind == "tool-return"]
print("EXPECTED: stored [('known', 'call_k', 'success'), ('no_such_tool', '', 'retried')];"
      " model sees \"Unknown tool name: 'no_such_tool'...\" under ''")
print(f"ACTUAL:   stored {stored}")
for name, call_id, content in seen_by_model:
    print(f"          model sees {name} {call_id!r}: {content!r}")

# Title: a tool argument named "self" crashes StructuredTool inside ToolNode
#        (TypeError: StructuredTool._run() got multiple values for argument 'self').
# Versions: langgraph 1.2.24, langgraph-prebuilt 1.1.3, langchain-core 1.8.3, Python 3.11
# Steps: StructuredTool with a JSON-schema args_schema that has a property "self"
#        (func(**kwargs)); the model calls it with {"self": "me"} next to another call;
#        run the AIMessage through a StateGraph with ToolNode (defaults).
# Expected: the function receives {"self": "me"}; both calls get a ToolMessage.
# Actual: the tool function is never called; invoke raises TypeError (the whole batch
#         aborts, the other tool already ran and its result is lost).
# parcall: RUNTIME-ARGS-UNCHANGED
import operator
from typing import Annotated, TypedDict

from langchain_core.messages import AIMessage
from langchain_core.tools import StructuredTool
from langgraph.graph import END, START, StateGraph
from langgraph.prebuilt import ToolNode

got, other = [], []

def echo(**kwargs):
    got.append(kwargs); return "ok"

schema = {"type": "object", "properties": {"self": {}}, "additionalProperties": False}
t1 = StructuredTool.from_function(echo, name="echo", description="echo", args_schema=schema)
t2 = StructuredTool.from_function(lambda **kw: other.append(kw) or "other", name="other",
                                  description="other", args_schema={"type": "object", "properties": {}})

class State(TypedDict):
    messages: Annotated[list, operator.add]

g = StateGraph(State)
g.add_node("tools", ToolNode([t1, t2]))
g.add_edge(START, "tools"); g.add_edge("tools", END)
ai = AIMessage("", tool_calls=[{"name": "other", "args": {}, "id": "c0"},
                               {"name": "echo", "args": {"self": "me"}, "id": "c1"}])
print("EXPECTED: echo receives {'self': 'me'}; 2 ToolMessages")
try:
    out = g.compile().invoke({"messages": [ai]})
    print("ACTUAL:", got, [(m.tool_call_id, m.content) for m in out["messages"][1:]])
except Exception as e:
    print(f"ACTUAL: invoke raised {type(e).__name__}: {e}; echo got {got}, other ran {len(other)}x")

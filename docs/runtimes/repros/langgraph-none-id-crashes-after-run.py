# Title: a tool call with id=None is executed, then ToolNode raises
#        "TypeError: Tool b returned unexpected type: <class 'str'>" for the whole batch.
# Versions: langgraph 1.2.24, langgraph-prebuilt 1.1.3, langchain-core 1.8.3, Python 3.11
# Steps: AIMessage accepts tool_calls with "id": None (ToolCall.id is `str | None`);
#        put three parallel calls (ids "1", None, "3") through a StateGraph with ToolNode.
# Expected: either refuse the malformed call before running anything, or answer every
#           call (e.g. a generated id / an error ToolMessage for the id-less call).
# Actual: all three tools run (side effects happen), then invoke raises a misleading
#         TypeError ("returned unexpected type: str"): BaseTool returns raw content when
#         tool_call_id is None, and ToolNode rejects it. No result for any call.
# parcall: RUNTIME-MALFORMED-ANSWERED
import operator
from typing import Annotated, TypedDict

from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.graph import END, START, StateGraph
from langgraph.prebuilt import ToolNode

ran = []

@tool
def a(x: int) -> str:
    """tool a"""
    ran.append("a"); return "A"

@tool
def b(x: int) -> str:
    """tool b"""
    ran.append("b"); return "B"

class State(TypedDict):
    messages: Annotated[list, operator.add]

g = StateGraph(State)
g.add_node("tools", ToolNode([a, b]))
g.add_edge(START, "tools"); g.add_edge("tools", END)
ai = AIMessage("", tool_calls=[{"name": "a", "args": {"x": 1}, "id": "1"},
                               {"name": "b", "args": {"x": 1}, "id": None},
                               {"name": "a", "args": {"x": 1}, "id": "3"}])
print("EXPECTED: refused before any tool runs, or 3 ToolMessages")
try:
    out = g.compile().invoke({"messages": [ai]})
    print("ACTUAL:", [(m.tool_call_id, m.content) for m in out["messages"][1:]])
except Exception as e:
    print(f"ACTUAL: raised {type(e).__name__}: {e} after tools ran: {sorted(ran)}")

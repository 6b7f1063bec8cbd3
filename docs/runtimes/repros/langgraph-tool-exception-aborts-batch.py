# Title: ToolNode (default handle_tool_errors) lets one failing tool abort the whole
#        parallel batch; the other tools already ran but their results are lost.
# Versions: langgraph 1.2.24, langgraph-prebuilt 1.1.3, langchain-core 1.8.3, Python 3.11
# Steps: one AIMessage with three parallel tool calls; the middle tool raises
#        RuntimeError("boom"); run it through a StateGraph whose only node is
#        ToolNode(tools) with default settings.
# Expected: the failing call gets an error ToolMessage, the two others get their results,
#           the graph run does not raise (the model can see and react to the failure).
# Actual: graph.invoke raises RuntimeError('boom'); "ok1" and "ok2" were executed
#         (side effects happened) but no ToolMessage is produced for any call.
# parcall: RUNTIME-ERROR-ISOLATED
import operator
from typing import Annotated, TypedDict

from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.graph import END, START, StateGraph
from langgraph.prebuilt import ToolNode

ran = []

@tool
def ok1(x: int) -> str:
    """ok one"""
    ran.append("ok1"); return "one"

@tool
def bad(x: int) -> str:
    """raises"""
    ran.append("bad"); raise RuntimeError("boom")

@tool
def ok2(x: int) -> str:
    """ok two"""
    ran.append("ok2"); return "two"

class State(TypedDict):
    messages: Annotated[list, operator.add]

g = StateGraph(State)
g.add_node("tools", ToolNode([ok1, bad, ok2]))
g.add_edge(START, "tools"); g.add_edge("tools", END)
calls = [{"name": n, "args": {"x": 1}, "id": f"c{i}"} for i, n in enumerate(["ok1", "bad", "ok2"])]
print("EXPECTED: 3 ToolMessages (c1 an error message), no exception")
try:
    out = g.compile().invoke({"messages": [AIMessage("", tool_calls=calls)]})
    print("ACTUAL:", [(m.tool_call_id, m.content) for m in out["messages"][1:]])
except Exception as e:
    print(f"ACTUAL: invoke raised {type(e).__name__}({e}) after tools ran: {sorted(ran)}")

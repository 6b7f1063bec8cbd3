# Title: tool arguments named "config" or "run_manager" are silently dropped
#        before reaching the tool function (StructuredTool under ToolNode).
# Versions: langgraph 1.2.24, langgraph-prebuilt 1.1.3, langchain-core 1.8.3, Python 3.11
# Steps: StructuredTool with a JSON-schema args_schema declaring properties "config" and
#        "run_manager" (plain user data), func(**kwargs); the model calls it with
#        {"config": "dark-mode", "run_manager": "alice", "q": 1}; run through ToolNode.
# Expected: the function receives exactly {"config": "dark-mode", "run_manager": "alice",
#           "q": 1}.
# Actual: the function receives {"q": 1}: StructuredTool._run's own `config` and
#         `run_manager` parameters swallow the model's arguments, with no error.
# parcall: RUNTIME-ARGS-UNCHANGED
import operator
from typing import Annotated, TypedDict

from langchain_core.messages import AIMessage
from langchain_core.tools import StructuredTool
from langgraph.graph import END, START, StateGraph
from langgraph.prebuilt import ToolNode

got = []

def settings(**kwargs):
    got.append(kwargs); return "saved"

schema = {"type": "object", "properties": {"config": {}, "run_manager": {}, "q": {}},
          "additionalProperties": False}
t = StructuredTool.from_function(settings, name="settings", description="save settings",
                                 args_schema=schema)

class State(TypedDict):
    messages: Annotated[list, operator.add]

g = StateGraph(State)
g.add_node("tools", ToolNode([t]))
g.add_edge(START, "tools"); g.add_edge("tools", END)
args = {"config": "dark-mode", "run_manager": "alice", "q": 1}
out = g.compile().invoke({"messages": [AIMessage("", tool_calls=[
    {"name": "settings", "args": args, "id": "c1"}])]})
print("EXPECTED: function received", args)
print("ACTUAL:   function received", got[0], "| result:", out["messages"][-1].content)

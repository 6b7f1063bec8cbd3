"""parcall runtime adapter: LangGraph's prebuilt ToolNode (sync invoke, default settings).

One model turn = one AIMessage whose tool_calls are the batch's calls (ids exactly as
given). The AIMessage is put through a one-node StateGraph (START -> ToolNode -> END;
ToolNode needs the graph runtime: a bare ToolNode.invoke raises "Missing required
config key 'N/A'") with ToolNode's default settings (handle_tool_errors untouched).
Each tool is a langchain-core StructuredTool whose args_schema is the stub's JSON
schema and whose function calls stub(kwargs). Each ToolMessage the node returns is
converted field by field, in the order ToolNode returns them.

The policies below were observed by running the framework, not taken from its docs.
"""

import importlib.metadata
import operator
import os
from typing import Annotated, TypedDict

from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import StructuredTool
from langgraph.graph import END, START, StateGraph
from langgraph.prebuilt import ToolNode

RUNTIME = {
    "framework": "langgraph",
    "version": importlib.metadata.version("langgraph"),
    "entry": "langgraph.prebuilt.ToolNode",
    "message_type": f"{ToolMessage.__module__}.{ToolMessage.__qualname__}",
    "policies": {
        # Observed, and no value fits exactly; refused is the closest (RULES R9):
        # - id key absent: AIMessage(tool_calls=...) raises TypeError before any tool runs.
        # - id None: AIMessage accepts it, EVERY tool of the batch runs, then ToolNode
        #   raises TypeError("Tool <name> returned unexpected type: <class 'str'>")
        #   (BaseTool returns raw content when tool_call_id is None): crashed after N ran,
        #   which no policy allows.
        "missing_id": "refused",
        # every call runs and gets its own ToolMessage under the shared id
        "duplicate_ids": "each",
        # sync invoke maps the calls over a ThreadPoolExecutor with default max_workers
        # (config max_concurrency unset): min(32, os.cpu_count() + 4) on CPython 3.8+
        "max_parallel": min(32, (os.cpu_count() or 1) + 4),
        # default handle_tool_errors only handles argument-validation errors; an exception
        # raised by the tool function propagates out of ToolNode.invoke (run aborts)
        "error_content": None,
    },
}


def _make_tool(name, stub):
    def _fn(**kwargs):
        return stub(kwargs)

    return StructuredTool.from_function(
        func=_fn,
        name=name,
        description=getattr(stub, "description", "") or name,
        args_schema=stub.parameters,
        infer_schema=False,
    )


def _tool_call(call):
    tc = {"name": call["name"], "args": call["arguments"], "type": "tool_call"}
    if "id" in call:
        tc["id"] = call["id"]
    return tc


class _State(TypedDict):
    # plain list concatenation: no add_messages rewriting of what ToolNode returns
    messages: Annotated[list, operator.add]


def run_tool_calls(tools, calls):
    node = ToolNode([_make_tool(name, stub) for name, stub in tools.items()])
    graph = StateGraph(_State)
    graph.add_node("tools", node)
    graph.add_edge(START, "tools")
    graph.add_edge("tools", END)
    ai = AIMessage(content="", tool_calls=[_tool_call(c) for c in calls])
    out = graph.compile().invoke({"messages": [ai]})
    results = []
    for msg in out["messages"][1:]:  # [0] is the AIMessage; the rest is ToolNode's output
        results.append(
            {
                "tool_call_id": msg.tool_call_id,
                "content": msg.content if isinstance(msg.content, str) else str(msg.content),
                "message_type": f"{type(msg).__module__}.{type(msg).__qualname__}",
            }
        )
    return results

"""parcall runtime adapter: Pydantic AI (pydantic-ai-slim), Agent.run_sync tool-execution path.

Offline: the Agent's model is Pydantic AI's own FunctionModel, scripted to answer the first
request with ONE ModelResponse holding a ToolCallPart per call (the parallel tool calls of one
model turn) and every later request with a final TextPart. Tools are built from the stubs with
Tool.from_schema, so each stub's JSON schema (stub.parameters) is what the framework sees.
The results are the ToolReturnPart / RetryPromptPart objects of the ModelRequest the framework
sends right after the tool-call response, converted field by field, in the order it gives them.
"""

import importlib.metadata

from pydantic_ai import Agent
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import FunctionModel
from pydantic_ai.tools import Tool

RUNTIME = {
    "framework": "pydantic-ai-slim",
    "version": importlib.metadata.version("pydantic-ai-slim"),
    "entry": "pydantic_ai.Agent.run_sync",
    "message_type": "pydantic_ai.messages.ToolReturnPart",
    "policies": {
        # observed by running pydantic-ai-slim 2.78.0:
        # an id of None is kept on the ToolReturnPart (tool_call_id=None).
        "missing_id": "kept",
        # UnexpectedModelBehavior("Function tool calls must have unique `tool_call_id` values; ...")
        # before any tool runs (also for two None or two "" ids).
        "duplicate_ids": "refused",
        # sync tools run via anyio.to_thread.run_sync: its default limiter allows 40 threads at once.
        "max_parallel": 40,
        # a plain exception from a tool is not caught: it propagates out of run_sync, siblings
        # still waiting for a worker thread are cancelled and never run, finished results are lost.
        "error_content": None,
    },
}


def _make_tool(name, stub):
    # Tool.from_schema calls the function with keywords only; hand the stub the dict back.
    def call(**kwargs):
        return stub(kwargs)

    call.__name__ = "call"
    return Tool.from_schema(
        call,
        name=name,
        description=getattr(stub, "description", None),
        json_schema=stub.parameters,
    )


def _tool_call_part(call):
    # The id is passed exactly as given, None included (as pydantic_ai.models.mistral does for a
    # call without id). An absent "id" key is treated as None; leaving tool_call_id out instead
    # would let ToolCallPart's default factory invent a "pyd_ai_<hex>" id.
    return ToolCallPart(tool_name=call["name"], args=call["arguments"], tool_call_id=call.get("id"))


def run_tool_calls(tools, calls):
    tool_calls_response = ModelResponse(parts=[_tool_call_part(c) for c in calls])
    state = {"answered": False}

    def scripted_model(messages, info):
        if not state["answered"]:
            state["answered"] = True
            return tool_calls_response
        return ModelResponse(parts=[TextPart("done")])

    agent = Agent(
        FunctionModel(scripted_model),
        tools=[_make_tool(name, stub) for name, stub in tools.items()],
    )
    result = agent.run_sync("run the tool calls")

    messages = result.all_messages()
    index = next(i for i, m in enumerate(messages) if m is tool_calls_response)
    follow = messages[index + 1] if index + 1 < len(messages) else None
    out = []
    if isinstance(follow, ModelRequest):
        for part in follow.parts:
            if getattr(part, "part_kind", None) not in ("tool-return", "retry-prompt"):
                continue
            content = part.content
            if not isinstance(content, str):  # the framework's own text rendering of non-str content
                if part.part_kind == "retry-prompt":
                    content = part.model_response()
                else:
                    content = part.model_response_str(wrap_if_error=False)
            out.append(
                {
                    "tool_call_id": part.tool_call_id,
                    "content": content,
                    "message_type": f"{type(part).__module__}.{type(part).__qualname__}",
                }
            )
    return out

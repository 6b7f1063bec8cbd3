"""parcall runtime adapter: OpenAI Agents SDK (openai-agents, import name `agents`).

Drives the SDK's real run loop offline: an Agent holding one FunctionTool per stub and a
scripted Model subclass. Turn 1 of the model returns one ResponseFunctionToolCall per call
(call_id exactly as given, arguments as JSON text); turn 2 returns a final text message.
Runner.run_sync executes the tools with the SDK's default tool error handling; every
ToolCallOutputItem of the run is converted field by field from its raw function_call_output.
Nothing leaves the process: tracing is disabled and the model never touches the network.
"""

import asyncio
import importlib.metadata
import json
import os

from agents import Agent, FunctionTool, Runner, set_tracing_disabled
from agents.items import ModelResponse, ToolCallOutputItem
from agents.models.interface import Model
from agents.usage import Usage
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

set_tracing_disabled(True)

RUNTIME = {
    "framework": "openai-agents",
    "version": importlib.metadata.version("openai-agents"),
    "entry": "agents.Runner.run_sync",
    "message_type": "agents.items.ToolCallOutputItem",
    "policies": {
        # call_id None, absent or "": ModelBehaviorError ("Tool invocations require a
        # non-empty string call ID before execution.") before any tool of the turn runs
        "missing_id": "refused",
        # calls sharing an id with identical name+arguments are coalesced: one execution,
        # one ToolCallOutputItem. (Same id with different name/arguments: ModelBehaviorError
        # before any tool runs, i.e. refused.)
        "duplicate_ids": "collapsed",
        # the turn's tools run as concurrent asyncio tasks (unbounded for coroutine tools);
        # sync stubs go through asyncio.to_thread exactly like the SDK's own sync
        # @function_tool, so the default executor bounds them: min(32, os.cpu_count() + 4)
        "max_parallel": min(32, (os.cpu_count() or 1) + 4),
        # FunctionTool with default error handling: an exception raised by on_invoke_tool is
        # not turned into a result; Runner.run_sync raises UserError("Error running tool
        # <name>: <str(e)>") and every result of the turn is lost (run aborts)
        "error_content": None,
    },
}

_MESSAGE_TYPE = f"{ToolCallOutputItem.__module__}.{ToolCallOutputItem.__qualname__}"


class _ScriptedModel(Model):
    """Offline model: first turn asks for every call at once, then answers with text."""

    def __init__(self, calls):
        self._calls = calls
        self._turn = 0

    async def get_response(self, system_instructions, input, model_settings, tools,
                           output_schema, handoffs, tracing, *, previous_response_id=None,
                           conversation_id=None, prompt=None):
        self._turn += 1
        if self._turn == 1:
            output = [
                # model_construct: pass the id through even when it is None
                ResponseFunctionToolCall.model_construct(
                    type="function_call",
                    id=f"fc_{i}",
                    call_id=c.get("id"),
                    name=c["name"],
                    arguments=json.dumps(c["arguments"]),
                    status="completed",
                )
                for i, c in enumerate(self._calls)
            ]
        else:
            output = [
                ResponseOutputMessage(
                    id="msg_final",
                    type="message",
                    role="assistant",
                    status="completed",
                    content=[ResponseOutputText(type="output_text", text="done",
                                                annotations=[])],
                )
            ]
        return ModelResponse(output=output, usage=Usage(), response_id=None)

    def stream_response(self, *args, **kwargs):
        raise NotImplementedError("scripted model is not streamable")


def _make_tool(name, stub):
    async def on_invoke_tool(ctx, arguments_json):
        args = json.loads(arguments_json)
        return await asyncio.to_thread(stub, args)

    return FunctionTool(
        name=name,
        description=getattr(stub, "description", "") or "",
        params_json_schema=stub.parameters,
        on_invoke_tool=on_invoke_tool,
        strict_json_schema=False,
    )


def run_tool_calls(tools, calls):
    agent = Agent(
        name="parcall",
        instructions="",
        model=_ScriptedModel(calls),
        tools=[_make_tool(name, stub) for name, stub in tools.items()],
    )
    result = Runner.run_sync(agent, "run the tools", max_turns=3)
    out = []
    for item in result.new_items:
        if isinstance(item, ToolCallOutputItem):
            raw = item.raw_item
            get = raw.get if isinstance(raw, dict) else (lambda k: getattr(raw, k, None))
            content = get("output")
            out.append({
                "tool_call_id": get("call_id"),
                "content": content if isinstance(content, str) else str(content),
                "message_type": _MESSAGE_TYPE,
            })
    return out

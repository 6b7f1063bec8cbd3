"""parcall runtime adapter: smolagents ToolCallingAgent (parallel tool calls of one step).

A scripted offline Model answers the agent's first generate() with one ChatMessageToolCall
per call; the agent's own step (ToolCallingAgent.process_tool_calls -> execute_tool_call,
ThreadPoolExecutor for >1 call) runs them. max_steps=1 ends the run (the agent then asks the
model once more for a final answer, which the scripted model gives as plain text).

Results are the smolagents.agents.ToolOutput objects the agent yields for that step, in the
order it yields them: tool_call_id = ToolOutput.id, content = ToolOutput.observation (the
text the agent records as the tool's observation).
"""

import importlib.metadata
import os

from smolagents.agents import ToolCallingAgent, ToolOutput
from smolagents.models import (
    ChatMessage,
    ChatMessageToolCall,
    ChatMessageToolCallFunction,
    MessageRole,
    Model,
)
from smolagents.monitoring import LogLevel
from smolagents.tools import Tool

RUNTIME = {
    "framework": "smolagents",
    "version": importlib.metadata.version("smolagents"),
    "entry": "smolagents.agents.ToolCallingAgent.process_tool_calls",
    "message_type": "smolagents.agents.ToolOutput",
    "policies": {
        # id None is passed through: a lone None-id call is answered with id None; several
        # None ids collapse to one call; None mixed with str ids: TypeError after all ran.
        "missing_id": "kept",
        # process_tool_calls keys the calls by id in a dict: only the last one runs.
        "duplicate_ids": "collapsed",
        # ThreadPoolExecutor(max_tool_threads=None) -> Python's default worker count,
        # min(32, cpu_count + 4) (observed 6 on a 2-CPU machine); a lone call runs inline.
        "max_parallel": min(32, (os.cpu_count() or 1) + 4),
        # A raising tool gets no ToolOutput: AgentToolExecutionError escapes the step,
        # the step's remaining results are lost, the run goes on (error kept in
        # ActionStep.error, not as a per-call result).
        "error_content": None,
    },
}


class _StubTool(Tool):
    # forward(**kwargs) cannot match the inputs signature check; smolagents' own generic
    # tools (PipelineTool, LangChain wrapper) skip it the same way.
    skip_forward_signature_validation = True
    output_type = "any"

    def __init__(self, name, stub):
        self.name = name
        self.description = getattr(stub, "description", "") or name
        props = (getattr(stub, "parameters", None) or {}).get("properties", {}) or {}
        # "any" = no type check; nullable = not required (no coercion, no extra checks).
        self.inputs = {
            key: {"type": "any", "description": key, "nullable": True} for key in props
        }
        self._stub = stub
        super().__init__()

    def forward(self, **kwargs):
        return self._stub(kwargs)


class _ScriptedModel(Model):
    def __init__(self, calls):
        super().__init__(model_id="parcall-scripted")
        self._calls = calls
        self._turn = 0

    def generate(self, messages, stop_sequences=None, response_format=None,
                 tools_to_call_from=None, **kwargs):
        self._turn += 1
        if self._turn == 1:
            return ChatMessage(
                role=MessageRole.ASSISTANT,
                content=None,
                tool_calls=[
                    ChatMessageToolCall(
                        id=c.get("id"),
                        type="function",
                        function=ChatMessageToolCallFunction(
                            name=c["name"], arguments=c.get("arguments")
                        ),
                    )
                    for c in self._calls
                ],
            )
        # provide_final_answer() after max_steps: plain text, no tool call.
        return ChatMessage(role=MessageRole.ASSISTANT, content="done")


def run_tool_calls(tools, calls):
    agent = ToolCallingAgent(
        tools=[_StubTool(name, stub) for name, stub in tools.items()],
        model=_ScriptedModel(calls),
        max_steps=1,
        verbosity_level=LogLevel.OFF,
    )
    results = []
    for event in agent.run("parcall batch", stream=True, reset=True):
        if isinstance(event, ToolOutput):
            results.append(
                {
                    "tool_call_id": event.id,
                    "content": str(event.observation),
                    "message_type": f"{type(event).__module__}.{type(event).__qualname__}",
                }
            )
    return results

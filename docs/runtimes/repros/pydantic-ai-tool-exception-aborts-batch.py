# Title: one raising tool in a batch of parallel tool calls aborts Agent.run_sync; the sibling
#        calls' results are lost and siblings still waiting for a worker thread never run
# Framework: pydantic-ai-slim 2.78.0 (Python 3.11), default Agent settings, no network.
# Steps: a FunctionModel answers the first request with ONE ModelResponse holding 45 ToolCallParts:
#        1 call to `boom` (raises RuntimeError at once) and 44 calls to `slow` (sleeps 0.3 s, returns
#        "slow ok"); the second request gets a final text. Run agent.run_sync.
# Expected: the failure is isolated: `boom`'s call gets a ToolReturnPart reporting the error
#        (outcome='failed'), each of the 44 `slow` calls runs once and gets its own ToolReturnPart,
#        and the run finishes.
# Actual: run_sync raises the RuntimeError itself; no ToolReturnPart reaches any message; only the
#        `slow` calls that had a worker thread (anyio's 40-thread limiter) ran, the others were
#        cancelled before starting, so they are neither run nor answered.
# parcall: RUNTIME-ERROR-ISOLATED
import threading, time
from pydantic_ai import Agent
from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import FunctionModel

ran, lock = [], threading.Lock()

def boom() -> str:
    with lock: ran.append("boom")
    raise RuntimeError("tool failed")

def slow() -> str:
    with lock: ran.append("slow")
    time.sleep(0.3)
    return "slow ok"

calls = [ToolCallPart("boom", {}, tool_call_id="c_boom")]
calls += [ToolCallPart("slow", {}, tool_call_id=f"c_slow_{i}") for i in range(44)]

def model(messages, info):
    if len(messages) == 1:
        return ModelResponse(parts=calls)
    return ModelResponse(parts=[TextPart("done")])

agent = Agent(FunctionModel(model), tools=[boom, slow])
try:
    result = agent.run_sync("go")
    outcome = "finished; tool returns: %d" % sum(
        1 for m in result.all_messages() for p in m.parts if p.part_kind == "tool-return")
except Exception as e:
    outcome = f"run_sync raised {type(e).__name__}: {e}"
time.sleep(0.5)  # let any thread still running finish
print("EXPECTED: run finishes; 45 tool returns (1 failed); boom ran 1, slow ran 44")
print(f"ACTUAL:   {outcome}; boom ran {ran.count('boom')}, slow ran {ran.count('slow')}")

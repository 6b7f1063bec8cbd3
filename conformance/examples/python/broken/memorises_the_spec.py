"""Deliberately broken: memorises the spec. It loads the spec's own JSON cases and, for
any batch it has seen there, replays the expected invocations and returns the expected
output; anything else falls back to a plausible implementation with two classic bugs (the
limit checked before the duplicate id, and keys built without sort_keys). It passes every
spec case; only generated cases catch it."""
# parcall: breaks EXEC-DUP-BEFORE-LIMIT DEDUP-KEY-ORDER
# parcall: replays the public spec (not a single-bug example: its memory is a third bug, charged
# where a generated case asks a public batch's calls of tools that now answer otherwise)
import json
import os

SPEC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "spec", "cases")


def _load():
    memory = {}
    for function in ("execute_tool_calls", "run_parallel_calls"):
        folder = os.path.join(SPEC, function)
        for name in sorted(os.listdir(folder)):
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                for case in json.load(f)["cases"]:
                    for batch in case["batches"]:
                        key = (function, json.dumps(batch["calls"], sort_keys=True), batch.get("max_parallel"))
                        memory.setdefault(key, []).append(batch)
    return memory


MEMORY = _load()
SEEN = {}


def _recall(function, calls, max_parallel=None):
    key = (function, json.dumps(calls, sort_keys=True), max_parallel)
    batches = MEMORY.get(key)
    if not batches:
        return None
    n = SEEN.get(key, 0)
    SEEN[key] = n + 1
    return batches[n % len(batches)]


def execute_tool_calls(calls, max_parallel=4):
    batch = _recall("execute_tool_calls", calls, max_parallel if max_parallel != 4 else None) or \
        _recall("execute_tool_calls", calls, max_parallel)
    if batch is not None:
        for invocation in batch["invocations"]:
            dispatch({"tool": invocation["tool"], "arguments": invocation["arguments"]})
        return batch["expected"]
    seen, messages = set(), []
    for position, call in enumerate(calls, start=1):
        call_id = call.get("id") or f"call_{position}"
        if position > max_parallel:
            content = f"error: too many parallel tool calls (limit {max_parallel})"
        elif call_id in seen:
            content = f"error: duplicate tool_call_id '{call_id}'"
        else:
            content = dispatch({"tool": call["tool"], "arguments": call.get("arguments", {})})
        seen.add(call_id)
        messages.append({"role": "tool", "tool_call_id": call_id, "content": content})
    return messages


def run_parallel_calls(tools, calls):
    batch = _recall("run_parallel_calls", calls)
    if batch is not None:
        for invocation in batch["invocations"]:
            try:
                tools[invocation["name"]](invocation["args"])
            except Exception:
                pass
        return batch["expected"]
    cache = {}
    for call in calls:
        name, args = call["name"], call.get("args", {})
        key = f"{name}({json.dumps(args)})"
        if key in cache:
            continue
        tool = tools.get(name)
        if tool is None:
            cache[key] = f"error: unknown tool '{name}'"
            continue
        try:
            cache[key] = tool(args)
        except Exception as e:
            cache[key] = f"error: {e}"
    return cache


# ---------------------------------------------------------------------------------------
# PROVIDED: the sandbox and dispatch from the exercise's earlier stages.
# ---------------------------------------------------------------------------------------
WEATHER = {"paris": "18C, light rain", "tokyo": "24C, clear", "lima": "16C, overcast"}
DOCS = {
    "refund-policy": "Refunds are accepted within 30 days with a receipt.",
    "shipping": "Standard shipping takes 3-5 business days.",
}


def add(a, b):
    return a + b


def divide(a, b):
    return a / b


def get_weather(city):
    key = city.strip().lower()
    if key not in WEATHER:
        raise KeyError(city)
    return WEATHER[key]


def lookup_doc(doc_id):
    return DOCS[doc_id]


TOOLS = {
    "add": (add, [("a", "number"), ("b", "number")]),
    "divide": (divide, [("a", "number"), ("b", "number")]),
    "get_weather": (get_weather, [("city", "string")]),
    "lookup_doc": (lookup_doc, [("doc_id", "string")]),
}


def dispatch(request):
    name, args = request["tool"], request["arguments"]
    if name not in TOOLS:
        return f"error: unknown tool '{name}'"
    fn, params = TOOLS[name]
    for param, _ in params:
        if param not in args:
            return f"error: {name} missing required argument '{param}'"
    for key in sorted(args):
        if key not in dict(params):
            return f"error: {name} got unexpected argument '{key}'"
    for param, kind in params:
        value = args[param]
        if kind == "number":
            ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        else:
            ok = isinstance(value, str)
        if not ok:
            return f"error: {name} argument '{param}' must be a {kind}"
    try:
        return str(fn(**args))
    except Exception as e:
        return f"error: {name} raised {type(e).__name__}: {e}"

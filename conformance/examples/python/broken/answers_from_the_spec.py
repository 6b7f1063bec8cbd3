"""Deliberately broken: no logic at all. It answers from the public spec: for any batch it
has seen there, it replays the expected invocations and returns the expected output; for
anything else it does what the exercise's stub does (nothing, so it returns None). It
passes every spec case. RULES D: fixed cases are public, so only the hidden generated
cases can show a rule kept; this submission must score at most 10% of the points."""
# parcall: breaks EXEC-OUTPUT-COUNT DEDUP-RESULT-ENTRIES
# parcall: replays the public spec (not a single-bug example)
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


def run_parallel_calls(tools, calls):
    batch = _recall("run_parallel_calls", calls)
    if batch is not None:
        for invocation in batch["invocations"]:
            tool = tools.get(invocation["name"])
            if tool is not None:
                try:
                    tool(invocation["args"])
                except Exception:
                    pass
        return batch["expected"]


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

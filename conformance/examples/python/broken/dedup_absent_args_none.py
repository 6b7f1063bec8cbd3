"""Deliberately broken: a call without args is keyed `name(null)` and its tool invoked with
None, instead of {} for both."""
# parcall: breaks DEDUP-KEY-ARGS-DEFAULT
import json

# ---------------------------------------------------------------------------------------
# Exercise 000: execute_tool_calls
# ---------------------------------------------------------------------------------------


def execute_tool_calls(calls, max_parallel=4):
    """Run a batch of tool calls; return one tool message per call, in order."""
    seen = set()
    messages = []
    for position, call in enumerate(calls, start=1):
        call_id = call.get("id") or f"call_{position}"
        if call_id in seen:
            content = f"error: duplicate tool_call_id '{call_id}'"
        elif position > max_parallel:
            content = f"error: too many parallel tool calls (limit {max_parallel})"
        else:
            content = dispatch({"tool": call["tool"], "arguments": call.get("arguments", {})})
        seen.add(call_id)
        messages.append({"role": "tool", "tool_call_id": call_id, "content": content})
    return messages


# ---------------------------------------------------------------------------------------
# Exercise 003: run_parallel_calls
# ---------------------------------------------------------------------------------------


def run_parallel_calls(tools, calls):
    cache = {}
    for call in calls:
        name, args = call["name"], call.get("args")
        key = f"{name}({json.dumps(args, sort_keys=True)})"
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

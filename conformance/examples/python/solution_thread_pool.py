"""A correct solution that runs tool calls on a thread pool, submitted in a random order,
as a production runtime would (RULES A6 and B4 allow any order and concurrency).

Identical dispatch requests may receive their answers in any order; identical dedup calls
still run once, because keys are settled before anything is submitted."""
import json
import random
from concurrent.futures import ThreadPoolExecutor


def execute_tool_calls(calls, max_parallel=4):
    seen = set()
    messages = []
    accepted = []
    for position, call in enumerate(calls, start=1):
        call_id = call.get("id") or f"call_{position}"
        content = None
        if call_id in seen:
            content = f"error: duplicate tool_call_id '{call_id}'"
        elif position > max_parallel:
            content = f"error: too many parallel tool calls (limit {max_parallel})"
        else:
            accepted.append(len(messages))
        seen.add(call_id)
        messages.append({"role": "tool", "tool_call_id": call_id, "content": content})
    random.shuffle(accepted)
    with ThreadPoolExecutor(max_workers=8) as pool:
        futures = {
            index: pool.submit(dispatch, {"tool": calls[index]["tool"], "arguments": calls[index].get("arguments", {})})
            for index in accepted
        }
        for index, future in futures.items():
            messages[index]["content"] = future.result()
    return messages


def _invoke(tools, name, args):
    tool = tools.get(name)
    if tool is None:
        return f"error: unknown tool '{name}'"
    try:
        return tool(args)
    except Exception as e:
        return f"error: {e}"


def run_parallel_calls(tools, calls):
    distinct = {}
    for call in calls:
        name, args = call["name"], call.get("args", {})
        key = f"{name}({json.dumps(args, sort_keys=True)})"
        distinct.setdefault(key, (name, args))
    keys = list(distinct)
    shuffled = keys[:]
    random.shuffle(shuffled)
    with ThreadPoolExecutor(max_workers=8) as pool:
        futures = {key: pool.submit(_invoke, tools, *distinct[key]) for key in shuffled}
        return {key: futures[key].result() for key in keys}


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

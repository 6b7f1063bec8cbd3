"""Authoring aid for spec/cases: case inputs are written here, their expectations are
computed by CPython running an independent Python rendering of RULINGS (the exercise's own
sandbox code and the seed's own solution), and the result is frozen in JSON.

The JSON files are the specification; this script is only how they were first written.
Case ids are written out by hand and are permanent: never renumber, never reuse.
The Rust reference is then checked against these files (tests/spec_cases.rs): two
implementations in two languages that must agree byte for byte.

Run: python3 scripts/author_cases.py   (rewrites spec/cases/*/*.json)"""
import json
import os
import sys

# --------------------------------------------------------------------------------------
# The sandbox, as seed 000 provides it, and its dispatch as RULINGS A reconstructs it.
# --------------------------------------------------------------------------------------
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


def sandbox_dispatch(request):
    name, args = request["tool"], request["arguments"]
    if name not in TOOLS:
        return f"error: unknown tool '{name}'"
    fn, params = TOOLS[name]
    for p, _ in params:
        if p not in args:
            return f"error: {name} missing required argument '{p}'"
    for k in sorted(args):
        if k not in dict(params):
            return f"error: {name} got unexpected argument '{k}'"
    for p, kind in params:
        v = args[p]
        ok = (isinstance(v, (int, float)) and not isinstance(v, bool)) if kind == "number" else isinstance(v, str)
        if not ok:
            return f"error: {name} argument '{p}' must be a {kind}"
    try:
        return str(fn(**args))
    except Exception as e:  # noqa: BLE001 - the sandbox reports every exception
        return f"error: {name} raised {type(e).__name__}: {e}"


# --------------------------------------------------------------------------------------
# Scripted tools: the case format's tool behaviour, played in Python.
# --------------------------------------------------------------------------------------
class Script:
    def __init__(self, tools):
        self.tools, self.counts, self.log = tools, {}, []

    def answer(self, name, args):
        key = json.dumps(args, sort_keys=True)
        n = self.counts.get((name, key), 0)
        self.counts[(name, key)] = n + 1
        for response in self.tools[name]["responses"]:
            if "args" not in response or json.dumps(response["args"], sort_keys=True) == key:
                answers = response["answers"]
                return answers[min(n, len(answers) - 1)]
        raise AssertionError(f"case authoring: no answer for {name}({key})")

    def callable(self, name):
        def tool(args):
            self.log.append({"name": name, "args": args})
            answer = self.answer(name, args)
            if answer["type"] == "raise":
                raise RuntimeError(answer["message"])
            return answer["value"]
        return tool

    def dispatch(self, log):
        def dispatch(request):
            log.append({"tool": request["tool"], "arguments": request["arguments"]})
            if request["tool"] not in self.tools:
                return f"error: unknown tool '{request['tool']}'"
            return self.answer(request["tool"], request["arguments"])["value"]
        return dispatch


# --------------------------------------------------------------------------------------
# The two functions, written from RULINGS (execute) and taken from seed 003 (dedup).
# --------------------------------------------------------------------------------------
def execute_tool_calls(calls, dispatch, max_parallel=4):
    seen, out = set(), []
    for i, call in enumerate(calls, start=1):
        cid = call.get("id") or f"call_{i}"
        if cid in seen:
            content = f"error: duplicate tool_call_id '{cid}'"
        elif i > max_parallel:
            content = f"error: too many parallel tool calls (limit {max_parallel})"
        else:
            content = dispatch({"tool": call["tool"], "arguments": call.get("arguments", {})})
        seen.add(cid)
        out.append({"role": "tool", "tool_call_id": cid, "content": content})
    return out


def run_parallel_calls(tools, calls):
    cache = {}
    for call in calls:
        name, args = call["name"], call.get("args", {})
        key = f"{name}({json.dumps(args, sort_keys=True)})"
        if key in cache:
            continue
        tool = tools.get(name)
        if tool is None:
            cache[key] = f"error: unknown tool '{name}'"
            continue
        try:
            cache[key] = tool(args)
        except Exception as e:  # noqa: BLE001
            cache[key] = f"error: {e}"
    return cache


# --------------------------------------------------------------------------------------
# Case builders. `calls` may be a str of raw JSON: its literal text goes into the file
# unchanged (number literals such as 1E2 or -0 matter to RULINGS B2).
# --------------------------------------------------------------------------------------
FILES = {}
RAW = []
OMIT = object()


class Raw:
    def __init__(self, text):
        self.text = text


def raw(text):
    RAW.append(text)
    return f"@@RAW{len(RAW) - 1}@@"


def file_of(function, topic):
    return FILES.setdefault((function, topic), {"$schema": "../../schema/case.schema.json",
                                                "function": function, "topic": topic, "cases": []})


def loads(calls):
    return json.loads(calls) if isinstance(calls, str) else calls


def exec_case(topic, cid, description, requirements, batches, tools=None):
    script = Script(tools) if tools else None
    out_batches = []
    for batch in batches:
        calls, max_parallel = batch if isinstance(batch, tuple) else (batch, OMIT)
        log = []
        if script:
            dispatch = script.dispatch(log)
        else:
            def dispatch(request, log=log):
                log.append({"tool": request["tool"], "arguments": request["arguments"]})
                return sandbox_dispatch(request)
        kwargs = {} if max_parallel is OMIT else {"max_parallel": max_parallel}
        expected = execute_tool_calls(loads(calls), dispatch, **kwargs)
        entry = {"calls": raw(calls) if isinstance(calls, str) else calls}
        if max_parallel is not OMIT:
            entry["max_parallel"] = max_parallel
        entry.update(expected=expected, invocations=log)
        out_batches.append(entry)
    case = {"id": cid, "description": description, "requirements": requirements}
    if tools:
        case["dispatch"] = {"type": "scripted", "tools": tools}
    case["batches"] = out_batches
    file_of("execute_tool_calls", topic)["cases"].append(case)


def dedup_case(topic, cid, description, requirements, tools, batches):
    script = Script(tools)
    out_batches = []
    for calls in batches:
        mapping = {name: script.callable(name) for name in tools}
        script.log = []
        expected = run_parallel_calls(mapping, loads(calls))
        out_batches.append({"calls": raw(calls) if isinstance(calls, str) else calls,
                            "expected": expected, "invocations": script.log})
    file_of("run_parallel_calls", topic)["cases"].append(
        {"id": cid, "description": description, "requirements": requirements,
         "tools": tools, "batches": out_batches})


def ret(value):
    return {"type": "return", "value": value}


def rise(message):
    return {"type": "raise", "message": message}


def echo_tool(*pairs, latency_ms=0):
    """A tool answering `value` to `args` for each (args, value) pair."""
    script = {"responses": [{"args": a, "answers": [ret(v)]} for a, v in pairs]}
    if latency_ms:
        script["latency_ms"] = latency_ms
    return script


def const_tool(*answers, latency_ms=0):
    script = {"responses": [{"answers": list(answers)}]}
    if latency_ms:
        script["latency_ms"] = latency_ms
    return script


def weather(city, cid=OMIT):
    call = {"tool": "get_weather", "arguments": {"city": city}}
    if cid is not OMIT:
        call = {"id": cid, **call}
    return call


def adds(a, b, cid=OMIT):
    call = {"tool": "add", "arguments": {"a": a, "b": b}}
    if cid is not OMIT:
        call = {"id": cid, **call}
    return call


sys.path.insert(0, os.path.dirname(__file__))
import case_inputs  # noqa: E402  (the case inputs, kept apart from the machinery)

case_inputs.define(sys.modules[__name__])


def strict(value):
    """Strict JSON has no Infinity: write the literal that json.loads reads as one."""
    if isinstance(value, float) and value in (float("inf"), float("-inf")):
        return raw("1e400" if value > 0 else "-1e400")
    assert not (isinstance(value, float) and value != value), "NaN has no JSON literal"
    if isinstance(value, list):
        return [strict(v) for v in value]
    if isinstance(value, dict):
        return {k: strict(v) for k, v in value.items()}
    return value


def write_all(root):
    for (function, topic), content in FILES.items():
        text = json.dumps(strict(content), indent=2, ensure_ascii=False, allow_nan=False)
        # Longest index first, so @@RAW1@@ never eats the start of @@RAW12@@.
        for index in reversed(range(len(RAW))):
            text = text.replace(f'"@@RAW{index}@@"', RAW[index])
        folder = os.path.join(root, "spec", "cases", function)
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, f"{topic}.json"), "w", encoding="utf-8") as f:
            f.write(text + "\n")
    counts = {}
    for (function, _), content in FILES.items():
        counts[function] = counts.get(function, 0) + len(content["cases"])
    print(counts)


write_all(os.path.join(os.path.dirname(__file__), ".."))

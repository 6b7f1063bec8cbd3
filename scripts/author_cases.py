"""Authoring aid for spec/cases: case inputs are written here, their expectations are
computed by CPython running an independent Python rendering of RULES (the exercise's own
sandbox code and the seed's own solution), and the result is frozen in JSON.

The JSON files are the specification; this script is only how they were first written.
Case ids are written out by hand and are permanent: never renumber, never reuse.
The Rust reference is then checked against these files (tests/spec_cases.rs): two
implementations in two languages that must agree byte for byte.

Run: python3 scripts/author_cases.py   (rewrites spec/cases/*/*.json)"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

from python_oracle import Script, execute_tool_calls, run_parallel_calls, sandbox_dispatch  # noqa: E402


# --------------------------------------------------------------------------------------
# Case builders. `calls` may be a str of raw JSON: its literal text goes into the file
# unchanged (number literals such as 1E2 or -0 matter to RULES B2).
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


def rise_as(kind, *args, message=None):
    """Raises `kind(*args)`; its message is CPython's own str() of that exception (given
    only for ToolError, whose __str__ returns it)."""
    from python_oracle import exception
    answer = {"type": "raise", "message": message or "", "exception": kind, "args": list(args)}
    answer["message"] = str(exception(answer))
    return answer


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


import case_inputs  # noqa: E402  (the case inputs, kept apart from the machinery)
import case_inputs_coverage  # noqa: E402  (the coverage corners, in their own module)

case_inputs.define(sys.modules[__name__])
case_inputs_coverage.define(sys.modules[__name__])


def strict(value):
    """Strict JSON has no Infinity: write the literal that json.loads reads as one."""
    if isinstance(value, float) and value in (float("inf"), float("-inf")):
        return raw("1e400" if value > 0 else "-1e400")
    if isinstance(value, float) and value != value:
        return raw("NaN")  # Python's dialect, as json.dumps writes it and parcall reads it
    if isinstance(value, list):
        return [strict(v) for v in value]
    if isinstance(value, dict):
        return {k: strict(v) for k, v in value.items()}
    return value


def escape_invisible(text):
    """Writes every character Python does not call printable (controls, U+007F, format and
    separator characters such as U+200B and U+2028, unassigned and private ones) as a \\u
    escape, astral ones as a surrogate pair, so a person reading a case file sees them.
    They only occur inside JSON strings, where the escape means the same character."""
    out = []
    for c in text:
        if c == "\n" or c.isprintable():
            out.append(c)
        elif ord(c) > 0xFFFF:
            high, low = divmod(ord(c) - 0x10000, 0x400)
            out.append("\\u%04x\\u%04x" % (0xD800 + high, 0xDC00 + low))
        else:
            out.append("\\u%04x" % ord(c))
    return "".join(out)


def write_all(root):
    for (function, topic), content in FILES.items():
        text = json.dumps(strict(content), indent=2, ensure_ascii=False, allow_nan=False)
        # Longest index first, so @@RAW1@@ never eats the start of @@RAW12@@.
        for index in reversed(range(len(RAW))):
            text = text.replace(f'"@@RAW{index}@@"', RAW[index])
        text = escape_invisible(text)
        folder = os.path.join(root, "spec", "cases", function)
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, f"{topic}.json"), "w", encoding="utf-8") as f:
            f.write(text + "\n")
    counts = {}
    for (function, _), content in FILES.items():
        counts[function] = counts.get(function, 0) + len(content["cases"])
    print(counts)


write_all(os.path.join(os.path.dirname(__file__), ".."))

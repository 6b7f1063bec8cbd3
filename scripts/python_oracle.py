"""An independent Python rendering of RULES: the exercise's own sandbox code with its
dispatch, scripted tools, and both functions. scripts/author_cases.py computes the spec's
expectations with it, and tests/suite/cpython_differential.rs checks the Rust reference against it.

Used as a module, or as a filter: `python3 scripts/python_oracle.py dispatch|dumps|repr_bits` reads
one JSON text per line and writes one answer per line."""
import json
import struct
import sys

# --------------------------------------------------------------------------------------
# The sandbox, as the exercise provides it, and its dispatch as RULES sandbox reconstructs it.
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
class ToolError(Exception):
    """A scripted exception with its own __str__: str(e) is the case's message, whatever
    its args (so str(e) and e.args[0] differ)."""

    def __init__(self, message, *args):
        super().__init__(*args)
        self.message = message

    def __str__(self):
        return self.message


CLASSES = {"RuntimeError": RuntimeError, "ValueError": ValueError, "KeyError": KeyError}


def exception(answer):
    """The real exception a `raise` answer describes: its class called with its args."""
    kind = answer.get("exception", "RuntimeError")
    args = answer.get("args", [answer["message"]])
    if kind == "ToolError":
        return ToolError(answer["message"], *args)
    return CLASSES[kind](*args)


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
                raise exception(answer)
            return answer["value"]
        return tool

    def dispatch(self, log):
        def dispatch(request):
            log.append({"tool": request["tool"], "arguments": request["arguments"]})
            if request["tool"] not in self.tools:
                return f"error: unknown tool '{request['tool']}'"
            answer = self.answer(request["tool"], request["arguments"])
            if answer["type"] == "raise":
                return "error: " + str(exception(answer))
            return answer["value"]
        return dispatch


# --------------------------------------------------------------------------------------
# The two functions: execute_tool_calls written from RULES A, run_parallel_calls taken from
# the exercise (RULES B).
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


def _serve(mode):
    for line in sys.stdin:
        try:
            value = json.loads(line)
            if mode == "dispatch":
                answer = sandbox_dispatch(value)
            elif mode == "repr_bits":
                answer = repr(struct.unpack("<d", struct.pack("<Q", value))[0])
            else:
                answer = json.dumps(value, sort_keys=True)
        except Exception as e:  # noqa: BLE001 - reported per line, compared by the caller
            answer = f"!{type(e).__name__}: {e}"
        sys.stdout.write(json.dumps(answer) + "\n")


if __name__ == "__main__":
    _serve(sys.argv[1])

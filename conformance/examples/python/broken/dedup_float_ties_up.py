"""Deliberately broken: floats in keys are written with hand-made shortest digits (for a
runtime without repr): at each length, the two neighbours of the float's exact value, the one
that reads back, the nearer when both do, but the larger on a tie, where repr takes the even
digit. 562949953421503.25 reads back from both 562949953421503.2 and 562949953421503.3, equally
near: repr writes ...503.2, this writes ...503.3. Only such ties differ (k + 1/4 for
2**49 <= k < 2**51 is one, 2**-25 another); random floats almost never are one."""
# parcall: breaks DEDUP-NUMBER-FLOAT
import json
import math
from decimal import ROUND_FLOOR, Decimal

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


def run_parallel_calls(tools, calls):
    cache = {}
    for call in calls:
        name, args = call["name"], call.get("args", {})
        key = f"{name}({dumps(args)})"
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


def dumps(value):
    """json.dumps(value, sort_keys=True), floats written by float_text."""
    if isinstance(value, float) and math.isfinite(value):
        return float_text(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)}: {dumps(value[k])}" for k in sorted(value)) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(dumps(v) for v in value) + "]"
    return json.dumps(value)


def repr_layout(negative, digits, point):
    """Digits d1 d2 ... with the value 0.d1d2... * 10**point, laid out as repr lays out a
    float: fixed from 1e-4 up to 1e16 (with .0 when integral), scientific otherwise."""
    sign = "-" if negative else ""
    exponent = point - 1
    if -4 <= exponent < 16:
        if point <= 0:
            return f"{sign}0.{'0' * -point}{digits}"
        whole = digits[:point].ljust(point, "0")
        return f"{sign}{whole}.{digits[point:] or '0'}"
    mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return f"{sign}{mantissa}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"


def float_text(x):
    if x == 0:
        return repr(x)
    exact = Decimal(abs(x))
    for length in range(1, 18):
        unit = Decimal(1).scaleb(exact.adjusted() - length + 1)
        low = exact.quantize(unit, rounding=ROUND_FLOOR)
        fits = [c for c in (low, low + unit) if float(c) == abs(x)]
        if fits:
            # Nearer first; on a tie the larger (the even digit is repr's choice).
            best = min(fits, key=lambda c: (abs(c - exact), -c))
            break
    sign, digits, exponent = best.normalize().as_tuple()
    text = "".join(map(str, digits))
    return repr_layout(x < 0, text, exponent + len(text))


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

// Deliberately broken: a port of the Python exercise that writes every number in a key as
// Python's repr of a float (`1` and `1.0` both as `1.0`, `1e16` as `1e+16`, `1e-5` as
// `1e-05`). A JavaScript number is a double, not a Python float: the adapter declares the
// float64 number model, under which `1.0` is the number 1 and a key writes it `1`, as
// JavaScript's String(1) does (RULES E).
// parcall: breaks DEDUP-NUMBER-INT DEDUP-NUMBER-FLOAT
export function execute_tool_calls(calls, max_parallel = 4) {
  const seen = new Set();
  return calls.map((call, index) => {
    const position = index + 1;
    const id = call.id ? call.id : `call_${position}`;
    let content;
    if (seen.has(id)) {
      content = `error: duplicate tool_call_id '${id}'`;
    } else if (position > max_parallel) {
      content = `error: too many parallel tool calls (limit ${max_parallel})`;
    } else {
      content = dispatch({ tool: call.tool, arguments: call.arguments ?? {} });
    }
    seen.add(id);
    return { role: "tool", tool_call_id: id, content };
  });
}

// Python's repr(float): fixed notation from 1e-4 up to 1e16 with `.0` on integral values,
// scientific with a signed two-digit exponent otherwise.
function pythonFloat(x) {
  if (Number.isNaN(x)) return "NaN";
  if (!Number.isFinite(x)) return x > 0 ? "Infinity" : "-Infinity";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const size = Math.abs(x);
  if (size >= 1e16 || size < 1e-4) {
    const [mantissa, exponent] = x.toExponential().split("e");
    const sign = exponent.startsWith("-") ? "-" : "+";
    return `${mantissa}e${sign}${exponent.replace(/^[-+]/, "").padStart(2, "0")}`;
  }
  return Number.isInteger(x) ? `${x}.0` : String(x);
}

export function dumps(value) {
  if (value === null) return "null";
  if (typeof value === "boolean") return String(value);
  if (typeof value === "number") return pythonFloat(value);
  if (typeof value === "string") {
    let out = '"';
    for (const unit of value.split("").map((c) => c.charCodeAt(0))) {
      const c = String.fromCharCode(unit);
      const short = { '"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f" }[c];
      if (short) out += short;
      else if (unit >= 0x20 && unit <= 0x7e) out += c;
      else out += "\\u" + unit.toString(16).padStart(4, "0");
    }
    return out + '"';
  }
  if (Array.isArray(value)) return "[" + value.map(dumps).join(", ") + "]";
  const keys = Object.keys(value).sort((a, b) => (codePoints(a) < codePoints(b) ? -1 : codePoints(a) > codePoints(b) ? 1 : 0));
  return "{" + keys.map((k) => `${dumps(k)}: ${dumps(value[k])}`).join(", ") + "}";
}

// Sort keys by code point, as Python does, not by UTF-16 unit.
function codePoints(text) {
  return Array.from(text, (c) => c.codePointAt(0).toString(16).padStart(6, "0")).join("");
}

export function run_parallel_calls(tools, calls) {
  const cache = {};
  for (const call of calls) {
    const key = `${call.name}(${dumps(call.args ?? {})})`;
    if (key in cache) continue;
    const tool = Object.hasOwn(tools, call.name) ? tools[call.name] : undefined;
    if (tool === undefined) {
      cache[key] = `error: unknown tool '${call.name}'`;
      continue;
    }
    try {
      cache[key] = tool(call.args ?? {});
    } catch (e) {
      cache[key] = `error: ${e.message}`;
    }
  }
  return cache;
}

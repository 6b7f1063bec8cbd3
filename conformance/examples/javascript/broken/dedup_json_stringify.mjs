// Deliberately broken: the key is JSON.stringify, which departs from json.dumps in four
// ways, each its own rule: keys in the object's order, compact separators, non-ASCII
// written raw, and the non-finite numbers written as null.
// parcall: breaks DEDUP-KEY-ORDER DEDUP-KEY-FORMAT DEDUP-KEY-ASCII DEDUP-NUMBER-OVERFLOW
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

// Python's json.dumps(value, sort_keys=True), as closely as JavaScript's numbers permit.
export function dumps(value) {
  if (value === null) return "null";
  if (typeof value === "boolean") return String(value);
  if (typeof value === "number") {
    if (Number.isNaN(value)) return "NaN";
    if (!Number.isFinite(value)) return value > 0 ? "Infinity" : "-Infinity";
    return String(value);
  }
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
    const key = `${call.name}(${JSON.stringify(call.args ?? {})})`;
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

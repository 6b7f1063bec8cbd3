// JSON in Python's dialect (`NaN`, `Infinity`, `-Infinity` as literals) and the canonical key
// of a call. JavaScript has one number type, so `1` and `1.0` are one value: the kit declares
// the `float64` number model, and keys write numbers as `String()` does (PROTOCOL.md,
// "Number models").

export type Json = null | boolean | number | string | Json[] | JsonObject;
export type JsonObject = { [key: string]: Json };

const NUMBER = /-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?/y;
const WORDS: [string, Json][] = [["null", null], ["true", true], ["false", false], ["NaN", NaN], ["Infinity", Infinity], ["-Infinity", -Infinity]];

/** Reads one whole JSON text; a SyntaxError says what and where. */
export function parse(text: string): Json {
  let at = 0;
  const whitespace = () => { while (at < text.length && " \t\n\r".includes(text[at])) at++; };
  const fail = (what: string): never => { throw new SyntaxError(`${what} at offset ${at}`); };
  function string(): string {
    if (text[at] !== '"') fail("expected a string");
    const start = at++;
    while (text[at] !== '"') { if (text[at] === "\\") at++; at++; if (at > text.length) fail("unterminated string"); }
    at++;
    return JSON.parse(text.slice(start, at));
  }
  function value(): Json {
    whitespace();
    if (text[at] === "{") {
      at++;
      const object: JsonObject = {};
      whitespace();
      if (text[at] === "}") { at++; return object; }
      for (;;) {
        whitespace();
        const key = string();
        whitespace();
        if (text[at++] !== ":") fail("expected ':'");
        // An own member whatever its key: assigning `__proto__` would set the prototype.
        Object.defineProperty(object, key, { value: value(), writable: true, enumerable: true, configurable: true });
        whitespace();
        if (text[at] === ",") { at++; continue; }
        if (text[at++] === "}") return object;
        fail("expected ',' or '}'");
      }
    }
    if (text[at] === "[") {
      at++;
      const list: Json[] = [];
      whitespace();
      if (text[at] === "]") { at++; return list; }
      for (;;) {
        list.push(value());
        whitespace();
        if (text[at] === ",") { at++; continue; }
        if (text[at++] === "]") return list;
        fail("expected ',' or ']'");
      }
    }
    if (text[at] === '"') return string();
    for (const [word, v] of WORDS) if (text.startsWith(word, at)) { at += word.length; return v; }
    // Sticky, on the whole text: an integer may have thousands of digits.
    NUMBER.lastIndex = at;
    const number = NUMBER.exec(text) ?? fail("expected a value");
    at += number[0].length;
    return Number(number[0]);
  }
  const result = value();
  whitespace();
  if (at !== text.length) fail("extra data");
  return result;
}

/** A value that is not JSON, and where. */
export class NotJson extends Error {}

/** The value as Python's json.dumps(value, sort_keys=sortKeys) writes it, numbers as String(). */
export function dumps(value: unknown, sortKeys = false, where = "$"): string {
  if (value === null) return "null";
  switch (typeof value) {
    case "boolean": return String(value);
    case "number":
      if (Number.isNaN(value)) return "NaN";
      if (!Number.isFinite(value)) return value > 0 ? "Infinity" : "-Infinity";
      return String(value);
    case "string": return quote(value);
    case "object": {
      if (Array.isArray(value)) return "[" + value.map((v, i) => dumps(v, sortKeys, `${where}[${i}]`)).join(", ") + "]";
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) throw new NotJson(`${where} is a ${value.constructor?.name ?? "object"}, which is not a JSON value`);
      const keys = Object.keys(value);
      if (sortKeys) keys.sort(byCodePoint);
      const members = keys.map((k) => `${quote(k)}: ${dumps((value as JsonObject)[k], sortKeys, `${where}[${quote(k)}]`)}`);
      return "{" + members.join(", ") + "}";
    }
    default:
      throw new NotJson(`${where} is ${value === undefined ? "undefined" : `a ${typeof value}`}, which is not a JSON value`);
  }
}

/**
 * The canonical key of a call (RULES B1): `name(` + Python's json.dumps(args, sort_keys=True)
 * + `)`, numbers as String() writes them: key("f", {b: 1, a: 0.5}) is `f({"a": 0.5, "b": 1})`.
 */
export function key(name: string, args: Json): string {
  return `${name}(${dumps(args, true)})`;
}

const SHORT: Record<string, string> = { '"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f" };

// ensure_ascii: everything outside space..`~` escaped by UTF-16 unit, in lowercase hex.
function quote(text: string): string {
  let out = '"';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    const unit = text.charCodeAt(i);
    if (SHORT[c]) out += SHORT[c];
    else if (unit >= 0x20 && unit <= 0x7e) out += c;
    else out += "\\u" + unit.toString(16).padStart(4, "0");
  }
  return out + '"';
}

// Python sorts str keys by code point; JavaScript's `<` compares UTF-16 units.
function byCodePoint(a: string, b: string): number {
  const x = Array.from(a, (c) => c.codePointAt(0)!);
  const y = Array.from(b, (c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
}

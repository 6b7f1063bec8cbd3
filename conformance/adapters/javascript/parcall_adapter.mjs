// parcall's JavaScript adapter (Node 20+): loads a module exporting execute_tool_calls /
// run_parallel_calls (or executeToolCalls / runParallelCalls), ESM or CommonJS, and serves
// it over the parcall protocol, version 1 (conformance/PROTOCOL.md), on the private fds
// named by PARCALL_PROTOCOL_FDS.
//
//     node parcall_adapter.mjs path/to/solution.mjs
//
// `dispatch` is provided as a global; the module must not define its own. JavaScript has
// one number type, so the adapter declares the number model `float64` in its handshake
// (RULINGS E): `1` and `1.0` are one value and one key, written as JavaScript writes
// numbers, and the runner computes what a correct module returns accordingly. Values the
// runner sent are passed back with their original JSON text when they come back unchanged.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { StringDecoder } from "node:string_decoder";

const PROTOCOL_VERSION = 1;
const OUTPUT_CAP = 64 * 1024;
const [READ_FD, WRITE_FD] = (process.env.PARCALL_PROTOCOL_FDS || "3,4").split(",").map(Number);
delete process.env.PARCALL_PROTOCOL_FDS;

// ---------------------------------------------------------------------------------------
// JSON in Python's dialect, remembering the source text of every object and array
// ---------------------------------------------------------------------------------------
const SOURCE = new WeakMap();
const NUMBER = /-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?/y;

function parse(text) {
  let i = 0;
  const ws = () => { while (i < text.length && " \t\n\r".includes(text[i])) i++; };
  const fail = (what) => { throw new SyntaxError(`${what} at offset ${i}`); };
  function value() {
    ws();
    const start = i;
    const c = text[i];
    if (c === "{") {
      i++; const object = {}; ws();
      if (text[i] === "}") { i++; } else {
        for (;;) {
          ws(); const key = string(); ws();
          if (text[i++] !== ":") fail("expected ':'");
          object[key] = value(); ws();
          if (text[i] === ",") { i++; continue; }
          if (text[i++] === "}") break;
          fail("expected ',' or '}'");
        }
      }
      SOURCE.set(object, { text: text.slice(start, i), js: JSON.stringify(object) });
      return object;
    }
    if (c === "[") {
      i++; const list = []; ws();
      if (text[i] === "]") { i++; } else {
        for (;;) {
          list.push(value()); ws();
          if (text[i] === ",") { i++; continue; }
          if (text[i++] === "]") break;
          fail("expected ',' or ']'");
        }
      }
      SOURCE.set(list, { text: text.slice(start, i), js: JSON.stringify(list) });
      return list;
    }
    if (c === '"') return string();
    for (const [word, v] of [["null", null], ["true", true], ["false", false], ["NaN", NaN], ["Infinity", Infinity], ["-Infinity", -Infinity]]) {
      if (text.startsWith(word, i)) { i += word.length; return v; }
    }
    // Sticky, on the whole text: a number may have thousands of digits (integers up to the
    // 4,300 CPython converts), so no window of the text may cut it.
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (!m) fail("expected a value");
    i += m[0].length;
    return Number(m[0]);
  }
  function string() {
    if (text[i] !== '"') fail("expected a string");
    const start = i++;
    while (text[i] !== '"') { if (text[i] === "\\") i++; i++; if (i > text.length) fail("unterminated string"); }
    i++;
    return JSON.parse(text.slice(start, i));
  }
  const result = value(); ws();
  if (i !== text.length) fail("extra data");
  return result;
}

class NotJson extends Error {}

// The value as Python-dialect JSON: original text for what came back unchanged.
function dump(value, where = "$") {
  if (value === null) return "null";
  switch (typeof value) {
    case "boolean": return String(value);
    case "string": return JSON.stringify(value);
    case "number":
      if (Number.isNaN(value)) return "NaN";
      if (!Number.isFinite(value)) return value > 0 ? "Infinity" : "-Infinity";
      return JSON.stringify(value);
    case "object": {
      const source = SOURCE.get(value);
      if (source && JSON.stringify(value) === source.js) return source.text;
      if (Array.isArray(value)) return "[" + value.map((v, k) => dump(v, `${where}[${k}]`)).join(", ") + "]";
      if (value instanceof Map) {
        return dump(Object.fromEntries([...value].map(([k, v]) => {
          if (typeof k !== "string") throw new NotJson(`${where} is a Map with a key of type ${typeof k}; JSON object keys are strings`);
          return [k, v];
        })), where);
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) throw new NotJson(`${where} is a ${value.constructor?.name ?? "object"}, which is not a JSON value`);
      return "{" + Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${dump(v, `${where}[${JSON.stringify(k)}]`)}`).join(", ") + "}";
    }
    default:
      throw new NotJson(`${where} is ${value === undefined ? "undefined" : `a ${typeof value}`}, which is not a JSON value`);
  }
}

function snapshot(value) {
  try { return { raw: dump(value) }; } catch (e) { return { raw: JSON.stringify({ $parcall_not_json: String(e.message) }) }; }
}

// Args as text with keys sorted at every depth, to look scripted answers up by value: numbers
// as String() writes them, so NaN, Infinity and null stay three different args (JSON.stringify
// would write all three as null).
function canonical(value) {
  const write = (v) => {
    if (typeof v === "number") return String(v);
    if (Array.isArray(v)) return "[" + v.map(write).join(",") + "]";
    if (v && typeof v === "object") return "{" + Object.keys(v).sort().map((k) => JSON.stringify(k) + ":" + write(v[k])).join(",") + "}";
    const text = JSON.stringify(v);
    return text === undefined ? "<not json>" : text;
  };
  try { return write(value); } catch { return "<not json>"; }
}

// ---------------------------------------------------------------------------------------
// Protocol channel and output capture
// ---------------------------------------------------------------------------------------
function* lines() {
  const buffer = Buffer.alloc(1 << 16);
  // A read can end inside a character: the decoder keeps its first bytes for the next read
  // (decoding each read alone would turn them into U+FFFD).
  const decoder = new StringDecoder("utf8");
  let pending = "";
  for (;;) {
    let n;
    try { n = fs.readSync(READ_FD, buffer, 0, buffer.length, null); } catch (e) { if (e.code === "EAGAIN") continue; throw e; }
    if (n === 0) { pending += decoder.end(); if (pending) yield pending; return; }
    pending += decoder.write(buffer.subarray(0, n));
    let at;
    while ((at = pending.indexOf("\n")) >= 0) { yield pending.slice(0, at); pending = pending.slice(at + 1); }
  }
}

function send(raw) { fs.writeSync(WRITE_FD, raw + "\n"); }

let captured = "";
let dropped = 0;
function capture(text) {
  text = String(text);
  const room = Math.max(0, OUTPUT_CAP - captured.length);
  captured += text.slice(0, room);
  dropped += Math.max(0, text.length - room);
}
function takeOutput() {
  const text = captured + (dropped ? `\n[parcall: ${dropped} more characters not shown]\n` : "");
  captured = ""; dropped = 0;
  return text;
}
for (const stream of [process.stdout, process.stderr]) stream.write = (chunk) => { capture(chunk); return true; };
for (const name of ["log", "info", "warn", "error", "debug"]) console[name] = (...args) => capture(args.map(String).join(" ") + "\n");

// ---------------------------------------------------------------------------------------
// Tools from the case's scripts
// ---------------------------------------------------------------------------------------
// A `raise` answer names a Python exception class and its args; JavaScript has no such
// classes, so each is an Error subclass of that name whose message is Python's str(e)
// (the answer's message) and whose `args` are the args: KeyError('x') has message 'x'
// with its quotes, args ["x"].
const errorClasses = new Map();
function scriptedError(answer) {
  const kind = answer.exception ?? "RuntimeError";
  if (!errorClasses.has(kind)) {
    const named = { [kind]: class extends Error {} }[kind];
    Object.defineProperty(named.prototype, "name", { value: kind });
    errorClasses.set(kind, named);
  }
  const error = new (errorClasses.get(kind))(answer.message);
  error.args = answer.args ?? [answer.message];
  return error;
}

class Scripts {
  constructor(tools) {
    this.tools = tools; this.counts = new Map(); this.invocations = [];
    // Per tool: the first response index for each canonical args and the first without
    // args, so a case scripting hundreds of responses is answered in constant time.
    this.first = new Map();
    for (const [name, script] of Object.entries(tools)) {
      const byKey = new Map(); let anyArgs;
      script.responses.forEach((r, i) => {
        if (!("args" in r)) { if (anyArgs === undefined) anyArgs = i; }
        else { const k = canonical(r.args); if (!byKey.has(k)) byKey.set(k, i); }
      });
      this.first.set(name, { byKey, anyArgs });
    }
  }
  answer(name, args, record) {
    this.invocations.push(record);
    const key = `${name}\u0000${canonical(args)}`;
    const n = this.counts.get(key) ?? 0;
    this.counts.set(key, n + 1);
    const script = typeof name === "string" && Object.hasOwn(this.tools, name) ? this.tools[name] : undefined;
    if (!script) return undefined;
    const { byKey, anyArgs } = this.first.get(name);
    const matches = [byKey.get(canonical(args)), anyArgs].filter((i) => i !== undefined);
    if (matches.length === 0) return undefined;
    const response = script.responses[Math.min(...matches)];
    // No race probe waits here. A probe's wait (`latency_ms`, PROTOCOL.md) shows a race only
    // to code that runs while it waits, and nothing can: a tool runs on the one thread that
    // runs the implementation's code (a worker thread cannot call it), and a synchronous
    // wait would stop that thread whole. A racy cache's second call is caught without it.
    return response.answers[Math.min(n, response.answers.length - 1)];
  }
  take() { const taken = this.invocations; this.invocations = []; return taken; }
  dispatch() {
    return (request) => {
      const tool = request?.tool, args = request?.arguments;
      const answer = this.answer(tool, args, `{"tool": ${snapshot(tool).raw}, "arguments": ${snapshot(args).raw}}`);
      if (!answer) return `error: parcall: no scripted answer for ${tool}(${canonical(args)})`;
      if (answer.type === "raise") return "error: " + answer.message;
      return answer.value;
    };
  }
  tool(name) {
    return (args) => {
      const answer = this.answer(name, args, `{"name": ${JSON.stringify(name)}, "args": ${snapshot(args).raw}}`);
      if (!answer) throw new Error(`parcall: no scripted answer for ${name}(${canonical(args)})`);
      if (answer.type === "raise") throw scriptedError(answer);
      return answer.value;
    };
  }
}

// ---------------------------------------------------------------------------------------
// Loading and running
// ---------------------------------------------------------------------------------------
function pick(module, snake, camel) {
  for (const source of [module, module.default ?? {}]) {
    for (const name of [snake, camel]) if (typeof source?.[name] === "function") return source[name];
  }
  return undefined;
}

function trimStack(error, file) {
  const stack = String(error?.stack ?? "").split("\n").slice(1).filter((l) => l.includes(file));
  return stack.join("\n");
}

async function runBatch(fn, request, scripts, batch, file) {
  let result;
  try {
    if (request.function === "execute_tool_calls") {
      globalThis.dispatch = scripts.dispatch();
      result = "max_parallel" in batch ? fn(batch.calls, batch.max_parallel) : fn(batch.calls);
    } else {
      const tools = Object.fromEntries(Object.keys(request.tools).map((n) => [n, scripts.tool(n)]));
      result = fn(tools, batch.calls);
    }
    if (result && typeof result.then === "function") result = await result;
  } catch (e) {
    const message = e instanceof Error ? `${e.name}: ${e.message}` : `thrown: ${String(e)}`;
    return `{"status": "raised", "message": ${JSON.stringify(message)}, "traceback": ${JSON.stringify(trimStack(e, file))}, "invocations": [${scripts.take().join(", ")}]}`;
  }
  try {
    const output = dump(result);
    return `{"status": "returned", "output": ${output}, "invocations": [${scripts.take().join(", ")}]}`;
  } catch (e) {
    if (!(e instanceof NotJson)) throw e;
    return `{"status": "raised", "message": ${JSON.stringify("returned a value that is not JSON: " + e.message)}, "traceback": "", "invocations": [${scripts.take().join(", ")}]}`;
  }
}

async function main() {
  const requests = lines();
  const first = requests.next();
  if (first.done) return;
  const file = path.resolve(process.argv[2] ?? "");
  const hello = { type: "hello", protocol: PROTOCOL_VERSION, implementation: { name: path.basename(file), language: "javascript", version: process.versions.node }, functions: [], problems: [], number_model: "float64" };
  const functions = {};
  try {
    const module = await import(pathToFileURL(file).href);
    functions.execute_tool_calls = pick(module, "execute_tool_calls", "executeToolCalls");
    functions.run_parallel_calls = pick(module, "run_parallel_calls", "runParallelCalls");
    for (const [name, fn] of Object.entries(functions)) if (fn) hello.functions.push(name);
    if (pick(module, "dispatch", "dispatch")) hello.problems.push("the module defines its own `dispatch`; parcall provides `dispatch` as a global, so remove it");
  } catch (e) {
    hello.load_error = `${e?.name ?? "Error"}: ${e?.message ?? e}\n${trimStack(e, file)}`;
  }
  hello.output = takeOutput();
  send(JSON.stringify(hello));
  for (const line of requests) {
    let request;
    try { request = parse(line); } catch (e) { return; }
    if (request.type === "shutdown") { send('{"type": "bye"}'); return; }
    const fn = functions[request.function];
    // request.case is an opaque label (never the case id, PROTOCOL.md): nothing uses it.
    const scripts = new Scripts(request.tools);
    const batches = [];
    for (const batch of request.batches) {
      const reply = await runBatch(fn, request, scripts, batch, file);
      batches.push(reply);
      if (reply.startsWith('{"status": "raised"')) break;
    }
    send(`{"type": "result", "id": ${request.id}, "batches": [${batches.join(", ")}], "output": ${JSON.stringify(takeOutput())}}`);
  }
}

main().then(() => process.exit(0), (e) => { fs.writeSync(2, `parcall adapter failed: ${e?.stack ?? e}\n`); process.exit(70); });

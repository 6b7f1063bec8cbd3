// parcall's JavaScript adapter (Node 20+): loads a module exporting execute_tool_calls /
// run_parallel_calls (or executeToolCalls / runParallelCalls), ESM or CommonJS, and serves
// it over the parcall protocol, version 2 (conformance/PROTOCOL.md), on the private fds
// named by PARCALL_PROTOCOL_FDS.
//
//     node parcall_adapter.mjs path/to/solution.mjs
//
// `dispatch` is provided as a global; the module must not define its own. parcall holds the
// tools: `dispatch` and each tool are stubs that send the invocation to parcall and wait for
// its answer, so this process never holds the record of invocations nor an answer early. An
// exercise's stubs wait with a synchronous read of the protocol fd (its functions call tools
// synchronously); a runtime's tools return a promise that stays pending until parcall answers
// (RULES F7), so a framework's completion order is observable as it is in Python. JavaScript has
// one number type, so the adapter declares the number model `float64` in its handshake
// (RULES E): `1` and `1.0` are one value and one key, written as JavaScript writes
// numbers, and the runner computes what a correct module returns accordingly. Values the
// runner sent are passed back with their original JSON text when they come back unchanged.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { StringDecoder } from "node:string_decoder";

const PROTOCOL_VERSION = 2;
const OUTPUT_CAP = 64 * 1024;
const [READ_FD, WRITE_FD] = (process.env.PARCALL_PROTOCOL_FDS || "3,4").split(",").map(Number);
delete process.env.PARCALL_PROTOCOL_FDS;

// ---------------------------------------------------------------------------------------
// JSON in Python's dialect, remembering the source text of every object and array
// ---------------------------------------------------------------------------------------
const SOURCE = new WeakMap();
const NUMBER = /-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?/y;

// A member as an own property, whatever its key: assigning `__proto__` would set the
// object's prototype instead and lose the member (`{"__proto__": 1}` would read as `{}`).
// Objects keep Object.prototype, so a module may call their methods as usual.
function defineMember(object, key, member) {
  if (key === "__proto__") {
    Object.defineProperty(object, key, { value: member, writable: true, enumerable: true, configurable: true });
  } else {
    object[key] = member;
  }
}

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
          defineMember(object, key, value()); ws();
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

// A value as JSON text, taken at the moment of the invocation (the caller may change it).
function snapshot(value) {
  if (value === undefined) return "null";
  try { return dump(value); } catch (e) { return JSON.stringify({ $parcall_not_json: String(e.message) }); }
}

// ---------------------------------------------------------------------------------------
// Protocol channel and output capture
// ---------------------------------------------------------------------------------------
// The lines parcall sends, read synchronously (an exercise's stubs, the request loop) or
// without blocking the event loop (a runtime's stubs, whose framework runs on it meanwhile),
// never both at once: the request loop waits for the runtime stubs' reader to finish.
class Lines {
  constructor(fd) {
    this.fd = fd;
    this.buffer = Buffer.alloc(1 << 16);
    // A read can end inside a character: the decoder keeps its first bytes for the next read
    // (decoding each read alone would turn them into U+FFFD).
    this.decoder = new StringDecoder("utf8");
    this.pending = "";
    this.ready = [];
    this.ended = false;
  }
  take(n) {
    if (n === 0) {
      this.pending += this.decoder.end();
      if (this.pending) this.ready.push(this.pending);
      this.pending = "";
      this.ended = true;
      return;
    }
    this.pending += this.decoder.write(this.buffer.subarray(0, n));
    let at;
    while ((at = this.pending.indexOf("\n")) >= 0) { this.ready.push(this.pending.slice(0, at)); this.pending = this.pending.slice(at + 1); }
  }
  // The next line, or undefined once parcall closed the channel.
  nextSync() {
    while (!this.ready.length && !this.ended) {
      let n;
      try { n = fs.readSync(this.fd, this.buffer, 0, this.buffer.length, null); } catch (e) { if (e.code === "EAGAIN") continue; throw e; }
      this.take(n);
    }
    return this.ready.shift();
  }
  async next() {
    while (!this.ready.length && !this.ended) {
      const n = await new Promise((resolve, reject) => fs.read(this.fd, this.buffer, 0, this.buffer.length, null, (e, n) => (e ? reject(e) : resolve(n))));
      this.take(n);
    }
    return this.ready.shift();
  }
}

function send(raw) { fs.writeSync(WRITE_FD, raw + "\n"); }

// Every message from parcall, in order: the request loop takes cases, a stub its answer.
// A stub reading for its answer keeps any other message it meets for the loop.
const incoming = new Lines(READ_FD);
const queued = [];
// The runtime stubs' invocations still waiting for their answers, by call number, and the
// reader that delivers them while any waits (at most one runs).
const waiting = new Map();
let reader = null;
async function nextMessage() {
  // A tool a framework left pending after its turn ended still has its reader on the
  // channel: the request loop takes what that reader keeps rather than read beside it.
  while (!queued.length && reader) await reader;
  if (queued.length) return queued.shift();
  const line = incoming.nextSync();
  return line === undefined ? undefined : parse(line);
}
function awaitAnswer(call) {
  for (;;) {
    const line = incoming.nextSync();
    if (line === undefined) throw new Error("parcall closed the protocol");
    const message = parse(line);
    if (message.type === "answer" && message.call === call) return message.answer;
    if (message.type !== "answer") queued.push(message);
  }
}
// The answer to `call`, as a promise pending until parcall answers it.
function answerLater(call) {
  const answer = new Promise((resolve) => waiting.set(call, resolve));
  if (!reader) reader = readAnswers().finally(() => { reader = null; });
  return answer;
}
async function readAnswers() {
  while (waiting.size) {
    const line = await incoming.next();
    if (line === undefined) process.exit(0);
    const message = parse(line);
    if (message.type === "answer" && waiting.has(message.call)) {
      const resolve = waiting.get(message.call);
      waiting.delete(message.call);
      resolve(message.answer);
    } else if (message.type !== "answer") {
      queued.push(message);
    }
  }
}

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

let calls = 0;

class Stubs {
  constructor(caseId) { this.caseId = caseId; }
  invoke(tool, args) {
    const call = ++calls;
    send(`{"type": "invoke", "id": ${this.caseId}, "call": ${call}, "tool": ${snapshot(tool)}, "args": ${snapshot(args)}}`);
    return call;
  }
  ask(tool, args) {
    return awaitAnswer(this.invoke(tool, args));
  }
  dispatch() {
    // parcall answers dispatch with what it returns; it never raises.
    return (request) => this.ask(request?.tool, request?.arguments).value;
  }
  tool(name) {
    return (args) => {
      const answer = this.ask(name, args);
      if (answer.type === "raise") throw scriptedError(answer);
      return answer.value;
    };
  }
  // A runtime's tool: the invocation is sent at once (its args as they are at the call), and
  // the result is a promise that settles when parcall answers, so a tool parcall holds is
  // still pending in the framework (RULES F7).
  pendingTool(name) {
    return async (args) => {
      const answer = await answerLater(this.invoke(name, args));
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

// One batch; its `returned` or `raised` message (parcall counts the batches).
async function runBatch(fn, request, stubs, batch, file) {
  let result;
  const id = request.id;
  try {
    if (request.function === "execute_tool_calls") {
      globalThis.dispatch = stubs.dispatch();
      result = "max_parallel" in batch ? fn(batch.calls, batch.max_parallel) : fn(batch.calls);
    } else if (request.function === "run_tool_calls") {
      const schemas = request.parameters ?? {};
      const tools = Object.fromEntries(request.tools.map((n) => {
        const stub = stubs.pendingTool(n);
        stub.parameters = schemas[n] ?? { type: "object", properties: {} };
        stub.description = `The ${n} tool.`;
        return [n, stub];
      }));
      result = fn(tools, batch.calls);
    } else {
      const tools = Object.fromEntries(request.tools.map((n) => [n, stubs.tool(n)]));
      result = fn(tools, batch.calls);
    }
    if (result && typeof result.then === "function") result = await result;
  } catch (e) {
    const message = e instanceof Error ? `${e.name}: ${e.message}` : `thrown: ${String(e)}`;
    return `{"type": "raised", "id": ${id}, "message": ${JSON.stringify(message)}, "traceback": ${JSON.stringify(trimStack(e, file))}}`;
  }
  try {
    return `{"type": "returned", "id": ${id}, "output": ${dump(result)}}`;
  } catch (e) {
    if (!(e instanceof NotJson)) throw e;
    return `{"type": "raised", "id": ${id}, "message": ${JSON.stringify("returned a value that is not JSON: " + e.message)}, "traceback": ""}`;
  }
}

// A runtime adapter's RUNTIME object as the hello declares it, or what is wrong with it
// (docs/runtime-adapters.md).
function runtimeDeclaration(runtime) {
  if (!runtime || typeof runtime !== "object") return { problem: "RUNTIME: a runtime adapter must export RUNTIME, an object (docs/runtime-adapters.md)" };
  for (const field of ["framework", "version", "entry"]) {
    if (typeof runtime[field] !== "string" || !runtime[field]) return { problem: `RUNTIME.${field}: must be a non-empty string` };
  }
  let types = runtime.message_types ?? runtime.message_type;
  if (typeof types === "string") types = [types];
  if (!Array.isArray(types) || !types.length || !types.every((t) => typeof t === "string")) return { problem: "RUNTIME.message_type: must name the framework's result type (a string)" };
  const policies = runtime.policies ?? {};
  if (typeof policies !== "object" || Array.isArray(policies)) return { problem: "RUNTIME.policies: must be an object" };
  return { runtime: { framework: runtime.framework, version: runtime.version, entry: runtime.entry, message_types: types,
    // parcall reads the policies itself: an unknown one is the caller's set-up error
    policies } };
}

async function main() {
  const first = await nextMessage();
  if (first === undefined) return;
  const file = path.resolve(process.argv[2] ?? "");
  const hello = { type: "hello", protocol: PROTOCOL_VERSION, implementation: { name: path.basename(file), language: "javascript", version: process.versions.node }, functions: [], problems: [], number_model: "float64" };
  const functions = {};
  try {
    const module = await import(pathToFileURL(file).href);
    functions.execute_tool_calls = pick(module, "execute_tool_calls", "executeToolCalls");
    functions.run_parallel_calls = pick(module, "run_parallel_calls", "runParallelCalls");
    functions.run_tool_calls = pick(module, "run_tool_calls", "runToolCalls");
    if (functions.run_tool_calls) {
      const declared = runtimeDeclaration(module.RUNTIME ?? module.default?.RUNTIME);
      if (declared.problem) hello.problems.push(declared.problem);
      else {
        hello.runtime = declared.runtime;
        hello.implementation.name = `${declared.runtime.framework} ${declared.runtime.version} (${hello.implementation.name})`;
      }
    }
    for (const [name, fn] of Object.entries(functions)) if (fn) hello.functions.push(name);
    if (pick(module, "dispatch", "dispatch")) hello.problems.push("the module defines its own `dispatch`; parcall provides `dispatch` as a global, so remove it");
  } catch (e) {
    hello.load_error = `${e?.name ?? "Error"}: ${e?.message ?? e}\n${trimStack(e, file)}`;
  }
  hello.output = takeOutput();
  send(JSON.stringify(hello));
  for (;;) {
    let request;
    try { request = await nextMessage(); } catch (e) { return; }
    if (request === undefined) return;
    if (request.type === "shutdown") { send('{"type": "bye"}'); return; }
    if (request.type !== "case") continue;
    const fn = functions[request.function];
    // request.case is an opaque label (never the case id, PROTOCOL.md): nothing uses it.
    const stubs = new Stubs(request.id);
    for (const batch of request.batches) {
      const reply = await runBatch(fn, request, stubs, batch, file);
      send(reply);
      if (reply.startsWith('{"type": "raised"')) break;
    }
    send(`{"type": "result", "id": ${request.id}, "output": ${JSON.stringify(takeOutput())}}`);
  }
}

main().then(() => process.exit(0), (e) => { fs.writeSync(2, `parcall adapter failed: ${e?.stack ?? e}\n`); process.exit(70); });

// The parcall protocol (version 2, PROTOCOL.md in parcall's repository) around solution.ts:
// the handshake, one `case` at a time, a stub per tool that sends `invoke` and waits for
// parcall's `answer`, each batch's `returned` or `raised`, the case's `result`, `shutdown`.
// Nothing here needs editing.
//
// A stub reads its answer synchronously from the protocol's fd, on the one thread that runs
// the solution, keeping any other message it meets for the request loop.
import fs from "node:fs";
import { dumps, NotJson, parse, type Json, type JsonObject } from "./json.js";
import { ToolError } from "./tool_error.js";
import { executeToolCalls, runParallelCalls, type Call, type Tool, type ToolCall } from "./solution.js";

const OUTPUT_CAP = 64 * 1024;
const [READ_FD, WRITE_FD] = (process.env.PARCALL_PROTOCOL_FDS ?? "3,4").split(",").map(Number);

// ---------------------------------------------------------------------------------------
// The channel: whole lines in, whole lines out
// ---------------------------------------------------------------------------------------
function* lines(): Generator<string> {
  const buffer = new Uint8Array(1 << 16);
  // A read can end inside a character: the decoder keeps its first bytes for the next read.
  const decoder = new TextDecoder("utf-8");
  let pending = "";
  for (;;) {
    let n: number;
    try {
      n = fs.readSync(READ_FD, buffer, 0, buffer.length, null);
    } catch (e) {
      if ((e as { code?: string }).code === "EAGAIN") continue;
      throw e;
    }
    if (n === 0) { pending += decoder.decode(); if (pending) yield pending; return; }
    pending += decoder.decode(buffer.subarray(0, n), { stream: true });
    let at;
    while ((at = pending.indexOf("\n")) >= 0) { yield pending.slice(0, at); pending = pending.slice(at + 1); }
  }
}

function send(message: string): void {
  fs.writeSync(WRITE_FD, message + "\n");
}

type Message = JsonObject & { type?: string };
const incoming = lines();
const queued: Message[] = [];

function read(): Message | undefined {
  const next = incoming.next();
  return next.done ? undefined : (parse(next.value) as Message);
}

function nextRequest(): Message | undefined {
  return queued.shift() ?? read();
}

let calls = 0;

/** Sends an invocation to parcall and waits for its answer. */
function ask(caseId: Json, tool: Json, args: Json): JsonObject {
  const call = ++calls;
  let sent: string;
  try { sent = dumps(args); } catch (e) { sent = dumps({ $parcall_not_json: String((e as Error).message) }); }
  send(`{"type": "invoke", "id": ${dumps(caseId)}, "call": ${call}, "tool": ${dumps(tool)}, "args": ${sent}}`);
  for (;;) {
    const message = read();
    // parcall is gone: the run is over, and nothing reads what follows.
    if (message === undefined) process.exit(0);
    if (message.type !== "answer") queued.push(message);
    else if (message.call === call) return message.answer as JsonObject;
  }
}

// ---------------------------------------------------------------------------------------
// What the solution prints goes to the case's `result`
// ---------------------------------------------------------------------------------------
let printed = "";
function capture(text: unknown): boolean {
  printed += String(text);
  return true;
}
function takePrinted(): string {
  const text = printed.length <= OUTPUT_CAP ? printed : printed.slice(0, OUTPUT_CAP) + `\n[${printed.length - OUTPUT_CAP} more characters not shown]\n`;
  printed = "";
  return text;
}
process.stdout.write = capture;
process.stderr.write = capture;
for (const name of ["log", "info", "warn", "error", "debug"] as const) {
  console[name] = (...args: unknown[]) => capture(args.map(String).join(" ") + "\n");
}

// ---------------------------------------------------------------------------------------
// Cases
// ---------------------------------------------------------------------------------------
async function call(request: Message, batch: JsonObject): Promise<unknown> {
  const caseId = request.id;
  if (request.function === "execute_tool_calls") {
    const dispatch = (r: { tool: string; arguments: JsonObject }) => ask(caseId, r.tool, r.arguments).value;
    const limit = "max_parallel" in batch ? (batch.max_parallel as number) : 4;
    return executeToolCalls(batch.calls as unknown as ToolCall[], limit, dispatch);
  }
  const tools: Record<string, Tool> = {};
  for (const name of request.tools as string[]) {
    tools[name] = (args) => {
      const answer = ask(caseId, name, args);
      if (answer.type === "raise") {
        const message = answer.message as string;
        throw new ToolError(message, (answer.exception as string) ?? "RuntimeError", (answer.args as Json[]) ?? [message]);
      }
      return answer.value;
    };
  }
  return runParallelCalls(tools, batch.calls as unknown as Call[]);
}

/** One batch's `returned` or `raised` message. */
async function runBatch(request: Message, batch: JsonObject): Promise<string> {
  const id = dumps(request.id);
  let output: unknown;
  try {
    output = await call(request, batch);
  } catch (e) {
    const message = e instanceof Error ? `${e.name}: ${e.message}` : `thrown: ${String(e)}`;
    const stack = e instanceof Error ? String(e.stack ?? "").split("\n").slice(1).filter((l) => l.includes("solution.")).join("\n") : "";
    return `{"type": "raised", "id": ${id}, "message": ${dumps(message)}, "traceback": ${dumps(stack)}}`;
  }
  try {
    return `{"type": "returned", "id": ${id}, "output": ${dumps(output)}}`;
  } catch (e) {
    if (!(e instanceof NotJson)) throw e;
    return `{"type": "raised", "id": ${id}, "message": ${dumps("TypeError: returned a value that is not JSON: " + e.message)}, "traceback": ""}`;
  }
}

async function main(): Promise<void> {
  if (nextRequest() === undefined) return;
  send(dumps({
    type: "hello", protocol: 2,
    implementation: { name: "src/solution.ts", language: "typescript", version: process.versions.node },
    functions: ["execute_tool_calls", "run_parallel_calls"], number_model: "float64", output: takePrinted(),
  }));
  for (let request; (request = nextRequest()) !== undefined; ) {
    if (request.type === "shutdown") { send('{"type": "bye"}'); return; }
    if (request.type !== "case") continue;
    for (const batch of request.batches as JsonObject[]) {
      const reply = await runBatch(request, batch);
      send(reply);
      if (reply.startsWith('{"type": "raised"')) break;
    }
    send(`{"type": "result", "id": ${dumps(request.id)}, "output": ${dumps(takePrinted())}}`);
  }
}

main().then(() => process.exit(0), (e) => { fs.writeSync(2, `parcall kit failed: ${e?.stack ?? e}\n`); process.exit(70); });

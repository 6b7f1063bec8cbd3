// The two exercises, to be written. main.ts speaks parcall's protocol around them and calls
// them once per batch; `dispatch` and the tools are stubs whose every call parcall answers
// and records. Build with `npx tsc`; dist/main.js is the program parcall runs.
//
// JavaScript has one number type, so `1` and `1.0` are one value: the kit declares the
// `float64` number model, and key() writes numbers as String() does.
import { key, type Json, type JsonObject } from "./json.js";
import { ToolError } from "./tool_error.js";
export { key, ToolError };

/** A call of exercise 000. */
export interface ToolCall { tool: string; id?: string | null; arguments?: JsonObject }

/** What exercise 000 returns for each call. */
export interface ToolMessage { role: "tool"; tool_call_id: string; content: Json }

/** Runs one request and returns its content (a string). */
export type Dispatch = (request: { tool: string; arguments: JsonObject }) => Json;

/** A call of exercise 003. */
export interface Call { name: string; args?: JsonObject }

/** Runs a tool on a call's args: returns any JSON value, or throws a ToolError. */
export type Tool = (args: JsonObject) => Json;

/**
 * Exercise 000: runs a batch of tool calls and returns one message per call, in call order.
 * maxParallel is 4 when the batch gives none.
 */
export function executeToolCalls(calls: ToolCall[], maxParallel: number, dispatch: Dispatch): ToolMessage[] {
  throw new Error("execute_tool_calls is not written yet");
}

/** Exercise 003: runs each distinct call once; returns each call's key(name, args) -> its result. */
export function runParallelCalls(tools: Record<string, Tool>, calls: Call[]): Record<string, Json> {
  throw new Error("run_parallel_calls is not written yet");
}

// parcall runtime adapter: the Vercel AI SDK's generateText tool step (npm `ai`, default settings).
//
// One model turn = one doGenerate result of the SDK's own MockLanguageModelV4 (from `ai/test`)
// whose content holds one `tool-call` part per call (toolCallId exactly as given, toolName,
// input = the arguments as JSON text), finishReason "tool-calls". generateText runs with
// stopWhen: stepCountIs(1), so the model is called once and the SDK executes the tool step.
// Each tool is tool({description, inputSchema: jsonSchema(stub.parameters), execute}) whose
// execute calls stub(args). Each `tool-result` / `tool-error` part of steps[0].content is
// converted field by field, in the order the SDK gives them.
//
// The policies below were observed by running the SDK, not taken from its docs.

import { createRequire } from "node:module";
import { generateText, jsonSchema, stepCountIs, tool } from "ai";
import { MockLanguageModelV4 } from "ai/test";

const require = createRequire(import.meta.url);

export const RUNTIME = {
  framework: "ai",
  version: require("ai/package.json").version,
  entry: "ai.generateText",
  // the `type` of the step content part a result comes from: "tool-result" for a returning
  // tool; a result whose tool threw (or whose call the SDK rejected) is a "tool-error" part
  message_types: ["tool-result", "tool-error"],
  policies: {
    // id null/absent: the SDK never checks toolCallId; the tool runs and its result part
    // carries the same null/undefined id
    missing_id: "kept",
    // calls sharing an id: each one runs and gets its own part under that id
    duplicate_ids: "each",
    // executeTools maps the calls with Promise.all (toolCallConcurrency unset): no limit
    max_parallel: null,
    // a throwing execute() becomes a tool-error part holding the Error; content is its
    // .message (the tool message the SDK sends the model next carries error.toString())
    error_content: "{message}",
  },
};

// JSON text of the arguments, as a provider would send it. Differs from JSON.stringify only
// in keeping -0 (JSON.parse("-0") is -0) and writing BigInt as its digits.
function toJsonText(value) {
  if (typeof value === "number" && Object.is(value, -0)) return "-0";
  if (typeof value === "bigint") return value.toString();
  if (Array.isArray(value)) return "[" + value.map((v) => (v === undefined ? "null" : toJsonText(v))).join(",") + "]";
  if (value !== null && typeof value === "object" && typeof value.toJSON !== "function") {
    const parts = [];
    for (const key of Object.keys(value)) {
      if (value[key] === undefined || typeof value[key] === "function") continue;
      parts.push(JSON.stringify(key) + ":" + toJsonText(value[key]));
    }
    return "{" + parts.join(",") + "}";
  }
  return JSON.stringify(value);
}

function makeTool(stub) {
  return tool({
    description: stub.description,
    inputSchema: jsonSchema(stub.parameters),
    execute: (args) => stub(args),
  });
}

function contentOf(part) {
  if (part.type === "tool-error") {
    const e = part.error;
    return e instanceof Error ? e.message : typeof e === "string" ? e : JSON.stringify(e);
  }
  return typeof part.output === "string" ? part.output : JSON.stringify(part.output);
}

export async function run_tool_calls(tools, calls) {
  const sdkTools = {};
  for (const [name, stub] of Object.entries(tools)) sdkTools[name] = makeTool(stub);

  const model = new MockLanguageModelV4({
    doGenerate: async () => ({
      content: calls.map((c) => ({
        type: "tool-call",
        toolCallId: c.id,
        toolName: c.name,
        input: toJsonText(c.arguments),
      })),
      finishReason: { unified: "tool-calls", raw: "tool_calls" },
      usage: {
        inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: 1, text: 1, reasoning: 0 },
      },
      warnings: [],
    }),
  });

  const result = await generateText({
    model,
    tools: sdkTools,
    prompt: "parcall batch",
    stopWhen: stepCountIs(1),
  });

  const out = [];
  for (const part of result.steps[0].content) {
    if (part.type !== "tool-result" && part.type !== "tool-error") continue;
    out.push({ tool_call_id: part.toolCallId ?? null, content: contentOf(part), message_type: part.type });
  }
  return out;
}

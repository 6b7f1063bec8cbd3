// ai 7.0.185 (Vercel AI SDK): a tool call whose JSON input has a "__proto__" key (or a
// "constructor" object with a "prototype" key) is never executed: generateText answers it with
// a tool-error (AI_InvalidToolInputError / "forbidden prototype property") instead of passing
// the arguments to execute().
// Run (bare import "ai" must resolve to an installed ai@7.0.185):
//   cd conformance/runtimes/javascript && npm ci &&
//   node --input-type=module < ../../../docs/runtimes/repros/vercel-ai-proto-argument-rejected.mjs
//   (or copy this file next to a node_modules holding ai@7.0.185 and run `node FILE`)
// Steps: one model turn (MockLanguageModelV4) calls probe with input '{"__proto__": {"a": 1}, "ok": 2}'
//   and with '{"constructor": {"prototype": 1}}'; tool inputSchema is jsonSchema() without validation.
// Expected: execute() runs with the parsed object (own key "__proto__", as JSON.parse gives it).
// Actual: execute() never runs; the call gets a tool-error. parseToolCall uses secure-json-parse
//   (protoAction/constructorAction "error"), with no option to opt out per tool. Likely intended
//   hardening against prototype pollution, but argument names are silently off-limits.
// parcall: RUNTIME-ARGS-UNCHANGED
import { generateText, jsonSchema, stepCountIs, tool } from "ai";
import { MockLanguageModelV4 } from "ai/test";

const seen = [];
const probe = tool({
  description: "record args",
  inputSchema: jsonSchema({ type: "object" }),
  execute: (args) => { seen.push(Object.keys(args)); return "ran"; },
});
const inputs = ['{"__proto__": {"a": 1}, "ok": 2}', '{"constructor": {"prototype": 1}}'];
const model = new MockLanguageModelV4({
  doGenerate: async () => ({
    content: inputs.map((input, i) => ({ type: "tool-call", toolCallId: `c${i}`, toolName: "probe", input })),
    finishReason: { unified: "tool-calls", raw: undefined },
    usage: { inputTokens: {}, outputTokens: {} },
    warnings: [],
  }),
});
const result = await generateText({ model, prompt: "go", tools: { probe }, stopWhen: stepCountIs(1) });
console.log("EXPECTED: execute() ran twice, with keys [__proto__, ok] and [constructor]");
console.log("ACTUAL:   execute() ran", seen.length, "times", JSON.stringify(seen));
for (const p of result.steps[0].content.filter((p) => p.type === "tool-error"))
  console.log(`          ${p.toolCallId}: tool-error ${String(p.error).split("\n").pop()}`);

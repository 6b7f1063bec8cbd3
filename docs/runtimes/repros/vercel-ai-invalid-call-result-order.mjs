// ai 7.0.185 (Vercel AI SDK): generateText lists the tool-error of an invalid tool call
// (unknown tool name) BEFORE the results of the calls that ran, not in call order.
// Run (bare import "ai" must resolve to an installed ai@7.0.185):
//   cd conformance/runtimes/javascript && npm ci &&
//   node --input-type=module < ../../../docs/runtimes/repros/vercel-ai-invalid-call-result-order.mjs
//   (or copy this file next to a node_modules holding ai@7.0.185 and run `node FILE`)
// Steps: one model turn (MockLanguageModelV4 from ai/test) asks for k1 -> echo, k2 -> nope
//   (no such tool), k3 -> echo; generateText with stopWhen: stepCountIs(1).
// Expected: steps[0].content (and result.content) tool outputs in call order: k1, k2, k3.
// Actual: k2, k1, k3 - generateText pushes the tool-error parts of invalid calls into
//   clientToolOutputs before executeTools' results; only response.messages re-sorts
//   (sortToolResultContentByToolCallOrder), so the two public views disagree.
// parcall: RUNTIME-RESULT-ORDER
import { generateText, jsonSchema, stepCountIs, tool } from "ai";
import { MockLanguageModelV4 } from "ai/test";

const echo = tool({
  description: "echo x",
  inputSchema: jsonSchema({ type: "object", properties: { x: {} } }),
  execute: (args) => `echo ${args.x}`,
});
const call = (toolCallId, toolName, x) => ({ type: "tool-call", toolCallId, toolName, input: JSON.stringify({ x }) });
const model = new MockLanguageModelV4({
  doGenerate: async () => ({
    content: [call("k1", "echo", 1), call("k2", "nope", 2), call("k3", "echo", 3)],
    finishReason: { unified: "tool-calls", raw: undefined },
    usage: { inputTokens: {}, outputTokens: {} },
    warnings: [],
  }),
});
const result = await generateText({ model, prompt: "go", tools: { echo }, stopWhen: stepCountIs(1) });
const outputs = result.steps[0].content.filter((p) => p.type === "tool-result" || p.type === "tool-error");
const toolMessage = result.response.messages.find((m) => m.role === "tool");
console.log("EXPECTED: steps[0].content tool outputs in call order: k1, k2, k3");
console.log("ACTUAL:   steps[0].content tool outputs:", outputs.map((p) => `${p.toolCallId} (${p.type})`).join(", "));
console.log("          response.messages tool message:", toolMessage.content.map((p) => p.toolCallId).join(", "));

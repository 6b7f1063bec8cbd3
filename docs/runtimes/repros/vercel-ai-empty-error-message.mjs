// ai 7.0.185 (Vercel AI SDK): a tool whose execute() throws `new Error("")` (empty message) yields
// a tool-error part whose error.message is "", so a result built from the step content says nothing;
// the tool message sent to the model next says only "Error".
// Run (bare import "ai" must resolve to an installed ai@7.0.185):
//   cd conformance/runtimes/javascript && npm ci &&
//   node --input-type=module < ../../../docs/runtimes/repros/vercel-ai-empty-error-message.mjs
//   (or copy this file next to a node_modules holding ai@7.0.185 and run `node FILE`)
// Steps: one model turn (MockLanguageModelV4 from ai/test) calls `fail`, whose execute() throws
//   new Error(""); generateText with stopWhen: stepCountIs(1). Inspect the tool-error part in
//   steps[0].content and the tool message in response.messages.
// Expected: the tool-error result tells the model that the call failed and names the error (e.g.
//   'tool "fail" threw Error (no message)'), and the step's tool-error part carries that same text.
// Actual: the step's tool-error part holds the raw Error, error.message === "", so anything that
//   reports `error.message` (as most result builders do) sends an empty string. response.messages
//   carries output { type: "error-text", value: "Error" }: getErrorMessage() uses Error#toString(),
//   which is just the class name when the message is empty (a subclass named QuotaError gives
//   "QuotaError"). So the model is told only "Error": no tool name, no "failed", no detail. Minor:
//   the model-facing text is non-empty; the gap is between the two views and the bare class name.
// parcall: RUNTIME-ERROR-REPORTED
import { generateText, jsonSchema, stepCountIs, tool } from "ai";
import { MockLanguageModelV4 } from "ai/test";

const fail = tool({
  description: "always fails",
  inputSchema: jsonSchema({ type: "object" }),
  execute: () => { throw new Error(""); },
});
const model = new MockLanguageModelV4({
  doGenerate: async () => ({
    content: [{ type: "tool-call", toolCallId: "c1", toolName: "fail", input: "{}" }],
    finishReason: { unified: "tool-calls", raw: undefined },
    usage: { inputTokens: {}, outputTokens: {} },
    warnings: [],
  }),
});
const result = await generateText({ model, prompt: "go", tools: { fail }, stopWhen: stepCountIs(1) });
const err = result.steps[0].content.find((p) => p.type === "tool-error");
const toolMsg = result.response.messages.find((m) => m.role === "tool");
console.log("EXPECTED: tool-error for c1 names the failure, e.g. 'tool \"fail\" threw Error (no message)'");
console.log(`ACTUAL:   steps[0].content tool-error ${err.toolCallId}: error.message ${JSON.stringify(err.error.message)}`);
for (const p of toolMsg.content)
  console.log(`          response.messages tool-result ${p.toolCallId}: output ${JSON.stringify(p.output)}`);

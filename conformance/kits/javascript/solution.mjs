// The two exercises, to be written. parcall's built-in JavaScript adapter loads this module
// and checks whichever of the two functions it exports: `parcall check solution.mjs`.
//
// `dispatch(call)` is a global parcall provides when it checks the module: it runs one tool
// call, `{tool: NAME, arguments: {...}}`, and returns its content (a string). Do not define
// it here. JavaScript has one number type, so the adapter declares the float64 number model
// (conformance/PROTOCOL.md, "Number models").

// Run a batch of tool calls; return one tool message per call, in order:
// `{role: "tool", tool_call_id: ID, content: ...}` (exercise 000).
export function execute_tool_calls(calls, max_parallel = 4) {
  throw new Error("execute_tool_calls is not written yet");
}

// Run each distinct call once; return an object from each call's key,
// `name(json.dumps(args, sort_keys=True))` as Python writes it, to its result (exercise 003).
// A tool is a function of the args; it may return a Promise.
export function run_parallel_calls(tools, calls) {
  throw new Error("run_parallel_calls is not written yet");
}

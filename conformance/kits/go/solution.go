// The two exercises, to be written. The rest of this folder is parcall's adapter: it speaks
// the protocol and calls these functions once per batch. Build and check:
//
//	go build -o impl . && parcall check --cmd ./impl
//
// A JSON value (an argument, a tool's result) is nil, bool, string, json.Number (a number as
// written, so 1 and 1.0 stay apart), float64 (NaN and the infinities), []any or
// map[string]any.

package main

import "errors"

// ToolCall is one call given to ExecuteToolCalls. ID is "" when the call has none; Arguments
// is nil when it has none.
type ToolCall struct {
	ID        string
	Tool      string
	Arguments map[string]any
}

// Request is what dispatch runs: a tool and its arguments.
type Request struct {
	Tool      string
	Arguments map[string]any
}

// ToolMessage is one message of ExecuteToolCalls' answer.
type ToolMessage struct {
	Role       string
	ToolCallID string
	Content    string
}

// Call is one call given to RunParallelCalls. Args is nil when the call has none.
type Call struct {
	Name string
	Args map[string]any
}

// Tool runs with a call's args; a tool that raises returns a *ToolError, whose Error() is
// its message.
type Tool func(args map[string]any) (any, error)

// ExecuteToolCalls runs a batch of tool calls (exercise 000) and returns one message per
// call, in call order: {Role: "tool", ToolCallID: the call's id, Content: ...}. dispatch runs
// one request and returns its content.
func ExecuteToolCalls(calls []ToolCall, maxParallel uint64, dispatch func(Request) string) ([]ToolMessage, error) {
	return nil, errors.New("execute_tool_calls is not written yet")
}

// RunParallelCalls runs each distinct call once (exercise 003) and returns a map from each
// call's key, Key(name, args) (key.go), to its result.
func RunParallelCalls(tools map[string]Tool, calls []Call) (map[string]any, error) {
	return nil, errors.New("run_parallel_calls is not written yet")
}

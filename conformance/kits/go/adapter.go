// The protocol adapter (conformance/PROTOCOL.md, version 2): it reads parcall's messages,
// calls the two functions of solution.go once per batch, and gives them stubs for dispatch
// and the tools, each of which asks parcall (`invoke`) and waits for its `answer`. parcall
// holds the tools: this process never holds the record of its invocations nor an answer it
// has not asked for.

package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// ToolError is what a tool returns when parcall's answer raises: Error() is Python's
// str() of the exception, Class its Python class (RuntimeError when unnamed) and Args the
// arguments it was raised with.
type ToolError struct {
	Class   string
	Args    []any
	Message string
}

func (e *ToolError) Error() string { return e.Message }

// jsonObject is a JSON object as parseJSON reads it; every message of the protocol is one.
type jsonObject = map[string]any

// channel is both directions of the protocol, for every goroutine. Whoever waits reads (the
// request loop for its next case, a stub for its answer), one at a time, and keeps what it
// read for whoever it is for: no goroutine sits on the pipe on its own, so an implementation
// that runs one call at a time asks one at a time.
type channel struct {
	input    *bufio.Reader
	output   *os.File
	sending  sync.Mutex
	state    sync.Mutex
	turn     *sync.Cond
	reading  bool
	closed   bool
	answers  map[string]jsonObject
	requests []jsonObject
}

func (c *channel) send(m jsonObject) {
	line, err := dumps(m)
	if err != nil {
		adapterFailed(err)
	}
	c.sending.Lock()
	defer c.sending.Unlock()
	if _, err := c.output.WriteString(line + "\n"); err != nil {
		os.Exit(0) // parcall closed the channel: the run is over.
	}
}

// request is the next message that is not an answer; nil once parcall closed the channel.
func (c *channel) request() jsonObject {
	return c.wait(func() jsonObject {
		if len(c.requests) == 0 {
			return nil
		}
		next := c.requests[0]
		c.requests = c.requests[1:]
		return next
	})
}

// answer is parcall's answer to invocation call; nil once parcall closed the channel.
func (c *channel) answer(call string) jsonObject {
	return c.wait(func() jsonObject {
		found := c.answers[call]
		delete(c.answers, call)
		return found
	})
}

func (c *channel) wait(take func() jsonObject) jsonObject {
	c.state.Lock()
	defer c.state.Unlock()
	for {
		if found := take(); found != nil {
			return found
		}
		if c.closed {
			return nil
		}
		if c.reading {
			c.turn.Wait()
			continue
		}
		// Read without the lock, so the others can take what is already there meanwhile.
		c.reading = true
		c.state.Unlock()
		line, err := c.input.ReadBytes('\n')
		c.state.Lock()
		c.reading = false
		if err != nil {
			c.closed = true
		} else {
			c.keep(line)
		}
		c.turn.Broadcast()
	}
}

func (c *channel) keep(line []byte) {
	read, err := parseJSON(line)
	m, _ := read.(jsonObject)
	switch {
	case err != nil || m == nil:
		adapterFailed(fmt.Errorf("unreadable message from parcall: %v", err))
	case m["type"] == "answer":
		answer, _ := m["answer"].(jsonObject)
		c.answers[fmt.Sprint(m["call"])] = answer
	default:
		c.requests = append(c.requests, m)
	}
}

var lastCall atomic.Uint64

// ask sends an invocation to parcall and waits for its answer.
func (c *channel) ask(caseID any, tool string, args any) jsonObject {
	call := strconv.FormatUint(lastCall.Add(1), 10)
	if _, err := dumps(args); err != nil {
		args = jsonObject{"$parcall_not_json": err.Error()}
	}
	c.send(jsonObject{"type": "invoke", "id": caseID, "call": json.Number(call), "tool": tool, "args": args})
	answer := c.answer(call)
	if answer == nil {
		os.Exit(0) // parcall closed the channel: the run is over.
	}
	return answer
}

func (c *channel) dispatch(caseID any) func(Request) string {
	return func(request Request) string {
		content, _ := c.ask(caseID, request.Tool, request.Arguments)["value"].(string)
		return content
	}
}

func (c *channel) tool(caseID any, name string) Tool {
	return func(args map[string]any) (any, error) {
		answer := c.ask(caseID, name, args)
		if answer["type"] != "raise" {
			return answer["value"], nil
		}
		raised := &ToolError{Class: "RuntimeError"}
		raised.Message, _ = answer["message"].(string)
		raised.Args = []any{raised.Message}
		if class, ok := answer["exception"].(string); ok {
			raised.Class = class
		}
		if args, ok := answer["args"].([]any); ok {
			raised.Args = args
		}
		return nil, raised
	}
}

// runCase calls the function once per batch, sending each batch's end as it comes, then the
// case's. The case's `case` label is opaque (PROTOCOL.md): nothing uses it.
func (c *channel) runCase(request jsonObject) {
	id := request["id"]
	batches, _ := request["batches"].([]any)
	for _, item := range batches {
		batch, _ := item.(jsonObject)
		output, err := c.runBatch(request, batch)
		if err == nil {
			if _, err = dumps(output); err != nil {
				err = fmt.Errorf("returned a value that is not JSON: %w", err)
			}
		}
		if err != nil {
			c.send(raisedReply(id, err))
			break
		}
		c.send(jsonObject{"type": "returned", "id": id, "output": output})
	}
	c.send(jsonObject{"type": "result", "id": id, "output": ""})
}

// panicked is a panic of the function, with the stack it unwound.
type panicked struct {
	value any
	stack string
}

func (p *panicked) Error() string { return fmt.Sprintf("panic: %v", p.value) }

func raisedReply(id any, err error) jsonObject {
	reply := jsonObject{"type": "raised", "id": id, "message": "Error: " + err.Error(), "traceback": ""}
	var crash *panicked
	if errors.As(err, &crash) {
		reply["message"], reply["traceback"] = crash.Error(), crash.stack
	}
	return reply
}

func (c *channel) runBatch(request, batch jsonObject) (output any, err error) {
	defer func() {
		if value := recover(); value != nil {
			err = &panicked{value, string(debug.Stack())}
		}
	}()
	calls, _ := batch["calls"].([]any)
	if request["function"] == "execute_tool_calls" {
		return c.execute(request["id"], batch, calls)
	}
	tools := map[string]Tool{}
	names, _ := request["tools"].([]any)
	for _, name := range names {
		tools[name.(string)] = c.tool(request["id"], name.(string))
	}
	var typed []Call
	for _, item := range calls {
		call := item.(jsonObject)
		args, _ := call["args"].(map[string]any)
		typed = append(typed, Call{Name: call["name"].(string), Args: args})
	}
	return RunParallelCalls(tools, typed)
}

func (c *channel) execute(caseID any, batch jsonObject, calls []any) (any, error) {
	maxParallel := uint64(4)
	if limit, ok := batch["max_parallel"].(json.Number); ok {
		maxParallel, _ = strconv.ParseUint(string(limit), 10, 64)
	}
	var typed []ToolCall
	for _, item := range calls {
		call := item.(jsonObject)
		id, _ := call["id"].(string)
		arguments, _ := call["arguments"].(map[string]any)
		typed = append(typed, ToolCall{ID: id, Tool: call["tool"].(string), Arguments: arguments})
	}
	messages, err := ExecuteToolCalls(typed, maxParallel, c.dispatch(caseID))
	output := []any{}
	for _, m := range messages {
		output = append(output, jsonObject{"role": m.Role, "tool_call_id": m.ToolCallID, "content": m.Content})
	}
	return output, err
}

func adapterFailed(err error) {
	fmt.Fprintln(os.Stderr, "parcall adapter:", err)
	os.Exit(1)
}

// protocolFiles opens the pipes PARCALL_PROTOCOL_FDS names ("3,4"), and takes the variable
// out of the implementation's sight.
func protocolFiles() (*os.File, *os.File) {
	read, write, ok := strings.Cut(os.Getenv("PARCALL_PROTOCOL_FDS"), ",")
	in, errIn := strconv.Atoi(strings.TrimSpace(read))
	out, errOut := strconv.Atoi(strings.TrimSpace(write))
	if !ok || errIn != nil || errOut != nil {
		adapterFailed(errors.New("PARCALL_PROTOCOL_FDS is not READ,WRITE: run me with `parcall check --cmd ./impl`"))
	}
	os.Unsetenv("PARCALL_PROTOCOL_FDS")
	return os.NewFile(uintptr(in), "requests"), os.NewFile(uintptr(out), "replies")
}

func main() {
	in, out := protocolFiles()
	c := &channel{input: bufio.NewReaderSize(in, 1<<16), output: out, answers: map[string]jsonObject{}}
	c.turn = sync.NewCond(&c.state)
	for request := c.request(); request != nil; request = c.request() {
		switch request["type"] {
		case "hello":
			c.send(jsonObject{
				"type": "hello", "protocol": 2, "number_model": "python",
				"implementation": jsonObject{"name": "solution.go", "language": "go", "version": runtime.Version()},
				"functions":      []string{"execute_tool_calls", "run_parallel_calls"},
			})
		case "case":
			c.runCase(request)
		case "shutdown":
			c.send(jsonObject{"type": "bye"})
			return
		}
	}
}

# frozen_string_literal: true

# The two exercises, to be written. main.rb is parcall's adapter: it speaks the protocol and
# calls these two methods once per batch. Check them with `parcall check --cmd "ruby main.rb"`.
#
# JSON values arrive as Ruby's: nil, true, false, String, Integer (any size), Float (NaN and
# the infinities too), Array, and Hash with String keys. 1 and 1.0 stay apart.

# Runs a batch of tool calls (exercise 000). Each call is a Hash with "tool", and maybe "id"
# and "arguments". Returns one message per call, in call order:
# {"role" => "tool", "tool_call_id" => ID, "content" => CONTENT}.
# `dispatch.call({"tool" => NAME, "arguments" => {...}})` runs one request and returns its
# content (a String).
def execute_tool_calls(calls, max_parallel, dispatch)
  raise NotImplementedError, "execute_tool_calls is not written yet"
end

# Runs each distinct call once (exercise 003). Each call is a Hash with "name" and maybe
# "args". Returns a Hash from each call's key, PythonJSON.key(name, args) (python_json.rb),
# to its result. `tools` maps a name to a lambda of the args; a tool that fails raises a
# ToolError, whose message is the error's text.
def run_parallel_calls(tools, calls)
  raise NotImplementedError, "run_parallel_calls is not written yet"
end

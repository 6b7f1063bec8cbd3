"""The two exercises, to be written. parcall's built-in adapter loads this module and checks
whichever of the two functions it defines: `parcall check solution.py`.

`dispatch(call)` is a global parcall provides when it checks the module: it runs one tool
call, `{"tool": NAME, "arguments": {...}}`, and returns its content (a string). Do not define
it here."""


def execute_tool_calls(calls, max_parallel=4):
    """Run a batch of tool calls; return one tool message per call, in order:
    `{"role": "tool", "tool_call_id": ID, "content": ...}` (exercise 000)."""
    raise NotImplementedError("execute_tool_calls is not written yet")


def run_parallel_calls(tools, calls):
    """Run each distinct call once; return a dict from each call's key,
    `name(json.dumps(args, sort_keys=True))`, to its result (exercise 003)."""
    raise NotImplementedError("run_parallel_calls is not written yet")

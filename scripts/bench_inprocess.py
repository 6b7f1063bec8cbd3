"""The physical limit for benches/runner.rs: runs a spec folder's cases against a Python
module in this very process, with the same tool scripts and the same checks as parcall
(typed JSON equality of outputs, invocations as multisets), and prints the seconds taken.

With --lean, the leanest loop instead (the pipe's benchmark: load the case, call the function
with scripted tools, compare with `==`): the case files' bytes are read before the clock
starts and decoded inside it, tools are answered from a dict by canonical args, outputs are
compared with `==`; no invocation log and no check of invocations.

With --lean-decoded, the same loop on cases decoded before the clock starts: only the calls.

With --requests, no loop: the time to decode what an adapter receives, one JSON message
per case holding its calls and tool scripts (the sandbox's answers, which parcall also sends,
left out): a floor under any design that sends cases across a process boundary as JSON.

Run: python3 scripts/bench_inprocess.py [--lean | --lean-decoded | --requests] SPEC_DIR MODULE.py"""
import importlib.util
import json
import os
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "conformance", "adapters", "python"))
import parcall_adapter  # noqa: E402  (its to_json and snapshot: the same conversions)


class Scripts:
    """The case's tool scripts played in process, every invocation recorded: what an
    adapter did before parcall held the tools (protocol version 1), kept here as the
    in-process baseline's tool behaviour. Latency is not played (the bench's cases have none)."""

    def __init__(self, tools):
        self.tools = tools
        self.first = {}
        for name, script in tools.items():
            by_key, any_args = {}, None
            for index, response in enumerate(script["responses"]):
                if "args" not in response:
                    any_args = index if any_args is None else any_args
                else:
                    by_key.setdefault(parcall_adapter.canonical(response["args"]), index)
            self.first[name] = (by_key, any_args)
        self.counts = {}
        self.invocations = []
        self.lock = threading.Lock()

    def answer(self, name, args, record):
        key = parcall_adapter.canonical(args)
        with self.lock:
            self.invocations.append(record)
            n = self.counts.get((name, key), 0)
            self.counts[(name, key)] = n + 1
        script = self.tools.get(name) if isinstance(name, str) else None
        if script is None:
            return None
        by_key, any_args = self.first[name]
        index = by_key.get(key)
        if index is None or (any_args is not None and any_args < index):
            index = any_args
        if index is None:
            return None
        answers = script["responses"][index]["answers"]
        return answers[min(n, len(answers) - 1)]

    def take_invocations(self):
        with self.lock:
            taken, self.invocations = self.invocations, []
        return taken

    def dispatch(self):
        def dispatch(request):
            tool, arguments = request.get("tool"), request.get("arguments")
            record = {"tool": parcall_adapter.snapshot(tool), "arguments": parcall_adapter.snapshot(arguments)}
            answer = self.answer(tool, arguments, record)
            if answer is None:
                return "error: parcall: no scripted answer for %s(%s)" % (tool, parcall_adapter.canonical(arguments))
            if answer["type"] == "raise":
                return "error: " + answer["message"]
            return answer["value"]
        return dispatch

    def tool(self, name):
        def tool(args):
            answer = self.answer(name, args, {"name": name, "args": parcall_adapter.snapshot(args)})
            if answer is None:
                raise RuntimeError("parcall: no scripted answer for %s(%s)" % (name, parcall_adapter.canonical(args)))
            if answer["type"] == "raise":
                raise parcall_adapter.scripted_exception(answer)
            return answer["value"]
        return tool


def canonical(value):
    return json.dumps(value, sort_keys=True)


def same(expected, actual):
    # Typed equality: canonical JSON tells 1, 1.0 and true apart and ignores key order.
    return canonical(expected) == canonical(actual)


def same_multiset(expected, actual):
    return sorted(map(canonical, expected)) == sorted(map(canonical, actual))


def recording_sandbox(module, log):
    sandbox = module.dispatch

    def dispatch(request):
        log.append({"tool": request["tool"], "arguments": parcall_adapter.snapshot(request["arguments"])})
        return sandbox(request)
    return dispatch


def scripted_dispatch(scripts):
    """A scripted dispatch: tools the scripts lack are unknown, as in parcall's tables."""
    answer = scripts.dispatch()

    def dispatch(request):
        if request["tool"] not in scripts.tools:
            with scripts.lock:
                scripts.invocations.append({"tool": request["tool"], "arguments": parcall_adapter.snapshot(request["arguments"])})
            return "error: unknown tool '%s'" % request["tool"]
        return answer(request)
    return dispatch


def run(spec_dir, module):
    failures = 0
    own_dispatch = module.dispatch
    for function in ("execute_tool_calls", "run_parallel_calls"):
        folder = os.path.join(spec_dir, "cases", function)
        for name in sorted(os.listdir(folder)):
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                cases = json.load(f)["cases"]
            for case in cases:
                if function == "execute_tool_calls":
                    dispatch = case.get("dispatch", {"type": "sandbox"})
                    scripts = Scripts(dispatch.get("tools", {}))
                    log = []
                    if dispatch["type"] == "sandbox":
                        module.dispatch = own_dispatch
                        module.dispatch = recording_sandbox(module, log)
                    else:
                        module.dispatch = scripted_dispatch(scripts)
                else:
                    scripts = Scripts(case["tools"])
                for batch in case["batches"]:
                    if function == "execute_tool_calls":
                        args = (batch["calls"],) if "max_parallel" not in batch else (batch["calls"], batch["max_parallel"])
                        output = module.execute_tool_calls(*args)
                        invocations = log[:] + scripts.take_invocations()
                        log.clear()
                    else:
                        tools = {n: scripts.tool(n) for n in case["tools"]}
                        output = module.run_parallel_calls(tools, batch["calls"])
                        invocations = scripts.take_invocations()
                    ok = same(batch["expected"], parcall_adapter.to_json(output)) and \
                        same_multiset(batch["invocations"], invocations)
                    failures += not ok
    return failures


def lean_tools(scripts):
    """Each scripted tool as a function answering from a dict by canonical args: the n-th
    call with the same args gets the n-th answer, the last repeating."""
    counts = {}

    def make(name, script):
        by_key, any_args = {}, None
        for response in script["responses"]:
            if "args" in response:
                by_key.setdefault(canonical(response["args"]), response["answers"])
            elif any_args is None:
                any_args = response["answers"]

        def tool(args):
            key = canonical(args)
            answers = by_key.get(key, any_args)
            n = counts.get((name, key), 0)
            counts[(name, key)] = n + 1
            answer = answers[min(n, len(answers) - 1)]
            if answer["type"] == "raise":
                raise RuntimeError(answer["message"])
            return answer["value"]
        return tool
    return {name: make(name, script) for name, script in scripts.items()}


def lean_dispatch(tools):
    def dispatch(request):
        tool = tools.get(request["tool"])
        if tool is None:
            return "error: unknown tool '%s'" % request["tool"]
        try:
            return tool(request["arguments"])
        except RuntimeError as e:
            return "error: %s" % e
    return dispatch


FUNCTIONS = ("execute_tool_calls", "run_parallel_calls")


def case_file_texts(spec_dir):
    """Every case file's text, as (function, text), in the order the loops run them."""
    texts = []
    for function in FUNCTIONS:
        folder = os.path.join(spec_dir, "cases", function)
        for name in sorted(os.listdir(folder)):
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                texts.append((function, f.read()))
    return texts


def decoded(texts):
    """The cases of the files, each file decoded when its cases are reached."""
    return ((function, case) for function, text in texts for case in json.loads(text)["cases"])


def request_messages(texts):
    """Per case, the JSON an adapter would receive: its calls and its scripts."""
    messages = []
    for function, case in decoded(texts):
        if function == "execute_tool_calls":
            tools = case.get("dispatch", {}).get("tools", {})
        else:
            tools = case["tools"]
        batches = [{"calls": b["calls"]} for b in case["batches"]]
        messages.append(json.dumps({"type": "case", "id": 1, "case": "c", "function": function,
                                    "tools": tools, "batches": batches}, ensure_ascii=False))
    return messages


def run_lean(cases, module):
    failures = 0
    own_dispatch = module.dispatch
    for function, case in cases:
        if function == "execute_tool_calls":
            dispatch = case.get("dispatch", {"type": "sandbox"})
            if dispatch["type"] == "sandbox":
                module.dispatch = own_dispatch
            else:
                module.dispatch = lean_dispatch(lean_tools(dispatch["tools"]))
            for batch in case["batches"]:
                args = (batch["calls"],) if "max_parallel" not in batch else (batch["calls"], batch["max_parallel"])
                failures += module.execute_tool_calls(*args) != batch["expected"]
        else:
            tools = lean_tools(case["tools"])
            for batch in case["batches"]:
                failures += module.run_parallel_calls(tools, batch["calls"]) != batch["expected"]
    return failures


def load_module(path):
    spec = importlib.util.spec_from_file_location("solution", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    modes = ("--lean", "--lean-decoded", "--requests")
    mode = next((a for a in sys.argv[1:] if a in modes), None)
    spec_dir, path = [a for a in sys.argv[1:] if a not in modes]
    module = load_module(path)
    failures = 0
    if mode == "--lean":
        texts = case_file_texts(spec_dir)
        start = time.perf_counter()
        failures = run_lean(decoded(texts), module)
    elif mode == "--lean-decoded":
        cases = list(decoded(case_file_texts(spec_dir)))
        start = time.perf_counter()
        failures = run_lean(cases, module)
    elif mode == "--requests":
        messages = request_messages(case_file_texts(spec_dir))
        start = time.perf_counter()
        for message in messages:
            json.loads(message)
    else:
        start = time.perf_counter()
        failures = run(spec_dir, module)
    print(time.perf_counter() - start, failures)
    return 1 if failures and mode is None else 0


if __name__ == "__main__":
    sys.exit(main())

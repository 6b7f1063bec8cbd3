"""parcall's Python adapter: loads an exercise-style module and serves it over the parcall
protocol, version 1 (conformance/PROTOCOL.md).

    python3 parcall_adapter.py path/to/solution.py

The protocol travels on private file descriptors (PARCALL_PROTOCOL_FDS, default "3,4"),
moved out of the module's reach before it is imported: nothing the module does with print,
sys.stdin or fds 0/1/2 can corrupt or feed the protocol. What the module prints is
captured and reported with the case that printed it.

The runner owns the tools: each case message says what dispatch (execute_tool_calls) or
each tool (run_parallel_calls) answers; this adapter answers from that table, records every
invocation and reports it. Standard library only; CPython 3.8 and later."""
import codecs
import fcntl
import importlib.util
import inspect
import io
import json
import os
import platform
import sys
import threading
import time
import traceback

PROTOCOL_VERSION = 1
# What `import asyncio` imports from the standard library on CPython 3.8-3.13, short of
# asyncio and ssl themselves (most of its import's time).
STANDARD_MODULES_ASYNCIO_IMPORTS = (
    "array", "base64", "concurrent.futures", "contextvars", "heapq", "locale", "logging",
    "select", "selectors", "signal", "socket", "string", "subprocess", "typing")
OUTPUT_CAP = 64 * 1024
FUNCTIONS = ("execute_tool_calls", "run_parallel_calls")


# ------------------------------------------------------------------------------------------
# Protocol channel
# ------------------------------------------------------------------------------------------
def take_protocol_fds():
    """Moves the protocol fds above the module's usual range, closes the originals and keeps
    them from child processes, so the module cannot stumble on them."""
    spec = os.environ.pop("PARCALL_PROTOCOL_FDS", "3,4")
    read_fd, write_fd = (int(part) for part in spec.split(","))
    moved = []
    for fd in (read_fd, write_fd):
        new = fcntl.fcntl(fd, getattr(fcntl, "F_DUPFD_CLOEXEC", 1030), 300)  # 1030: Linux's value
        os.close(fd)
        moved.append(new)
    return os.fdopen(moved[0], "rb"), os.fdopen(moved[1], "wb")


class Channel:
    def __init__(self):
        self.reader, self.writer = take_protocol_fds()
        self.lock = threading.Lock()

    def receive(self):
        line = self.reader.readline()
        if not line:
            return None
        return json.loads(line.decode("utf-8"))

    def send(self, message):
        text = _message_encode(message) + "\n"
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:
            # A lone surrogate, which neither UTF-8 nor parcall's strings (Unicode scalar
            # values) can carry: a file name that is not UTF-8 (sys.argv and tracebacks hold
            # its bytes as surrogates) or a string the module made. Each becomes U+FFFD.
            data = text.encode("utf-8", "parcall.replace")
        with self.lock:
            self.writer.write(data)
            self.writer.flush()


# ------------------------------------------------------------------------------------------
# Output capture
# ------------------------------------------------------------------------------------------
class Capture(io.TextIOBase):
    """Stands in for sys.stdout and sys.stderr: keeps what is printed, up to a cap."""

    def __init__(self):
        super().__init__()
        self._lock = threading.Lock()
        self._parts, self._size, self._dropped = [], 0, 0

    encoding = "utf-8"
    errors = "replace"

    def writable(self):
        return True

    def isatty(self):
        return False

    def write(self, text):
        if not isinstance(text, str):
            raise TypeError("write() argument must be str, not " + type(text).__name__)
        with self._lock:
            room = max(0, OUTPUT_CAP - self._size)
            kept = text[:room]
            self._parts.append(kept)
            self._size += len(kept)
            self._dropped += len(text) - len(kept)
        return len(text)

    def flush(self):
        pass

    def close(self):
        # A module that closes sys.stdout must not stop the capture of what comes next.
        pass

    def take(self):
        with self._lock:
            text = "".join(self._parts)
            if self._dropped:
                text += "\n[parcall: %d more characters not shown]\n" % self._dropped
            self._parts, self._size, self._dropped = [], 0, 0
        return text


# ------------------------------------------------------------------------------------------
# JSON conversion: only real JSON values leave the adapter
# ------------------------------------------------------------------------------------------
class NotJson(Exception):
    pass


class _NotPlain(Exception):
    pass


def _plain_copy(value):
    """A copy of a value built only of JSON's own Python types (exact types: what json.loads
    makes, and what most functions return). Anything else raises _NotPlain, and to_json
    takes the careful road with paths for its messages; this is the fast road, with no path
    formatted for every element, and no call for a scalar inside a container. Types are
    compared by identity: a metaclass's __eq__ must not pass for str."""
    kind = type(value)
    if kind is str or kind is int or kind is float or kind is bool or value is None:
        return value
    if kind is dict:
        out = {}
        for key, item in value.items():
            if type(key) is not str:
                raise _NotPlain
            kind = type(item)
            if kind is str or kind is int or kind is float or kind is bool or item is None:
                out[key] = item
            else:
                out[key] = _plain_copy(item)
        return out
    if kind is list:
        return [_plain_copy(item) for item in value]
    raise _NotPlain


def to_json(value, path="$"):
    try:
        return _plain_copy(value)
    except (_NotPlain, RecursionError):
        return _careful_to_json(value, path)


def _careful_to_json(value, path):
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, list):
        return [_careful_to_json(item, "%s[%d]" % (path, i)) for i, item in enumerate(value)]
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise NotJson("%s has a key of type %s (%r); JSON object keys are strings"
                              % (path, type(key).__name__, key))
            out[key] = _careful_to_json(item, "%s[%r]" % (path, key))
        return out
    raise NotJson("%s is a %s (%s), which is not a JSON value"
                  % (path, type(value).__name__, short_repr(value)))


def short_repr(value):
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a broken __repr__ must not break the report
        text = "<unrepresentable>"
    return text if len(text) <= 80 else text[:77] + "..."


def snapshot(value):
    """A JSON copy of what an invocation received, taken at once (the caller may mutate it)."""
    try:
        return to_json(value)
    except NotJson as e:
        return {"$parcall_not_json": str(e)}


_SORTED_ENCODER = json.JSONEncoder(sort_keys=True)
_thread_encoders = threading.local()


def _sorted_encoder():
    """json.dumps(value, sort_keys=True) as one call of CPython's C encoder, made once per
    thread. JSONEncoder.encode makes a new C encoder, and a dict of the containers it is
    inside, on every call: a key of three members took 3.8 us, and takes 2.4 (one `timeit`
    run, BENCHMARKS.md section 4). Each thread keeps its own encoder and dict, so a value
    that contains itself is refused as JSONEncoder refuses it (ValueError), never followed
    until the stack runs out (a crash on a thread with a small stack); the dict is emptied
    when an encoding stops early, as the C encoder leaves its marks in it then. `default` is looked up on
    each use, so a module that patches JSONEncoder.default keys as json.dumps would. Where
    the C encoder is missing or gives another text on a sample, JSONEncoder's encode is
    used."""
    slow = _SORTED_ENCODER.encode
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return slow

    def default(value):
        return _SORTED_ENCODER.default(value)

    def encode(value):
        try:
            markers, fast = _thread_encoders.encoder
        except AttributeError:
            markers = {}
            fast = make(markers, default, json.encoder.encode_basestring_ascii, None,
                        ": ", ", ", True, False, True)
            _thread_encoders.encoder = markers, fast
        try:
            return "".join(fast(value, 0))
        except BaseException:
            markers.clear()
            raise

    try:
        sample = {"b": [1, 2.5, float("nan"), None, True], "a": "\u00e9\ud83d\ude00\n", "": {}}
        if encode(sample) != slow(sample) or encode("x") != slow("x"):
            return slow
    except Exception:  # noqa: BLE001 - any surprise means the documented road
        return slow
    return encode


_sorted_encode = _sorted_encoder()
# The protocol's messages: json.dumps(message, ensure_ascii=False) with the encoder made once.
_message_encode = json.JSONEncoder(ensure_ascii=False).encode
# U+FFFD for each lone surrogate, given as bytes: the UTF-8 encoder takes only ASCII text
# from an error handler.
codecs.register_error("parcall.replace", lambda e: ("\ufffd".encode() * (e.end - e.start), e.end))


def canonical(value):
    try:
        return _sorted_encode(value)
    except (TypeError, ValueError):
        return "<not json: %s>" % short_repr(value)


# ------------------------------------------------------------------------------------------
# Tools: answered from the case's scripts, every invocation recorded
# ------------------------------------------------------------------------------------------
class ToolError(Exception):
    """A scripted exception with its own __str__ (the answer's message), whatever its args."""

    def __init__(self, message, *args):
        super().__init__(*args)
        self._message = message

    def __str__(self):
        return self._message


def scripted_exception(answer):
    """The real exception a `raise` answer names (RuntimeError, ValueError, KeyError or
    ToolError) called with its args, so str(e), e.args and type(e) are CPython's own."""
    kind = answer.get("exception", "RuntimeError")
    args = answer.get("args", [answer["message"]])
    if kind == "ToolError":
        return ToolError(answer["message"], *args)
    return {"RuntimeError": RuntimeError, "ValueError": ValueError, "KeyError": KeyError}[kind](*args)


_list_threads = os.listdir


def alone_in_process():
    """Whether the calling thread is the only thread of this process. A probe's wait shows a
    race only to code that runs while it waits: another thread that starts the same call
    again, or finishes another call first. With no other thread, nothing runs meanwhile (an
    event loop that called the tool is stopped in it too), so the wait could show nothing
    and a sequential implementation does not pay it. The threads are counted from /proc,
    which lists every one, whoever started it (threading's count misses _thread's and a C
    library's); where /proc cannot be read, the probe waits. Green threads share one OS
    thread and switch inside a patched time.sleep, so once greenlet (gevent's and
    eventlet's base) is loaded, the probe waits too."""
    if "greenlet" in sys.modules:
        return False
    try:
        return len(_list_threads("/proc/self/task")) == 1
    except OSError:
        return False


class Scripts:
    """The case's tool scripts. Counters live for the whole case, so successive batches see
    successive answers; everything is thread-safe, since implementations may run calls
    concurrently."""

    def __init__(self, tools):
        self.tools = tools
        # Per tool: the index of the first response with each canonical args, and of the
        # first response without args; the answer comes from whichever is first, looked up
        # in constant time (a case may script hundreds of responses).
        self.first = {}
        for name, script in tools.items():
            by_key, any_args = {}, None
            for index, response in enumerate(script["responses"]):
                if "args" not in response:
                    any_args = index if any_args is None else any_args
                else:
                    by_key.setdefault(canonical(response["args"]), index)
            self.first[name] = (by_key, any_args)
        self.counts = {}
        self.invocations = []
        self.lock = threading.Lock()

    def answer(self, name, args, record):
        key = canonical(args)
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
        response = script["responses"][index]
        latency = response.get("latency_ms")
        if latency is None:
            latency = script.get("latency_ms") or 0
        if latency and n == 0 and not alone_in_process():
            # Only the first invocation of each args waits (the race probe), as long as
            # its response says, else its script; outside the lock, so calls overlap.
            time.sleep(latency / 1000.0)
        answers = response["answers"]
        return answers[min(n, len(answers) - 1)]

    def take_invocations(self):
        with self.lock:
            taken, self.invocations = self.invocations, []
        return taken

    def dispatch(self):
        def dispatch(request):
            tool = request.get("tool") if isinstance(request, dict) else None
            arguments = request.get("arguments") if isinstance(request, dict) else None
            answer = self.answer(tool, arguments, {"tool": snapshot(tool), "arguments": snapshot(arguments)})
            if answer is None:
                return "error: parcall: no scripted answer for %s(%s)" % (tool, canonical(arguments))
            if answer["type"] == "raise":
                return "error: " + answer["message"]
            return _plain_copy(answer["value"])
        return dispatch

    def tool(self, name):
        def tool(args):
            answer = self.answer(name, args, {"name": name, "args": snapshot(args)})
            if answer is None:
                raise RuntimeError("parcall: no scripted answer for %s(%s)" % (name, canonical(args)))
            if answer["type"] == "raise":
                raise scripted_exception(answer)
            return _plain_copy(answer["value"])
        tool.__name__ = name if name.isidentifier() else "tool"
        return tool


# ------------------------------------------------------------------------------------------
# Loading the module
# ------------------------------------------------------------------------------------------
def module_frames_only(tb, module_file):
    frames = [f for f in traceback.extract_tb(tb) if os.path.abspath(f.filename) == module_file]
    return "".join(traceback.format_list(frames))


def describe(exc, module_file):
    lines = traceback.format_exception_only(type(exc), exc)
    message = "".join(lines).strip()
    return message, module_frames_only(exc.__traceback__, module_file)


def load(path):
    module_file = os.path.abspath(path)
    name = os.path.splitext(os.path.basename(module_file))[0]
    if not name.isidentifier():
        name = "submission"
    sys.path[0] = os.path.dirname(module_file)
    spec = importlib.util.spec_from_file_location(name, module_file)
    if spec is None or spec.loader is None:
        raise ImportError("cannot import %s: not a Python module" % path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module, module_file


def may_be_async(path):
    """Whether the module's text mentions async or await at all (a coroutine entry point, or
    asyncio used directly)."""
    try:
        with open(path, "rb") as f:
            text = f.read()
    except OSError:
        return False  # load() reports it
    return b"async" in text or b"await" in text


def signature_problem(name, fn):
    """How the runner calls each function: execute_tool_calls(calls) and
    execute_tool_calls(calls, max_parallel), run_parallel_calls(tools, calls)."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    shapes = {"execute_tool_calls": [("calls",), ("calls", "max_parallel")],
              "run_parallel_calls": [("tools", "calls")]}[name]
    for shape in shapes:
        try:
            signature.bind(*shape)
        except TypeError as e:
            return "%s%s cannot be called as %s(%s): %s" % (name, signature, name, ", ".join(shape), e)
    return None


# ------------------------------------------------------------------------------------------
# Running cases
# ------------------------------------------------------------------------------------------
def run_batch(module, module_file, request, scripts, batch):
    calls = batch["calls"]
    try:
        if request["function"] == "execute_tool_calls":
            module.dispatch = scripts.dispatch()
            fn = module.execute_tool_calls
            args = (calls,) if "max_parallel" not in batch else (calls, batch["max_parallel"])
        else:
            fn = module.run_parallel_calls
            args = ({name: scripts.tool(name) for name in request["tools"]}, calls)
        result = fn(*args)
        if inspect.isawaitable(result):
            # `async def` entry points: run the coroutine to completion on a fresh event loop,
            # as the JavaScript adapter awaits a Promise. asyncio is already imported when the
            # module's text mentions async (see main); this is for the rare coroutine that
            # comes from elsewhere.
            import asyncio
            result = asyncio.run(_awaited(result))
    except BaseException as e:  # noqa: BLE001 - SystemExit from the module is its failure too
        message, tb = describe(e, module_file)
        return {"status": "raised", "message": message, "traceback": tb, "invocations": scripts.take_invocations()}
    try:
        output = to_json(result)
    except NotJson as e:
        return {"status": "raised", "message": "returned a value that is not JSON: " + str(e),
                "traceback": "", "invocations": scripts.take_invocations()}
    return {"status": "returned", "output": output, "invocations": scripts.take_invocations()}


async def _awaited(awaitable):
    return await awaitable


def run_case(module, module_file, request, capture):
    # request["case"] is an opaque label (never the case id, PROTOCOL.md): nothing uses it.
    scripts = Scripts(request["tools"])
    replies = []
    for batch in request["batches"]:
        reply = run_batch(module, module_file, request, scripts, batch)
        replies.append(reply)
        if reply["status"] == "raised":
            break
    return {"type": "result", "id": request["id"], "batches": replies, "output": capture.take()}


def main():
    channel = Channel()
    capture = Capture()
    sys.stdout = sys.stderr = capture
    hello = channel.receive()
    if not hello or hello.get("type") != "hello":
        return 2
    info = {"name": os.path.basename(sys.argv[1]) if len(sys.argv) > 1 else "?",
            "language": "python", "version": platform.python_version()}
    reply = {"type": "hello", "protocol": PROTOCOL_VERSION, "implementation": info,
             "functions": [], "problems": []}
    module = module_file = None
    try:
        if len(sys.argv) != 2:
            raise SystemExit("usage: parcall_adapter.py MODULE.py")
        # Before the module's folder goes first on sys.path, so these come from the standard
        # library whatever files sit beside the module (a student's `logging.py` helper).
        # asyncio itself only for a module that mentions async: its import was 60-70 ms of
        # a start that is otherwise about 100 (BENCHMARKS.md section 4). What it imports
        # was always imported here, and still is, so no module's verdict changes.
        for name in STANDARD_MODULES_ASYNCIO_IMPORTS:
            try:
                importlib.import_module(name)
            except ImportError:
                pass
        if may_be_async(sys.argv[1]):
            import asyncio  # noqa: F401
        module, module_file = load(sys.argv[1])
    except BaseException as e:  # noqa: BLE001 - any failure at import is the module's
        message, tb = describe(e, os.path.abspath(sys.argv[-1]))
        reply["load_error"] = (tb + message) if tb else message
    if module is not None:
        for name in FUNCTIONS:
            fn = getattr(module, name, None)
            if callable(fn):
                reply["functions"].append(name)
                problem = signature_problem(name, fn)
                if problem:
                    reply["problems"].append(problem)
    reply["output"] = capture.take()
    channel.send(reply)
    while True:
        request = channel.receive()
        if request is None or request.get("type") == "shutdown":
            channel.send({"type": "bye"})
            return 0
        try:
            channel.send(run_case(module, module_file, request, capture))
        except Exception as e:  # noqa: BLE001 - an adapter failure is reported, not fatal
            channel.send({"type": "result", "id": request.get("id", 0), "output": capture.take(),
                          "batches": [{"status": "raised", "traceback": "", "invocations": [],
                                       "message": "parcall adapter failed: %s: %s" % (type(e).__name__, e)}]})


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    os._exit(code or 0)

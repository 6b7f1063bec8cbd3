"""parcall's Python adapter: loads an exercise-style module and serves it over the parcall
protocol, version 2 (conformance/PROTOCOL.md).

    python3 parcall_adapter.py path/to/solution.py

The protocol travels on private file descriptors (PARCALL_PROTOCOL_FDS, default "3,4"),
moved out of the module's reach before it is imported: nothing the module does with print,
sys.stdin or fds 0/1/2 can corrupt or feed the protocol. What the module prints is
captured and reported with the case that printed it.

parcall holds the tools: dispatch (execute_tool_calls) and each tool (run_parallel_calls)
is a stub that sends the invocation to parcall and waits for parcall's answer. parcall
records every invocation and decides every answer; this process never holds either, so
nothing the module reaches in here can change what parcall saw or learn an answer early.
No thread of its own: a stub waiting for its answer reads the channel itself, so an
implementation that runs one thing at a time has one thread, as parcall can see.
Standard library only; CPython 3.8 and later."""
import codecs
import collections
import fcntl
import importlib.util
import inspect
import io
import itertools
import json
import os
import platform
import sys
import threading
import traceback

PROTOCOL_VERSION = 2
# What `import asyncio` imports from the standard library on CPython 3.8-3.13, short of
# asyncio and ssl themselves (most of its import's time).
STANDARD_MODULES_ASYNCIO_IMPORTS = (
    "array", "base64", "concurrent.futures", "contextvars", "heapq", "locale", "logging",
    "select", "selectors", "signal", "socket", "string", "subprocess", "typing")
OUTPUT_CAP = 64 * 1024
FUNCTIONS = ("execute_tool_calls", "run_parallel_calls", "run_tool_calls")


# ------------------------------------------------------------------------------------------
# Protocol channel
# ------------------------------------------------------------------------------------------
def take_protocol_fds():
    """Moves the protocol fds above the module's usual range, closes the originals and keeps
    them from child processes, so the module cannot stumble on them. The reading end as a
    buffered file (one read takes every line waiting), the writing end as a bare fd: each
    message is written whole with one os.write, with no buffer to flush."""
    spec = os.environ.pop("PARCALL_PROTOCOL_FDS", "3,4")
    read_fd, write_fd = (int(part) for part in spec.split(","))
    moved = []
    for fd in (read_fd, write_fd):
        new = fcntl.fcntl(fd, getattr(fcntl, "F_DUPFD_CLOEXEC", 1030), 300)  # 1030: Linux's value
        os.close(fd)
        moved.append(new)
    return os.fdopen(moved[0], "rb"), moved[1]


class Channel:
    """Both directions of the protocol, for every thread. Whoever waits reads: the request
    loop for its next case, a stub for its answer; one reads at a time, keeps what it reads
    for whoever it is for, and wakes the others. The sequential path (one thread, which
    reads its own answer) takes plain locks only: the condition is waited on, and notified,
    only when another thread sleeps on it."""

    def __init__(self):
        self.reader, self.writer = take_protocol_fds()
        self.lock = threading.Lock()
        self.mutex = threading.Lock()
        self.turn = threading.Condition(self.mutex)
        self.sleepers = 0
        self.reading = False
        self.closed = False
        self.answers = {}
        self.requests = collections.deque()

    def receive(self):
        """The next message that is not an answer, or None once parcall closed the channel."""
        return self._wait(None)

    def answer(self, call):
        """The answer to invocation `call`, or None once parcall closed the channel."""
        return self._wait(call)

    def _take(self, call):
        if call is None:
            return self.requests.popleft() if self.requests else None
        return self.answers.pop(call, None)

    def _wait(self, call):
        while True:
            with self.mutex:
                while True:
                    found = self._take(call)
                    if found is not None or self.closed:
                        return found
                    if not self.reading:
                        self.reading = True
                        break
                    self.sleepers += 1
                    try:
                        self.turn.wait()
                    finally:
                        self.sleepers -= 1
            try:
                line = self.reader.readline()
                message = _decode_message(line.decode("utf-8")) if line else None
            except BaseException:
                message = None
            with self.mutex:
                self.reading = False
                if type(message) is not dict:
                    self.closed = True
                elif message.get("type") == "answer":
                    self.answers[message.get("call")] = message.get("answer")
                else:
                    self.requests.append(message)
                if self.sleepers:
                    self.turn.notify_all()

    def send(self, message):
        self.send_line(_message_encode(message) + "\n")

    def send_line(self, text):
        """Writes one message's line, whole, under the lock (stubs write from many threads)."""
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:
            # A lone surrogate, which neither UTF-8 nor parcall's strings (Unicode scalar
            # values) can carry: a file name that is not UTF-8 (sys.argv and tracebacks hold
            # its bytes as surrogates) or a string the module made. Each becomes U+FFFD.
            data = text.encode("utf-8", "parcall.replace")
        with self.lock:
            while data:
                data = data[os.write(self.writer, data):]


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


# A case's values nest up to 512 deep (the limit parcall reads case files and messages by,
# RULES F8), and copying one at an invocation takes two frames a level: the default limit
# of 1,000 frames would fail a correct runtime's tool on a deep case, for the stub's sake.
sys.setrecursionlimit(max(sys.getrecursionlimit(), 4000))


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
_MESSAGE_ENCODER = json.JSONEncoder(ensure_ascii=False)
_message_encode = _MESSAGE_ENCODER.encode


def _value_encoder():
    """_message_encode for a snapshot (a fresh copy, which cannot contain itself) as one
    call of CPython's C encoder made once, with no dict of the containers it is inside: an
    invocation's tool and args go into its line with no encoder made for each."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return _message_encode
    fast = make(None, _MESSAGE_ENCODER.default, json.encoder.encode_basestring, None,
                ": ", ", ", False, False, True)

    def encode(value):
        return "".join(fast(value, 0))

    try:
        sample = {"b": [1, 2.5, float("nan"), None, True], "a": "\u00e9\ud83d\ude00\n", "": {}}
        if encode(sample) != _message_encode(sample) or encode("x") != _message_encode("x"):
            return _message_encode
    except Exception:  # noqa: BLE001 - any surprise means the documented road
        return _message_encode
    return encode


_value_encode = _value_encoder()
_scan_message = json.JSONDecoder().scan_once


def _decode_message(text):
    """json.loads(text) for a line parcall wrote, by the C scanner json.loads ends in,
    without the Python calls on the way to it."""
    return _scan_message(text, 0)[0]
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


class Stubs:
    """The tools of one case: each invocation is a question to parcall, answered by parcall
    from the case's scripts. Thread-safe: implementations invoke from many threads at once."""

    def __init__(self, channel, case):
        self.channel = channel
        self.case = case
        # Set once the case's result is sent: a thread the function left running (a
        # framework that raised while its workers went on) must not invoke a tool into the
        # next case, which parcall would read as a protocol error of that one.
        self.over = False
        self.guard = threading.Lock()
        # Every invocation's line starts the same: written once, the rest filled in per call.
        self.invoke_prefix = '{"type": "invoke", "id": %d, "call": ' % case

    def ask(self, tool, args):
        call = next(_calls)
        line = '%s%d, "tool": %s, "args": %s}\n' % (
            self.invoke_prefix, call, _value_encode(snapshot(tool)), _value_encode(snapshot(args)))
        with self.guard:
            if self.over:
                raise RuntimeError("parcall: the case this tool belongs to is over")
            self.channel.send_line(line)
        answer = self.channel.answer(call)
        if answer is None:
            raise SystemExit("parcall closed the protocol")
        return answer

    def dispatch(self):
        def dispatch(request):
            tool = request.get("tool") if isinstance(request, dict) else None
            arguments = request.get("arguments") if isinstance(request, dict) else None
            answer = self.ask(tool, arguments)
            # parcall answers dispatch with what it returns; it never raises. The value is
            # this invocation's own, decoded from its answer: no copy is needed.
            return answer.get("value")
        return dispatch

    def tool(self, name):
        def tool(args):
            answer = self.ask(name, args)
            if answer.get("type") == "raise":
                raise scripted_exception(answer)
            return answer.get("value")
        tool.__name__ = name if name.isidentifier() else "tool"
        return tool


# Invocation numbers: next() on a count is atomic under the GIL.
_calls = itertools.count(1)


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
              "run_parallel_calls": [("tools", "calls")],
              "run_tool_calls": [("tools", "calls")]}[name]
    for shape in shapes:
        try:
            signature.bind(*shape)
        except TypeError as e:
            return "%s%s cannot be called as %s(%s): %s" % (name, signature, name, ", ".join(shape), e)
    return None


# ------------------------------------------------------------------------------------------
# Running cases
# ------------------------------------------------------------------------------------------
def runtime_declaration(runtime):
    """A runtime adapter's RUNTIME dict as the hello declares it, or what is wrong with it
    (docs/runtime-adapters.md)."""
    where = "RUNTIME"
    if not isinstance(runtime, dict):
        return None, "%s: a runtime adapter must define RUNTIME, a dict (docs/runtime-adapters.md)" % where
    for field in ("framework", "version", "entry"):
        if not isinstance(runtime.get(field), str) or not runtime.get(field):
            return None, "%s[%r]: must be a non-empty string" % (where, field)
    types = runtime.get("message_types", runtime.get("message_type"))
    if isinstance(types, str):
        types = [types]
    if not isinstance(types, list) or not types or not all(isinstance(t, str) for t in types):
        return None, "%s['message_type']: must name the framework's result class (a string)" % where
    policies = runtime.get("policies", {})
    if not isinstance(policies, dict):
        return None, "%s['policies']: must be a dict" % where
    if not all(isinstance(key, str) for key in policies):
        return None, "%s['policies']: its keys must be strings" % where
    return {"framework": runtime["framework"], "version": runtime["version"],
            "entry": runtime["entry"], "message_types": types,
            # parcall reads the policies itself: an unknown one is the caller's set-up error
            "policies": policies}, None


def run_batch(module, module_file, request, stubs, batch):
    """Runs one batch; its `returned` or `raised` message (parcall counts the batches)."""
    calls = batch["calls"]
    reply = {"id": request["id"]}
    try:
        if request["function"] == "execute_tool_calls":
            module.dispatch = stubs.dispatch()
            fn = module.execute_tool_calls
            args = (calls,) if "max_parallel" not in batch else (calls, batch["max_parallel"])
        elif request["function"] == "run_tool_calls":
            fn = module.run_tool_calls
            schemas = request.get("parameters", {})
            tools = {}
            for name in request["tools"]:
                tool = stubs.tool(name)
                tool.parameters = schemas.get(name, {"type": "object", "properties": {}})
                tool.description = "The %s tool." % name
                tools[name] = tool
            args = (tools, calls)
        else:
            fn = module.run_parallel_calls
            args = ({name: stubs.tool(name) for name in request["tools"]}, calls)
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
        reply.update(type="raised", message=message, traceback=tb)
        return reply
    try:
        output = to_json(result)
    except NotJson as e:
        reply.update(type="raised", message="returned a value that is not JSON: " + str(e), traceback="")
        return reply
    reply.update(type="returned", output=output)
    return reply


async def _awaited(awaitable):
    return await awaitable


def run_case(channel, module, module_file, request, capture):
    # request["case"] is an opaque label (never the case id, PROTOCOL.md): nothing uses it.
    stubs = Stubs(channel, request["id"])
    for batch in request["batches"]:
        reply = run_batch(module, module_file, request, stubs, batch)
        channel.send(reply)
        if reply["type"] == "raised":
            break
    with stubs.guard:
        stubs.over = True
        channel.send({"type": "result", "id": request["id"], "output": capture.take()})


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
        if "run_tool_calls" in reply["functions"]:
            declared, problem = runtime_declaration(getattr(module, "RUNTIME", None))
            if problem:
                reply["problems"].append(problem)
            else:
                reply["runtime"] = declared
                info["name"] = "%s %s (%s)" % (declared["framework"], declared["version"], info["name"])
    reply["output"] = capture.take()
    channel.send(reply)
    while True:
        request = channel.receive()
        if request is None or request.get("type") == "shutdown":
            channel.send({"type": "bye"})
            return 0
        try:
            run_case(channel, module, module_file, request, capture)
        except Exception as e:  # noqa: BLE001 - an adapter failure is reported, not fatal
            case = request.get("id", 0)
            channel.send({"type": "raised", "id": case, "traceback": "",
                          "message": "parcall adapter failed: %s: %s" % (type(e).__name__, e)})
            channel.send({"type": "result", "id": case, "output": capture.take()})


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    os._exit(code or 0)

// The parcall protocol (version 2, PROTOCOL.md in parcall's repository) around Solution.java:
// the handshake, one `case` at a time, a stub per tool that sends `invoke` and waits for
// parcall's `answer`, each batch's `returned` or `raised`, the case's `result`, `shutdown`.
// Json.java reads and writes JSON in Python's dialect. Nothing here needs editing.
//
// Java opens no inherited descriptor by number, so the pipes named by PARCALL_PROTOCOL_FDS
// are opened by path, as any file: /dev/fd/3 is the descriptor 3 this process inherited.
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

public final class Main {
    private static final int OUTPUT_CAP = 64 * 1024;

    private final BufferedReader in;
    private final OutputStream out;
    private final AtomicLong calls = new AtomicLong();
    private final ByteArrayOutputStream printed = new ByteArrayOutputStream();

    // Whoever waits reads: the request loop waiting for a case and every stub waiting for
    // its answer take turns on the channel, keeping what they read for whoever it is for.
    // No thread of the kit's own sits on the channel, so a sequential Solution runs on one
    // thread, as parcall sees it (a reader thread would make every run look concurrent).
    private final Object turn = new Object();
    private boolean reading;
    private boolean closed;
    private final Map<Long, Map<?, ?>> answers = new HashMap<>();
    private final ArrayDeque<Map<?, ?>> requests = new ArrayDeque<>();

    private Main(BufferedReader in, OutputStream out) {
        this.in = in;
        this.out = out;
    }

    public static void main(String[] args) throws Exception {
        String[] fds = System.getenv().getOrDefault("PARCALL_PROTOCOL_FDS", "3,4").split(",");
        BufferedReader in = new BufferedReader(new InputStreamReader(
                new FileInputStream("/dev/fd/" + fds[0].trim()), StandardCharsets.UTF_8));
        OutputStream out = new FileOutputStream("/dev/fd/" + fds[1].trim());
        new Main(in, out).serve();
        System.exit(0);
    }

    private void serve() throws Exception {
        if (nextRequest() == null) return;
        Map<String, Object> implementation = new LinkedHashMap<>();
        implementation.put("name", "Solution.java");
        implementation.put("language", "java");
        implementation.put("version", System.getProperty("java.version"));
        Map<String, Object> hello = new LinkedHashMap<>();
        hello.put("type", "hello");
        hello.put("protocol", BigInteger.TWO);
        hello.put("implementation", implementation);
        hello.put("functions", List.of("execute_tool_calls", "run_parallel_calls"));
        hello.put("number_model", "python");
        send(hello);
        // What Solution prints goes to the case's `result`, not to the inherited stdout.
        PrintStream capture = new PrintStream(printed, true, StandardCharsets.UTF_8);
        System.setOut(capture);
        System.setErr(capture);
        for (Map<?, ?> message; (message = nextRequest()) != null; ) {
            if ("shutdown".equals(message.get("type"))) {
                send(Map.of("type", "bye"));
                return;
            }
            if ("case".equals(message.get("type"))) runCase(message);
        }
    }

    private Map<?, ?> nextRequest() throws InterruptedException {
        return await(requests::poll);
    }

    private Map<?, ?> answer(long call) throws InterruptedException {
        return await(() -> answers.remove(call));
    }

    /** What `take` finds, reading the channel in turn while it finds nothing; null at its end. */
    private Map<?, ?> await(Supplier<Map<?, ?>> take) throws InterruptedException {
        for (;;) {
            synchronized (turn) {
                for (;;) {
                    Map<?, ?> found = take.get();
                    if (found != null) return found;
                    if (closed) return null;
                    if (!reading) break;
                    turn.wait();
                }
                reading = true;
            }
            Map<?, ?> message = read();
            synchronized (turn) {
                reading = false;
                if (message == null) {
                    closed = true;
                } else if ("answer".equals(message.get("type"))) {
                    answers.put(((BigInteger) message.get("call")).longValue(), (Map<?, ?>) message.get("answer"));
                } else {
                    requests.add(message);
                }
                turn.notifyAll();
            }
        }
    }

    /** The next message, or null at the end (or on a line that is not JSON: parcall reports it). */
    private Map<?, ?> read() {
        try {
            String line = in.readLine();
            return line == null ? null : (Map<?, ?>) Json.parse(line);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** One line per message, whole, flushed at once: stubs send from many threads. */
    private void send(Map<String, ?> message) {
        byte[] line = (Json.dumps(message, false) + "\n").getBytes(StandardCharsets.UTF_8);
        synchronized (out) {
            try {
                out.write(line);
                out.flush();
            } catch (IOException e) {
                // parcall is gone: the run is over.
                System.exit(0);
            }
        }
    }

    private void runCase(Map<?, ?> request) {
        Object id = request.get("id");
        for (Object batch : (List<?>) request.get("batches")) {
            Map<String, Object> reply = runBatch(request, (Map<?, ?>) batch);
            send(reply);
            if ("raised".equals(reply.get("type"))) break;
        }
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("type", "result");
        result.put("id", id);
        result.put("output", takePrinted());
        send(result);
    }

    /** One batch's `returned` or `raised` message. */
    private Map<String, Object> runBatch(Map<?, ?> request, Map<?, ?> batch) {
        Map<String, Object> reply = new LinkedHashMap<>();
        reply.put("id", request.get("id"));
        try {
            Object output = call(request, batch);
            try {
                Json.dumps(output, false);
            } catch (Json.NotJson e) {
                reply.put("type", "raised");
                reply.put("message", "TypeError: returned a value that is not JSON: " + e.getMessage());
                reply.put("traceback", "");
                return reply;
            }
            reply.put("type", "returned");
            reply.put("output", output);
        } catch (Throwable e) {
            // An OutOfMemoryError is reported as Python's MemoryError, which parcall reads as
            // the memory limit reached (PROTOCOL.md, "What the runner enforces").
            String kind = e instanceof OutOfMemoryError ? "MemoryError" : e.getClass().getSimpleName();
            reply.put("type", "raised");
            reply.put("message", kind + ": " + e.getMessage());
            reply.put("traceback", traceback(e));
        }
        return reply;
    }

    @SuppressWarnings("unchecked")
    private Object call(Map<?, ?> request, Map<?, ?> batch) {
        Object caseId = request.get("id");
        List<Map<String, Object>> calls = (List<Map<String, Object>>) batch.get("calls");
        if ("execute_tool_calls".equals(request.get("function"))) {
            Solution.Dispatch dispatch = r -> ask(caseId, r.get("tool"), r.get("arguments")).get("value");
            return Solution.executeToolCalls(calls, maxParallel(batch.get("max_parallel")), dispatch);
        }
        Map<String, Solution.Tool> tools = new LinkedHashMap<>();
        for (Object name : (List<?>) request.get("tools")) {
            tools.put((String) name, args -> {
                Map<?, ?> answer = ask(caseId, name, args);
                if ("raise".equals(answer.get("type"))) throw ToolError.from(answer);
                return answer.get("value");
            });
        }
        return Solution.runParallelCalls(tools, calls);
    }

    /** 4 when the batch has none; past a long, no position reaches it anyway. */
    private static long maxParallel(Object given) {
        if (given == null) return 4;
        BigInteger limit = (BigInteger) given;
        return limit.bitLength() < 64 ? limit.longValue() : Long.MAX_VALUE;
    }

    /** Sends an invocation to parcall and waits for its answer. */
    private Map<?, ?> ask(Object caseId, Object tool, Object args) {
        long call = calls.incrementAndGet();
        Map<String, Object> invoke = new LinkedHashMap<>();
        invoke.put("type", "invoke");
        invoke.put("id", caseId);
        invoke.put("call", BigInteger.valueOf(call));
        invoke.put("tool", tool);
        invoke.put("args", args);
        try {
            send(invoke);
        } catch (Json.NotJson e) {
            invoke.put("args", Map.of("$parcall_not_json", e.getMessage()));
            send(invoke);
        }
        try {
            Map<?, ?> answer = answer(call);
            if (answer == null) System.exit(0); // parcall is gone: nothing reads what follows
            return answer;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for parcall's answer");
        }
    }

    /** The frames of Solution (and of what it called before them), as a traceback. */
    private static String traceback(Throwable e) {
        StringBuilder out = new StringBuilder();
        for (StackTraceElement frame : e.getStackTrace()) {
            if (frame.getClassName().startsWith("Main")) break;
            out.append("  at ").append(frame).append('\n');
        }
        return out.toString();
    }

    private String takePrinted() {
        synchronized (printed) {
            String text = printed.toString(StandardCharsets.UTF_8);
            printed.reset();
            if (text.length() <= OUTPUT_CAP) return text;
            return text.substring(0, OUTPUT_CAP) + "\n[" + (text.length() - OUTPUT_CAP) + " more characters not shown]\n";
        }
    }
}

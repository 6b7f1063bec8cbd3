// A minimal parcall adapter (protocol version 2, conformance/PROTOCOL.md) for an
// implementation in Java 17, standard library only. Implementation.java holds the two
// functions; Json.java reads and writes JSON in Python's dialect; this file speaks the
// protocol on the fds named by PARCALL_PROTOCOL_FDS. parcall holds the tools: every
// invocation is an `invoke` message that parcall answers, so this process never holds the
// record of invocations nor an answer it has not asked for.
//
//     javac -d out conformance/adapters/java/*.java
//     parcall check --cmd "java -cp out Main"
//
// Java's standard library opens no inherited descriptor by number, so the pipes are opened
// by path, as any file: /dev/fd/3 is the descriptor 3 this process inherited.
//
// The implementation here is sequential: one thread reads the channel, and a stub waiting
// for its answer keeps any other message it reads for the request loop. A concurrent one
// would read under a lock from whichever thread waits (PROTOCOL.md, step 4).
import java.io.BufferedReader;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

public final class Main {
    private final BufferedReader in;
    private final OutputStream out;
    private final ArrayDeque<Map<?, ?>> queued = new ArrayDeque<>();
    private long calls;

    private Main(BufferedReader in, OutputStream out) {
        this.in = in;
        this.out = out;
    }

    public static void main(String[] args) throws IOException {
        String[] fds = System.getenv().getOrDefault("PARCALL_PROTOCOL_FDS", "3,4").split(",");
        BufferedReader in = new BufferedReader(new InputStreamReader(
                new FileInputStream("/dev/fd/" + fds[0].trim()), StandardCharsets.UTF_8));
        OutputStream out = new FileOutputStream("/dev/fd/" + fds[1].trim());
        new Main(in, out).serve();
    }

    private void serve() throws IOException {
        if (next() == null) return;
        Map<String, Object> implementation = new LinkedHashMap<>();
        implementation.put("name", "Implementation.java");
        implementation.put("language", "java");
        implementation.put("version", System.getProperty("java.version"));
        Map<String, Object> hello = new LinkedHashMap<>();
        hello.put("type", "hello");
        hello.put("protocol", BigInteger.TWO);
        hello.put("implementation", implementation);
        hello.put("functions", List.of("execute_tool_calls", "run_parallel_calls"));
        hello.put("number_model", "python");
        send(hello);
        for (Map<?, ?> message; (message = next()) != null; ) {
            if ("shutdown".equals(message.get("type"))) {
                send(Map.of("type", "bye"));
                return;
            }
            if ("case".equals(message.get("type"))) runCase(message);
        }
    }

    /** The next message from parcall (a kept one first), or null at the end. */
    private Map<?, ?> next() throws IOException {
        if (!queued.isEmpty()) return queued.poll();
        return read();
    }

    private Map<?, ?> read() throws IOException {
        String line = in.readLine();
        return line == null ? null : (Map<?, ?>) Json.parse(line);
    }

    /** One line per message, flushed at once: parcall waits for it. */
    private void send(Map<String, ?> message) throws IOException {
        out.write((Json.dumps(message, false) + "\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    private void runCase(Map<?, ?> request) throws IOException {
        Object id = request.get("id");
        for (Object item : (List<?>) request.get("batches")) {
            Map<?, ?> batch = (Map<?, ?>) item;
            Map<String, Object> reply = new LinkedHashMap<>();
            reply.put("id", id);
            try {
                Object output = runBatch(request, batch);
                reply.put("type", "returned");
                reply.put("output", output);
                send(reply);
            } catch (RuntimeException e) {
                reply.put("type", "raised");
                reply.put("message", e.getClass().getSimpleName() + ": " + e.getMessage());
                reply.put("traceback", "");
                send(reply);
                break;
            }
        }
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("type", "result");
        result.put("id", id);
        result.put("output", "");
        send(result);
    }

    @SuppressWarnings("unchecked")
    private Object runBatch(Map<?, ?> request, Map<?, ?> batch) {
        Object id = request.get("id");
        List<Object> calls = (List<Object>) batch.get("calls");
        if ("execute_tool_calls".equals(request.get("function"))) {
            Function<Map<String, Object>, Object> dispatch =
                    r -> ask(id, r.get("tool"), r.get("arguments")).get("value");
            return Implementation.executeToolCalls(calls, batch.get("max_parallel"), dispatch);
        }
        Map<String, Function<Object, Object>> tools = new LinkedHashMap<>();
        for (Object name : (List<?>) request.get("tools")) {
            tools.put((String) name, args -> {
                Map<?, ?> answer = ask(id, name, args);
                if ("raise".equals(answer.get("type"))) {
                    throw new Implementation.ToolError((String) answer.get("message"));
                }
                return answer.get("value");
            });
        }
        return Implementation.runParallelCalls(tools, calls);
    }

    /** Sends an invocation to parcall and waits for its answer, keeping other messages. */
    private Map<?, ?> ask(Object caseId, Object tool, Object args) {
        try {
            long call = ++calls;
            Map<String, Object> invoke = new LinkedHashMap<>();
            invoke.put("type", "invoke");
            invoke.put("id", caseId);
            invoke.put("call", BigInteger.valueOf(call));
            invoke.put("tool", tool);
            invoke.put("args", args);
            send(invoke);
            for (;;) {
                Map<?, ?> message = read();
                if (message == null) throw new IllegalStateException("parcall closed the protocol");
                if ("answer".equals(message.get("type"))) {
                    if (BigInteger.valueOf(call).equals(message.get("call"))) return (Map<?, ?>) message.get("answer");
                } else {
                    queued.add(message);
                }
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Python's str() of a JSON value, for messages such as `(limit 4)`. */
    static String str(Object value) {
        if (value instanceof String) return (String) value;
        if (value == null) return "None";
        if (value instanceof Boolean) return (Boolean) value ? "True" : "False";
        return Json.dumps(value, false);
    }
}

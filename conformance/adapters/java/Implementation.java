// The implementation under test: both exercise functions, ported from
// conformance/examples/python/solution.py. Replace these with your own; Main.java speaks
// the protocol around them. `dispatch` and the tools are stubs parcall answers.
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

final class Implementation {
    /** What a tool raised: its message is Python's str() of the exception. */
    static final class ToolError extends RuntimeException {
        ToolError(String message) {
            super(message);
        }
    }

    /** execute_tool_calls(calls, max_parallel=4); maxParallel is null when not given. */
    static List<Object> executeToolCalls(List<Object> calls, Object maxParallel, Function<Map<String, Object>, Object> dispatch) {
        Object limit = maxParallel == null ? BigInteger.valueOf(4) : maxParallel;
        Set<Object> seen = new HashSet<>();
        List<Object> messages = new ArrayList<>();
        int position = 0;
        for (Object item : calls) {
            position++;
            Map<?, ?> call = (Map<?, ?>) item;
            Object id = call.get("id");
            Object callId = truthy(id) ? id : "call_" + position;
            Object content;
            if (seen.contains(callId)) {
                content = "error: duplicate tool_call_id '" + Main.str(callId) + "'";
            } else if (BigDecimal.valueOf(position).compareTo(number(limit)) > 0) {
                content = "error: too many parallel tool calls (limit " + Main.str(limit) + ")";
            } else {
                Map<String, Object> request = new LinkedHashMap<>();
                request.put("tool", call.get("tool"));
                request.put("arguments", call.containsKey("arguments") ? call.get("arguments") : new LinkedHashMap<>());
                content = dispatch.apply(request);
            }
            seen.add(callId);
            Map<String, Object> message = new LinkedHashMap<>();
            message.put("role", "tool");
            message.put("tool_call_id", callId);
            message.put("content", content);
            messages.add(message);
        }
        return messages;
    }

    /** run_parallel_calls(tools, calls): every distinct call once, duplicates from the cache. */
    static Map<String, Object> runParallelCalls(Map<String, Function<Object, Object>> tools, List<Object> calls) {
        Map<String, Object> cache = new LinkedHashMap<>();
        for (Object item : calls) {
            Map<?, ?> call = (Map<?, ?>) item;
            String name = (String) call.get("name");
            Object args = call.containsKey("args") ? call.get("args") : new LinkedHashMap<>();
            String key = name + "(" + Json.dumps(args, true) + ")";
            if (cache.containsKey(key)) continue;
            Function<Object, Object> tool = tools.get(name);
            if (tool == null) {
                cache.put(key, "error: unknown tool '" + name + "'");
                continue;
            }
            try {
                cache.put(key, tool.apply(args));
            } catch (ToolError e) {
                cache.put(key, "error: " + e.getMessage());
            }
        }
        return cache;
    }

    /** Python's truth value of a JSON value. */
    private static boolean truthy(Object value) {
        if (value == null) return false;
        if (value instanceof Boolean) return (Boolean) value;
        if (value instanceof String) return !((String) value).isEmpty();
        if (value instanceof BigInteger) return ((BigInteger) value).signum() != 0;
        if (value instanceof Double) return (Double) value != 0;
        if (value instanceof List) return !((List<?>) value).isEmpty();
        return !((Map<?, ?>) value).isEmpty();
    }

    private static BigDecimal number(Object value) {
        if (value instanceof Boolean) return (Boolean) value ? BigDecimal.ONE : BigDecimal.ZERO;
        if (value instanceof BigInteger) return new BigDecimal((BigInteger) value);
        return new BigDecimal((Double) value);
    }
}

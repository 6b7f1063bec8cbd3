// The two exercises, to be written. Main.java speaks parcall's protocol around them and
// calls them once per batch; `dispatch` and the tools are stubs whose every call parcall
// answers and records.
//
// JSON values are plain Java objects: null, Boolean, String, BigInteger (an integer, exact),
// Double (a number written with a fraction or exponent), List<Object>, Map<String, Object>.
// `1` and `1.0` arrive as BigInteger and Double, and stay apart (the `python` number model).
// Json.key(name, args) is a call's canonical key; Json.dumps writes any value.
import java.util.List;
import java.util.Map;

final class Solution {
    /** Runs one request, {"tool": NAME, "arguments": {...}}, and returns its content (a String). */
    interface Dispatch {
        Object run(Map<String, Object> request);
    }

    /** Runs a tool on a call's args; returns any JSON value, or throws a ToolError. */
    interface Tool {
        Object call(Map<String, Object> args);
    }

    /**
     * Exercise 000: runs a batch of tool calls (each {"tool", optional "id", optional
     * "arguments"}) and returns one message per call, in call order:
     * {"role": "tool", "tool_call_id": ID, "content": CONTENT}. maxParallel is 4 when the
     * batch gives none.
     */
    static List<Map<String, Object>> executeToolCalls(List<Map<String, Object>> calls, long maxParallel, Dispatch dispatch) {
        throw new UnsupportedOperationException("execute_tool_calls is not written yet");
    }

    /**
     * Exercise 003: runs each distinct call (each {"name", optional "args"}) once and returns
     * a map from each call's key, Json.key(name, args), to its result.
     */
    static Map<String, Object> runParallelCalls(Map<String, Tool> tools, List<Map<String, Object>> calls) {
        throw new UnsupportedOperationException("run_parallel_calls is not written yet");
    }
}

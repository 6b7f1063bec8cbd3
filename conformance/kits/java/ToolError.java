// What a tool raised. parcall scripts tools as Python would raise: `getMessage()` is
// Python's str() of the exception (`'x'`, quotes included, for KeyError('x'); empty for an
// exception raised with no argument), `pythonClass` its class, `args` its arguments.
import java.util.List;
import java.util.Map;

final class ToolError extends RuntimeException {
    final String pythonClass;
    final List<Object> args;

    ToolError(String pythonClass, List<Object> args, String message) {
        super(message);
        this.pythonClass = pythonClass;
        this.args = args;
    }

    @SuppressWarnings("unchecked")
    static ToolError from(Map<?, ?> answer) {
        String message = (String) answer.get("message");
        Object kind = answer.get("exception");
        Object args = answer.get("args");
        return new ToolError(
                kind == null ? "RuntimeError" : (String) kind,
                args == null ? List.of(message) : (List<Object>) args,
                message);
    }
}

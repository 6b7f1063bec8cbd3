// JSON in Python's dialect, with the standard library only: a strict reader, a writer that
// writes values as Python's json.dumps does, and the canonical key of a call (`key`).
// Values are plain Java objects:
//
//   null -> null          true/false -> Boolean     "..." -> String
//   1, -12, 10**400 -> BigInteger (exact at any size: `1` is an int, as Python reads it)
//   1.0, 1e5, NaN, Infinity -> Double (a fraction or exponent makes a float, as in Python)
//   [...] -> ArrayList<Object>      {...} -> LinkedHashMap<String, Object>
//
// A result may also hold Integer, Long (written as integers) and any List or Map with
// String keys.
//
// Where an implementer must take care (RULES B1, B2, spec/RULES.md):
// - Keep 1 and 1.0 apart (BigInteger vs Double): {"a": 1} and {"a": 1.0} are two calls.
// - Write a float as Python's repr: the shortest digits that read back as the same double,
//   `1.0`, `100.0`, `1e+16`, `1e-05`, `-0.0`. Java 17's Double.toString is not that: it
//   writes `1.0E16` and `1.0E-5`, and is not always shortest (`2.0E-3` for 0.002 is, but
//   some doubles get one digit too many before JDK 19). `repr` below finds the shortest
//   digits with BigDecimal and lays them out as Python does.
// - `1e400` overflows to Infinity when read (as Python's float() does); integers are never
//   read as doubles.
// - Sort object keys by code point, not by String.compareTo (UTF-16 units): an astral
//   character sorts after U+FFFF in Python, before it in Java.
// - ensure_ascii: every character outside space..`~` is written as a backslash-u escape (4 lowercase hex digits)
//   (an astral one as its surrogate pair), with the short forms \" \\ \n \r \t \b \f.
// - A repeated key keeps its first place and its last value (LinkedHashMap.put does that).
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

final class Json {
    private final String text;
    private int at;

    private Json(String text) {
        this.text = text;
    }

    /** Reads one whole JSON text; IllegalArgumentException says what and where. */
    static Object parse(String text) {
        Json reader = new Json(text);
        Object value = reader.value(0);
        reader.whitespace();
        if (reader.at != text.length()) throw reader.error("extra data");
        return value;
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException(what + " at offset " + at);
    }

    private void whitespace() {
        while (at < text.length() && " \t\n\r".indexOf(text.charAt(at)) >= 0) at++;
    }

    private boolean word(String word) {
        if (!text.startsWith(word, at)) return false;
        at += word.length();
        return true;
    }

    private Object value(int depth) {
        if (depth > 1000) throw error("nested too deep");
        whitespace();
        if (at >= text.length()) throw error("expected a value");
        char c = text.charAt(at);
        if (c == '{') return object(depth);
        if (c == '[') return list(depth);
        if (c == '"') return string();
        if (word("null")) return null;
        if (word("true")) return Boolean.TRUE;
        if (word("false")) return Boolean.FALSE;
        if (word("NaN")) return Double.NaN;
        if (word("Infinity")) return Double.POSITIVE_INFINITY;
        if (word("-Infinity")) return Double.NEGATIVE_INFINITY;
        return number();
    }

    private Map<String, Object> object(int depth) {
        Map<String, Object> object = new LinkedHashMap<>();
        at++;
        whitespace();
        if (word("}")) return object;
        for (;;) {
            whitespace();
            if (at >= text.length() || text.charAt(at) != '"') throw error("expected a key");
            String key = string();
            whitespace();
            if (!word(":")) throw error("expected ':'");
            object.put(key, value(depth + 1));
            whitespace();
            if (word(",")) continue;
            if (word("}")) return object;
            throw error("expected ',' or '}'");
        }
    }

    private List<Object> list(int depth) {
        List<Object> list = new ArrayList<>();
        at++;
        whitespace();
        if (word("]")) return list;
        for (;;) {
            list.add(value(depth + 1));
            whitespace();
            if (word(",")) continue;
            if (word("]")) return list;
            throw error("expected ',' or ']'");
        }
    }

    private String string() {
        StringBuilder out = new StringBuilder();
        at++;
        for (;;) {
            if (at >= text.length()) throw error("unterminated string");
            char c = text.charAt(at++);
            if (c == '"') return out.toString();
            if (c < 0x20) throw error("control character in a string");
            if (c != '\\') {
                out.append(c);
                continue;
            }
            if (at >= text.length()) throw error("unterminated string");
            char e = text.charAt(at++);
            switch (e) {
                case '"': case '\\': case '/': out.append(e); break;
                case 'b': out.append('\b'); break;
                case 'f': out.append('\f'); break;
                case 'n': out.append('\n'); break;
                case 'r': out.append('\r'); break;
                case 't': out.append('\t'); break;
                case 'u':
                    if (at + 4 > text.length()) throw error("short \\u escape");
                    out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                    at += 4;
                    break;
                default: throw error("invalid escape");
            }
        }
    }

    private Object number() {
        int start = at;
        if (at < text.length() && text.charAt(at) == '-') at++;
        int digits = at;
        while (at < text.length() && Character.isDigit(text.charAt(at))) at++;
        if (at == digits) throw error("expected a value");
        if (text.charAt(digits) == '0' && at - digits > 1) throw error("leading zero");
        boolean isFloat = false;
        if (at < text.length() && text.charAt(at) == '.') {
            isFloat = true;
            at++;
            int fraction = at;
            while (at < text.length() && Character.isDigit(text.charAt(at))) at++;
            if (at == fraction) throw error("expected digits after '.'");
        }
        if (at < text.length() && (text.charAt(at) == 'e' || text.charAt(at) == 'E')) {
            isFloat = true;
            at++;
            if (at < text.length() && (text.charAt(at) == '+' || text.charAt(at) == '-')) at++;
            int exponent = at;
            while (at < text.length() && Character.isDigit(text.charAt(at))) at++;
            if (at == exponent) throw error("expected exponent digits");
        }
        String literal = text.substring(start, at);
        return isFloat ? (Object) Double.parseDouble(literal) : new BigInteger(literal);
    }

    /**
     * The canonical key of a call (RULES B1, B2): {@code name(json.dumps(args, sort_keys=True))},
     * so {@code key("f", {"b": 1, "a": 1.0})} is {@code f({"a": 1.0, "b": 1})}.
     */
    static String key(String name, Object args) {
        return name + "(" + dumps(args, true) + ")";
    }

    /** The value as json.dumps(value, sort_keys=sortKeys) writes it. */
    static String dumps(Object value, boolean sortKeys) {
        StringBuilder out = new StringBuilder();
        write(value, sortKeys, out, "$");
        return out.toString();
    }

    /** What is not a JSON value, and where: the message says which member holds it. */
    static final class NotJson extends IllegalArgumentException {
        NotJson(String message) {
            super(message);
        }
    }

    private static void write(Object value, boolean sortKeys, StringBuilder out, String where) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof Boolean) {
            out.append((Boolean) value ? "true" : "false");
        } else if (value instanceof BigInteger || value instanceof Integer || value instanceof Long) {
            out.append(value);
        } else if (value instanceof Double) {
            out.append(repr((Double) value));
        } else if (value instanceof String) {
            writeString((String) value, out);
        } else if (value instanceof List) {
            out.append('[');
            String separator = "";
            int index = 0;
            for (Object item : (List<?>) value) {
                out.append(separator);
                write(item, sortKeys, out, where + "[" + index++ + "]");
                separator = ", ";
            }
            out.append(']');
        } else if (value instanceof Map) {
            List<Map.Entry<?, ?>> entries = new ArrayList<>(((Map<?, ?>) value).entrySet());
            for (Map.Entry<?, ?> entry : entries) {
                if (!(entry.getKey() instanceof String)) {
                    throw new NotJson(where + " has a key that is not a String: " + entry.getKey());
                }
            }
            if (sortKeys) entries.sort((a, b) -> byCodePoint((String) a.getKey(), (String) b.getKey()));
            out.append('{');
            String separator = "";
            for (Map.Entry<?, ?> entry : entries) {
                out.append(separator);
                writeString((String) entry.getKey(), out);
                out.append(": ");
                write(entry.getValue(), sortKeys, out, where + "[" + dumps(entry.getKey(), false) + "]");
                separator = ", ";
            }
            out.append('}');
        } else {
            throw new NotJson(where + " is a " + value.getClass().getName() + ", which is not a JSON value");
        }
    }

    /** Python's order of str keys: by code point. */
    static int byCodePoint(String a, String b) {
        return java.util.Arrays.compare(a.codePoints().toArray(), b.codePoints().toArray());
    }

    private static void writeString(String s, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"': out.append("\\\""); break;
                case '\\': out.append("\\\\"); break;
                case '\n': out.append("\\n"); break;
                case '\r': out.append("\\r"); break;
                case '\t': out.append("\\t"); break;
                case '\b': out.append("\\b"); break;
                case '\f': out.append("\\f"); break;
                default:
                    if (c >= 0x20 && c <= 0x7e) out.append(c);
                    else out.append(String.format("\\u%04x", (int) c));
            }
        }
        out.append('"');
    }

    /** Python's repr of a float: shortest round-trip digits, in Python's layout. */
    static String repr(double d) {
        if (Double.isNaN(d)) return "NaN";
        if (Double.isInfinite(d)) return d > 0 ? "Infinity" : "-Infinity";
        if (d == 0) return (1 / d < 0) ? "-0.0" : "0.0";
        BigDecimal exact = new BigDecimal(d);
        BigDecimal shortest = exact;
        // Both neighbours of each length, not only the correctly rounded one: just above a
        // power of two the gap below is half the gap above, so the nearest digits of a length
        // can miss while the other neighbour reads back (2^-1017 is 7.120236347223045e-307,
        // not ...0444e-307). Of two that read back, the nearer wins; a tie goes to the even one.
        for (int precision = 1; precision <= 17; precision++) {
            BigDecimal down = exact.round(new MathContext(precision, RoundingMode.FLOOR));
            BigDecimal up = exact.round(new MathContext(precision, RoundingMode.CEILING));
            boolean downReads = down.doubleValue() == d;
            boolean upReads = up.doubleValue() == d;
            if (downReads && upReads) {
                int nearer = exact.subtract(down).compareTo(up.subtract(exact));
                shortest = nearer < 0 ? down : nearer > 0 ? up
                        : exact.round(new MathContext(precision, RoundingMode.HALF_EVEN));
                break;
            }
            if (downReads || upReads) {
                shortest = downReads ? down : up;
                break;
            }
        }
        BigDecimal plain = shortest.stripTrailingZeros();
        String digits = plain.unscaledValue().abs().toString();
        // The decimal exponent of the first digit: d = 0.DIGITS * 10^(point).
        int point = digits.length() - plain.scale();
        String sign = d < 0 ? "-" : "";
        int exponent = point - 1;
        if (exponent < -4 || exponent >= 16) {
            String mantissa = digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
            return sign + mantissa + "e" + (exponent < 0 ? "-" : "+") + String.format("%02d", Math.abs(exponent));
        }
        if (point <= 0) return sign + "0." + "0".repeat(-point) + digits;
        if (point >= digits.length()) return sign + digits + "0".repeat(point - digits.length()) + ".0";
        return sign + digits.substring(0, point) + "." + digits.substring(point);
    }
}

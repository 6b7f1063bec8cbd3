"""Case inputs for the coverage corners (see author_cases.py): batches of hundreds of
calls, max_parallel at every scale, exception kinds, canonically equivalent text, unusual
tool names, deep nesting and integers at CPython's 4,300-digit limit. Ids are permanent."""
import unicodedata

BIG_LIMITS = [5, 2**8, 2**16, 2**31 - 1, 2**31, 2**32 + 1, 2**53 + 1, 2**63 - 1, 2**64 - 1]

# Canonically equivalent pairs (NFC, NFD or another equivalent spelling): each pair is one
# text to a person and two to a computer.
EQUIVALENT = [
    ("caf\u00e9", "cafe\u0301"),              # é composed / e + combining acute
    ("\u00c5", "A\u030a"),                    # Å composed / A + combining ring
    ("\u212b", "\u00c5"),                     # ANGSTROM SIGN / Å (NFC maps the first to the second)
    ("\u2126", "\u03a9"),                     # OHM SIGN / GREEK CAPITAL OMEGA
    ("\ud55c", "\u1112\u1161\u11ab"),         # Hangul syllable / its jamo
    ("q\u0307\u0323", "q\u0323\u0307"),       # combining marks in two orders
]


def nested(depth, leaf):
    """`leaf` inside `depth` objects, each with its keys written z before a (unsorted)."""
    value = leaf
    for level in range(depth):
        value = {"z": level, "a": value} if level % 2 else {"z": value, "a": level}
    return value


def nested_lists(depth, leaf):
    value = leaf
    for _ in range(depth):
        value = [value]
    return value


def big_int(digits, last="7"):
    """An integer of exactly `digits` digits: 1234567890 repeated, ending in `last`."""
    return int(("1234567890" * (digits // 10 + 1))[:digits - 1] + last)


def define(m):
    scale_cases(m)
    limit_cases(m)
    raise_cases(m)
    equivalence_cases(m)
    tool_name_cases(m)
    nesting_cases(m)
    big_int_cases(m)
    wording_cases(m)


def scale_cases(m):
    E, D, adds, ret, const = m.exec_case, m.dedup_case, m.adds, m.ret, m.const_tool
    S = "scale"
    E(S, "exec-scale-001", "300 calls with distinct given ids and a limit of 1000: every call is dispatched once, every message in call order.",
      ["EXEC-LIMIT-POSITION", "EXEC-DISPATCH-ONCE", "EXEC-OUTPUT-COUNT", "EXEC-OUTPUT-ORDER"],
      [([adds(i, 1, f"id-{i}") for i in range(300)], 1000)])
    E(S, "exec-scale-002", "400 calls, 250 distinct ids, then the first 150 ids again in reverse order (2^63 - 1 as the limit): every late repeat is a duplicate.",
      ["EXEC-DUP-REJECTED", "EXEC-DUP-ANY-EARLIER", "EXEC-LIMIT-POSITION"],
      [([adds(i, 0, f"k{i}") for i in range(250)] + [adds(i, 1, f"k{i}") for i in reversed(range(150))], 2**63 - 1)])
    E(S, "exec-scale-003", "300 calls without ids, then given ids call_1 .. call_50 (limit 2^64 - 1): each given id repeats a generated one from hundreds of calls before.",
      ["EXEC-DUP-ANY-EARLIER", "EXEC-ID-GENERATED", "EXEC-DUP-REJECTED"],
      [([adds(i, 2) for i in range(300)] + [adds(i, 3, f"call_{i + 1}") for i in range(50)], 2**64 - 1)])
    E(S, "exec-scale-004", "500 calls with a limit of 300: positions 301 to 500 are over the limit, and the message says 300.",
      ["EXEC-LIMIT-POSITION", "EXEC-OUTPUT-COUNT"],
      [([adds(i, 4) for i in range(500)], 300)])
    E(S, "exec-scale-005", "256 calls under the default limit: only the first 4 run, the other 252 are over it.",
      ["EXEC-LIMIT-DEFAULT", "EXEC-LIMIT-POSITION"],
      [[adds(i, 5) for i in range(256)]])
    first = const(ret("first"), ret("invoked again"))
    D(S, "dedup-scale-001", "400 calls over 200 distinct keys, then all 200 again in reverse order: 200 invocations, the late repeats served from the cache.",
      ["DEDUP-CACHE-HIT", "DEDUP-INVOKE-ONCE", "DEDUP-RESULT-ENTRIES"], {"f": first},
      [[{"name": "f", "args": {"i": i}} for i in range(200)] + [{"name": "f", "args": {"i": i}} for i in reversed(range(200))]])
    D(S, "dedup-scale-002", "300 distinct keys over three tools, each key repeated once right away and once 300 calls later with its args keys reordered.",
      ["DEDUP-CACHE-HIT", "DEDUP-RESULT-ENTRIES", "DEDUP-KEY-ORDER"],
      {"a": first, "b": first, "c": first},
      [[{"name": "abc"[i % 3], "args": {"n": i, "m": -i}} for i in range(300) for _ in range(2)]
       + [{"name": "abc"[i % 3], "args": {"m": -i, "n": i}} for i in range(300)]])
    D(S, "dedup-scale-003", "1000 calls of one key: one invocation, one entry.",
      ["DEDUP-CACHE-HIT", "DEDUP-INVOKE-ONCE"], {"f": first},
      [[{"name": "f", "args": {"q": "same"}}] * 1000])
    D(S, "dedup-scale-004", "Two batches of 300 distinct keys each: the second invokes every key again.",
      ["DEDUP-NO-STATE", "DEDUP-RESULT-ENTRIES"], {"f": const(ret("fresh"), ret("again"))},
      [[{"name": "f", "args": {"i": i}} for i in range(300)]] * 2)


def limit_cases(m):
    E, adds = m.exec_case, m.adds
    L = "limit"
    E(L, "exec-limit-013", "max_parallel at every scale from 5 to 2^64 - 1, always beyond a batch of 5 calls: nothing is over the limit.",
      ["EXEC-LIMIT-POSITION", "EXEC-DISPATCH-ONCE"],
      [([adds(i, n % 7) for i in range(5)], n) for n in BIG_LIMITS])
    E(L, "exec-limit-014", "A batch of 300 calls with max_parallel at every scale from 301 to 2^64 - 1: nothing is over the limit.",
      ["EXEC-LIMIT-POSITION"],
      [([adds(i, 0) for i in range(300)], n) for n in [301, 1024, 2**31, 2**63 - 1, 2**64 - 1]])
    E(L, "exec-limit-015", "A limit just under the batch: 300 calls with max_parallel 299 reject only the last.",
      ["EXEC-LIMIT-POSITION"], [([adds(i, 1) for i in range(300)], 299)])


def raise_cases(m):
    D, E, ret, rise_as, const = m.dedup_case, m.exec_case, m.ret, m.rise_as, m.const_tool
    X = "raise"
    D(X, "dedup-raise-006", "A tool that raises KeyError('x'): str() is 'x' with its quotes, unlike args[0].", ["DEDUP-RAISE"],
      {"lookup": const(rise_as("KeyError", "x"))}, [[{"name": "lookup"}]])
    D(X, "dedup-raise-007", "A tool that raises RuntimeError() with no argument: the result is 'error: ' (args is empty).", ["DEDUP-RAISE"],
      {"quiet": const(rise_as("RuntimeError"))}, [[{"name": "quiet"}]])
    D(X, "dedup-raise-008", "A tool that raises ValueError('bad', 2): str() is the tuple's text ('bad', 2).", ["DEDUP-RAISE"],
      {"check": const(rise_as("ValueError", "bad", 2))}, [[{"name": "check"}]])
    D(X, "dedup-raise-009", "A tool that raises an exception with its own __str__: str() is what __str__ returns, not args[0].", ["DEDUP-RAISE"],
      {"disk": const(rise_as("ToolError", "E17", message="disk full"))}, [[{"name": "disk"}]])
    D(X, "dedup-raise-010", "KeyError of a key with an apostrophe and non-ASCII: str() is its repr, in double quotes.", ["DEDUP-RAISE"],
      {"lookup": const(rise_as("KeyError", "it's Zürich"))}, [[{"name": "lookup"}]])
    D(X, "dedup-raise-011", "KeyError() and KeyError('a', 'b'): empty, and the tuple's text.", ["DEDUP-RAISE"],
      {"f": {"responses": [{"args": {"n": 0}, "answers": [rise_as("KeyError")]},
                           {"args": {"n": 2}, "answers": [rise_as("KeyError", "a", "b")]}]}},
      [[{"name": "f", "args": {"n": 0}}, {"name": "f", "args": {"n": 2}}]])
    D(X, "dedup-raise-012", "Each kind of exception is cached like any result: duplicates do not retry, although a retry would succeed.",
      ["DEDUP-RAISE", "DEDUP-CACHE-HIT"],
      {"f": {"responses": [{"args": {"k": 1}, "answers": [rise_as("KeyError", "k"), ret("ok")]},
                           {"args": {"k": 2}, "answers": [rise_as("RuntimeError"), ret("ok")]},
                           {"args": {"k": 3}, "answers": [rise_as("ValueError", "v", None), ret("ok")]},
                           {"args": {"k": 4}, "answers": [rise_as("ToolError", message="custom"), ret("ok")]}]}},
      [[{"name": "f", "args": {"k": k}} for k in (1, 2, 3, 4, 4, 3, 2, 1)]])
    D(X, "dedup-raise-013", "A KeyError of an integer key and a ValueError of one list argument: str() is repr(1) and the list's repr.", ["DEDUP-RAISE"],
      {"f": {"responses": [{"args": {"n": 1}, "answers": [rise_as("KeyError", 1)]},
                           {"args": {"n": 2}, "answers": [rise_as("ValueError", ["a", 1.5, True, None])]}]}},
      [[{"name": "f", "args": {"n": 1}}, {"name": "f", "args": {"n": 2}}]])
    E("dispatch", "exec-dispatch-015", "A scripted dispatch whose tool raises KeyError('k') answers error: 'k', and the content is that string unchanged.",
      ["EXEC-CONTENT-UNCHANGED"], [[{"tool": "lookup"}]], tools={"lookup": const(rise_as("KeyError", "k"))})


def equivalence_cases(m):
    E, D, adds, ret, const = m.exec_case, m.dedup_case, m.adds, m.ret, m.const_tool
    for a, b in EQUIVALENT:
        assert a != b and unicodedata.normalize("NFD", a) == unicodedata.normalize("NFD", b), (a, b)
    E("ids", "exec-ids-013", "Canonically equivalent ids (composed and decomposed café, Å three ways, Ω two ways, a Hangul syllable and its jamo, combining marks in two orders) are different ids: every call runs, each keeps its own id.",
      ["EXEC-ID-GIVEN", "EXEC-DUP-REJECTED"],
      [[adds(i, 1, text) for i, text in enumerate(t for pair in EQUIVALENT for t in pair)]])
    E("duplicates", "exec-dup-012", "A decomposed id repeated exactly is a duplicate, named in the error in its decomposed form; its composed twin is not.",
      ["EXEC-DUP-REJECTED", "EXEC-DUP-VERBATIM"],
      [[adds(1, 1, "cafe\u0301"), adds(2, 2, "caf\u00e9"), adds(3, 3, "cafe\u0301")]])
    E("dispatch", "exec-dispatch-016", "Tool names and arguments reach dispatch as given: a decomposed name is not the composed tool, and decomposed arguments stay decomposed.",
      ["EXEC-DISPATCH-ONCE", "EXEC-CONTENT-UNCHANGED"],
      [[{"tool": "caf\u00e9", "arguments": {"city": "Zu\u0308rich"}}, {"tool": "cafe\u0301", "arguments": {"city": "Z\u00fcrich"}},
        {"tool": "caf\u00e9", "arguments": {"city": "Z\u00fcrich"}}]],
      tools={"caf\u00e9": m.echo_tool(({"city": "Zu\u0308rich"}, "decomposed city"), ({"city": "Z\u00fcrich"}, "composed city"))})
    D("keys", "dedup-key-015", "Args whose strings are canonically equivalent are different calls, each escaped as its own code points.",
      ["DEDUP-KEY-ASCII", "DEDUP-RESULT-ENTRIES", "DEDUP-INVOKE-ONCE"], {"f": const(ret("ok"))},
      [[{"name": "f", "args": {"s": text}} for pair in EQUIVALENT for text in pair]])
    D("keys", "dedup-key-016", "Canonically equivalent object keys are two keys, sorted by code point: e + combining acute before é.",
      ["DEDUP-KEY-ORDER", "DEDUP-KEY-ASCII"], {"f": const(ret("ok"))},
      [[{"name": "f", "args": {"caf\u00e9": 1, "cafe\u0301": 2, "\u212b": 3, "\u00c5": 4, "A\u030a": 5}}]])
    D("names", "dedup-name-004", "Canonically equivalent tool names are different names: a decomposed name is unknown when only the composed one is a tool, and goes into the key as given.",
      ["DEDUP-NAME-VERBATIM", "DEDUP-UNKNOWN-TOOL"], {"caf\u00e9": const(ret("composed")), "\u212b": const(ret("angstrom sign"))},
      [[{"name": "caf\u00e9"}, {"name": "cafe\u0301"}, {"name": "\u212b"}, {"name": "\u00c5"}, {"name": "A\u030a"}]])


def tool_name_cases(m):
    E, ret, const = m.exec_case, m.ret, m.const_tool
    names = ["get_weather\u0000", "add\n", "\tadd", "add\u001f", "\u007f", "\u0085", "add\u200b",
             "\ud83d\ude00", "\U0001d4b6dd", "天気", "\U0010ffff", "\u2028", "\ufeffadd"]
    E("sandbox-errors", "exec-dispatch-017", "Tool names with control, invisible, non-ASCII and astral characters reach the sandbox as given: each is an unknown tool, named verbatim.",
      ["EXEC-DISPATCH-ONCE", "EXEC-CONTENT-UNCHANGED", "SANDBOX-UNKNOWN-TOOL"],
      [([{"tool": name, "arguments": {"a": 1, "b": 2}} for name in names], 100)])
    scripted = {name: const(ret(f"answer of tool {i}")) for i, name in enumerate(
        ["天気", "\ud83c\udf27\ufe0f rain", "tab\there", "nul\u0000", "new\nline", "\U0001f600", "bell\u0007", "del\u007f"])}
    E("dispatch", "exec-dispatch-018", "Scripted tools named with non-ASCII, astral and control characters are dispatched by their exact names, and a name missing one character is unknown.",
      ["EXEC-DISPATCH-ONCE", "EXEC-CONTENT-UNCHANGED"],
      [([{"tool": name} for name in scripted] + [{"tool": "tabhere"}, {"tool": "nul"}, {"tool": "newline"}], 100)],
      tools=scripted)


def nesting_cases(m):
    E, D, ret, const = m.exec_case, m.dedup_case, m.ret, m.const_tool
    deep = [nested(d, {"y": d, "x": "bottom"}) for d in (21, 50, 100)]
    D("keys", "dedup-key-017", "Args nested 21, 50 and 100 objects deep, keys unsorted at every level: sorted at every depth; the same args with keys in another order are one call.",
      ["DEDUP-KEY-ORDER", "DEDUP-KEY-FORMAT", "DEDUP-CACHE-HIT"], {"f": const(ret("deep"), ret("invoked again"))},
      [[{"name": "f", "args": a} for a in deep] + [{"name": "f", "args": reversed_keys(a)} for a in deep]])
    D("keys", "dedup-key-018", "Lists nested 20, 64 and 150 deep keep their nesting in the key.",
      ["DEDUP-KEY-FORMAT", "DEDUP-KEY-LIST-ORDER"], {"f": const(ret("ok"))},
      [[{"name": "f", "args": {"l": nested_lists(d, d)}} for d in (20, 64, 150)]])
    E("dispatch", "exec-dispatch-019", "Arguments nested 20, 60 and 150 deep reach dispatch unchanged.",
      ["EXEC-DISPATCH-ONCE", "EXEC-CONTENT-UNCHANGED"],
      [[{"tool": "store", "arguments": nested(d, [d])} for d in (20, 60, 150)]],
      tools={"store": const(ret("stored"))})


def reversed_keys(value):
    if isinstance(value, dict):
        return {k: reversed_keys(value[k]) for k in reversed(list(value))}
    if isinstance(value, list):
        return [reversed_keys(v) for v in value]
    return value


def big_int_cases(m):
    E, D, ret, const = m.exec_case, m.dedup_case, m.ret, m.const_tool
    N = "numbers"
    top = big_int(4300)
    D(N, "dedup-number-024", "Integers of 4,300 digits, the most CPython converts, positive and negative: written exactly, two calls.",
      ["DEDUP-NUMBER-INT"], {"f": const(ret("ok"))},
      [[{"name": "f", "args": {"a": top}}, {"name": "f", "args": {"a": -top}}]])
    D(N, "dedup-number-025", "Integers of 4,299 and 4,300 digits that differ only in their last digit are different calls; a repeat of each is served from the cache.",
      ["DEDUP-NUMBER-INT", "DEDUP-RESULT-ENTRIES", "DEDUP-CACHE-HIT"], {"f": const(ret("first"), ret("invoked again"))},
      [[{"name": "f", "args": {"a": big_int(4300, "1")}}, {"name": "f", "args": {"a": big_int(4300, "2")}},
        {"name": "f", "args": {"a": big_int(4299, "1")}}, {"name": "f", "args": {"a": big_int(4299, "2")}},
        {"name": "f", "args": {"a": big_int(4300, "1")}}, {"name": "f", "args": {"a": big_int(4299, "2")}}]])
    D("results", "dedup-result-013", "A 4,300-digit integer result is returned exactly.", ["DEDUP-RESULT-UNCHANGED"],
      {"f": const(ret(-top))}, [[{"name": "f"}]])
    D(N, "dedup-number-026", "Integers of 1,000 to 4,300 digits nested in lists and objects are written exactly.",
      ["DEDUP-NUMBER-INT", "DEDUP-KEY-FORMAT"], {"f": const(ret("ok"))},
      [[{"name": "f", "args": {"l": [big_int(1000), {"n": -big_int(2500)}], "m": big_int(4300, "9")}}]])
    E("dispatch", "exec-dispatch-020", "A 4,300-digit integer argument reaches dispatch exactly.",
      ["EXEC-DISPATCH-ONCE"], [[{"tool": "store", "arguments": {"n": top, "m": -big_int(4299)}}]],
      tools={"store": const(ret("stored"))})


def wording_cases(m):
    D, ret, const = m.dedup_case, m.ret, m.const_tool
    m.exec_case("sandbox-results", "sandbox-result-017", "add of inf and -inf is nan.", ["SANDBOX-ARITHMETIC", "SANDBOX-RESULT-STR"],
                [[{"tool": "add", "arguments": {"a": float("inf"), "b": float("-inf")}}]])
    D("numbers", "dedup-number-027", "NaN is written NaN, and two calls with NaN are one call: the key is text, although nan != nan.",
      ["DEDUP-NUMBER-OVERFLOW", "DEDUP-CACHE-HIT"], {"f": const(ret("first"), ret("invoked again"))},
      ['[{"name": "f", "args": {"a": NaN}}, {"name": "f", "args": {"a": NaN}}]'])

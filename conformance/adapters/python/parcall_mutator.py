"""parcall's mutator: makes the mutants of a Python module for `parcall mutate`.

It never runs the module: it parses it with the standard library's `ast`, changes one thing
at a time, checks the changed text compiles and parses to exactly the intended tree, and
sends each mutant back as an edit of the original text (byte offsets and replacement), so the
mutant differs from the module in that place only.

    python3 parcall_mutator.py

The request comes on the protocol's read fd (PARCALL_PROTOCOL_FDS, default "3,4") as one JSON
line: {"source": TEXT, "filename": NAME, "entry": [FUNCTION...], "replaced": [NAME...]}.
Replies are JSON lines on the write fd: one {"type": "mutant", ...} per mutant, then
{"type": "done", ...}; or one {"type": "error", ...} when the module cannot be parsed.

Only code that runs when parcall calls the entry functions is mutated: those functions and
the module-level functions, classes and constants they reach by name. `replaced` names what
parcall replaces with its own (`dispatch`): it is never mutated, nor what only it reaches.
Standard library only; CPython 3.9 and later (`ast.unparse`)."""
import ast
import copy
import json
import os
import re
import sys

ENTRY = ("execute_tool_calls", "run_parallel_calls")
REPLACED = ("dispatch",)

# Operators, as reports and the equivalent-mutants file name them.
COMPARE, CONSTANT, BOOLEAN, NEGATE = "compare", "constant", "boolean", "negate"
DELETE, LOOP, KEYWORD, RETURN, HANDLER = "delete", "loop-control", "keyword", "return", "handler"
DEFAULT, ARITHMETIC = "default", "arithmetic"

FLIPS = {
    ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
    ast.In: ast.NotIn, ast.NotIn: ast.In,
}
# Flipping these is the same program as negating the comparison: negation is left out.
NEGATIONS = (ast.Eq, ast.NotEq, ast.Is, ast.IsNot, ast.In, ast.NotIn)
ARITHMETIC_SWAPS = {ast.Add: ast.Sub, ast.Sub: ast.Add}
# Calls whose last positional argument is a default (`d.get(k, {})`, `enumerate(xs, 1)`):
# dropping it is a plausible bug, where dropping any other argument is only a TypeError.
DEFAULTED = {"get": 2, "pop": 2, "setdefault": 2, "getattr": 3, "next": 2, "enumerate": 2}
# Simple statements whose deletion is a mutant (`return`, `continue` and `break` have their
# own operators; deleting an import or a declaration is a NameError, not a plausible bug).
DELETABLE = (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Raise, ast.Assert, ast.Delete)
TRY_NODES = tuple(t for t in (ast.Try, getattr(ast, "TryStar", None)) if t is not None)
FUNCTION_NODES = (ast.FunctionDef, ast.AsyncFunctionDef)
# Fields never mutated: annotations and decorators are not behaviour under test.
SKIPPED_FIELDS = {"annotation", "returns", "type_comment", "decorator_list", "format_spec"}


class Candidate:
    """One mutation: `new` replaces what `parent.field[index]` holds (a node, or for a
    statement a list of statements)."""

    def __init__(self, scope, operator, parent, field, index, new, anchor, described=None):
        self.scope, self.operator = scope, operator
        self.parent, self.field, self.index, self.new = parent, field, index, new
        self.anchor, self.described = anchor, described
        # The outermost f-string holding the node: nodes inside f-strings may carry
        # positions that cannot be spliced (before 3.12), so it is rewritten whole instead.
        self.fstring = None

    def old(self):
        value = getattr(self.parent, self.field)
        return value if self.index is None else value[self.index]

    def apply(self, new):
        if self.index is None:
            setattr(self.parent, self.field, new)
            return
        items = getattr(self.parent, self.field)
        replacement = new if isinstance(new, list) else [new]
        items[self.index:self.index + 1] = replacement

    def undo(self, old):
        if self.index is None:
            setattr(self.parent, self.field, old)
            return
        items = getattr(self.parent, self.field)
        width = len(self.new) if isinstance(self.new, list) else 1
        items[self.index:self.index + width] = [old]


def one_line(text):
    return " ".join(part.strip() for part in text.splitlines() if part.strip())


def header(node):
    """The text that names where a mutation is: a simple statement whole, a compound
    statement by its first line."""
    if isinstance(node, (ast.If, ast.While)):
        word = "if" if isinstance(node, ast.If) else "while"
        return "%s %s:" % (word, ast.unparse(node.test))
    if isinstance(node, (ast.For, ast.AsyncFor)):
        target = node.target
        names = ", ".join(ast.unparse(e) for e in target.elts) if isinstance(target, ast.Tuple) \
            else ast.unparse(target)
        return "for %s in %s:" % (names, ast.unparse(node.iter))
    if isinstance(node, (ast.With, ast.AsyncWith)):
        return "with %s:" % ", ".join(ast.unparse(item) for item in node.items)
    if isinstance(node, TRY_NODES):
        return "try:"
    if isinstance(node, ast.ExceptHandler):
        text = "except"
        if node.type is not None:
            text += " " + ast.unparse(node.type)
        if node.name:
            text += " as " + node.name
        return text + ":"
    if isinstance(node, FUNCTION_NODES):
        return "def %s(%s):" % (node.name, ast.unparse(node.args))
    if isinstance(node, ast.ClassDef):
        return "class %s:" % node.name
    if isinstance(node, ast.Match if hasattr(ast, "Match") else ()):
        return "match %s:" % ast.unparse(node.subject)
    return one_line(ast.unparse(node))


def is_docstring(statement, body, index):
    return (index == 0 and isinstance(statement, ast.Expr)
            and isinstance(statement.value, ast.Constant) and isinstance(statement.value.value, str)
            and body is not None)


class Walker:
    """Visits the mutable code of one scope, collecting candidates in source order."""

    def __init__(self):
        self.found = []

    def add(self, *args, **kwargs):
        self.found.append(Candidate(*args, **kwargs))

    def visit(self, node, parent, field, index, scope, anchor, fstring=None):
        if isinstance(node, (ast.stmt, ast.ExceptHandler)):
            anchor = node
        before = len(self.found)
        self.mutations(node, parent, field, index, scope, anchor)
        for candidate in self.found[before:]:
            candidate.fstring = fstring
        if isinstance(node, ast.JoinedStr) and fstring is None:
            fstring = node
        inner = scope
        if isinstance(node, FUNCTION_NODES + (ast.ClassDef,)):
            inner = "%s.%s" % (scope, node.name)
        elif isinstance(node, ast.Lambda):
            inner = "%s.<lambda>" % scope
        for name, value in ast.iter_fields(node):
            if name in SKIPPED_FIELDS:
                continue
            if isinstance(node, FUNCTION_NODES + (ast.ClassDef,)) and name not in ("body", "args"):
                continue
            if isinstance(value, list):
                for i, item in enumerate(value):
                    if not isinstance(item, ast.AST):
                        continue
                    if name == "body" and isinstance(node, FUNCTION_NODES + (ast.ClassDef,)) \
                            and is_docstring(item, value, i):
                        continue
                    self.visit(item, node, name, i, inner, anchor, fstring)
            elif isinstance(value, ast.AST):
                self.visit(value, node, name, None, inner, anchor, fstring)

    def mutations(self, node, parent, field, index, scope, anchor):
        add = lambda operator, new, **kw: self.add(scope, operator, parent, field, index, new, anchor, **kw)
        if isinstance(node, ast.Compare):
            for i, op in enumerate(node.ops):
                flipped = FLIPS.get(type(op))
                if flipped is not None:
                    new = copy.copy(node)
                    new.ops = list(node.ops)
                    new.ops[i] = flipped()
                    add(COMPARE, new)
        elif isinstance(node, ast.Constant) and not isinstance(parent, ast.JoinedStr):
            for value in nudged(node.value):
                add(CONSTANT, ast.Constant(value=value))
        elif isinstance(node, ast.JoinedStr):
            for i, part in enumerate(node.values):
                if isinstance(part, ast.Constant) and isinstance(part.value, str) and part.value:
                    rest = node.values[:i] + node.values[i + 1:]
                    new = ast.JoinedStr(values=rest) if rest else ast.Constant(value="")
                    add(CONSTANT, new)
        elif isinstance(node, ast.BoolOp):
            other = ast.Or() if isinstance(node.op, ast.And) else ast.And()
            add(BOOLEAN, ast.BoolOp(op=other, values=node.values))
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            add(NEGATE, node.operand)
        elif isinstance(node, ast.BinOp) and type(node.op) in ARITHMETIC_SWAPS:
            add(ARITHMETIC, ast.BinOp(left=node.left, op=ARITHMETIC_SWAPS[type(node.op)](), right=node.right))
        elif isinstance(node, ast.Call):
            called = node.func.attr if isinstance(node.func, ast.Attribute) else \
                node.func.id if isinstance(node.func, ast.Name) else None
            if DEFAULTED.get(called) == len(node.args) and not any(isinstance(a, ast.Starred) for a in node.args):
                new = copy.copy(node)
                new.args = node.args[:-1]
                add(DEFAULT, new)
            for i, keyword in enumerate(node.keywords):
                if keyword.arg is not None:
                    new = copy.copy(node)
                    new.keywords = node.keywords[:i] + node.keywords[i + 1:]
                    add(KEYWORD, new)
        elif isinstance(node, (ast.Continue, ast.Break)):
            add(LOOP, ast.Break() if isinstance(node, ast.Continue) else ast.Continue())
        elif isinstance(node, ast.Return) and node.value is not None:
            if not (isinstance(node.value, ast.Constant) and node.value.value is None):
                add(RETURN, ast.Return(value=ast.Constant(value=None)))
        elif isinstance(node, DELETABLE) and not isinstance(parent, ast.Module):
            add(DELETE, ast.Pass())
        # A condition negated: `if`, `while`, a conditional expression, a comprehension's
        # `if` (an existing `not` is removed above instead).
        test_of = {ast.If: "test", ast.While: "test", ast.IfExp: "test", ast.Assert: "test"}
        tests = []
        if type(node) in test_of:
            tests.append((test_of[type(node)], None, getattr(node, test_of[type(node)])))
        if isinstance(node, ast.comprehension):
            tests.extend(("ifs", i, test) for i, test in enumerate(node.ifs))
        for name, i, test in tests:
            if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
                continue
            if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], NEGATIONS):
                continue
            anchor_here = anchor if not isinstance(node, ast.stmt) else node
            self.add(scope, NEGATE, node, name, i, ast.UnaryOp(op=ast.Not(), operand=test), anchor_here)
        if isinstance(node, TRY_NODES):
            for i, handler in enumerate(node.handlers):
                rest = node.handlers[:i] + node.handlers[i + 1:]
                if rest:
                    new = [copy.copy(node)]
                    new[0].handlers = rest
                elif node.finalbody:
                    new = [ast.Try(body=node.body + node.orelse, handlers=[], orelse=[],
                                   finalbody=node.finalbody)]
                else:
                    new = list(node.body) + list(node.orelse)
                self.add(scope, HANDLER, parent, field, index, new, node,
                         described=(header(handler), ""))


def nudged(value):
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, int):
        return [value + 1, value - 1]
    if isinstance(value, str) and value:
        return [""]
    return []


def module_definitions(tree):
    """Module-level names bound by a def, a class or a plain assignment."""
    definitions = {}
    for statement in tree.body:
        if isinstance(statement, FUNCTION_NODES + (ast.ClassDef,)):
            definitions.setdefault(statement.name, []).append(statement)
        elif isinstance(statement, (ast.Assign, ast.AnnAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        definitions.setdefault(name.id, []).append(statement)
    return definitions


def reachable(tree, entry, replaced):
    """The module-level statements parcall's calls can run, in source order."""
    definitions = module_definitions(tree)
    queue = [name for name in entry if name in definitions]
    reached, names = [], set()
    while queue:
        name = queue.pop()
        if name in names or name in replaced:
            continue
        names.add(name)
        for statement in definitions.get(name, []):
            if statement not in reached:
                reached.append(statement)
            for node in ast.walk(statement):
                if isinstance(node, ast.Name) and node.id in definitions:
                    queue.append(node.id)
    reached.sort(key=lambda s: (s.lineno, s.col_offset))
    return reached


def candidates(tree, entry, replaced):
    walker = Walker()
    for statement in reachable(tree, entry, replaced):
        if isinstance(statement, FUNCTION_NODES + (ast.ClassDef,)):
            scope = statement.name
            fields = ("body",) if isinstance(statement, ast.ClassDef) else ("args", "body")
            for name in fields:
                value = getattr(statement, name)
                items = value if isinstance(value, list) else [value]
                for i, item in enumerate(items):
                    if name == "body" and is_docstring(item, items, i):
                        continue
                    walker.visit(item, statement, name, i if isinstance(value, list) else None,
                                 scope, statement)
        else:
            # A constant the code reads: its value is mutated, the statement stays.
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            scope = ", ".join(ast.unparse(t) for t in targets)
            if statement.value is not None:
                walker.visit(statement.value, statement, "value", None, scope, statement)
    return walker.found


def line_starts(data):
    starts = [0]
    starts.extend(match.end() for match in re.finditer(rb"\r\n|\r|\n", data))
    return starts


def span(node, starts):
    return (starts[node.lineno - 1] + node.col_offset,
            starts[node.end_lineno - 1] + node.end_col_offset)


def replacement_text(candidate, old, data, starts):
    """The text that replaces `old`'s span, or None when it cannot be written in place."""
    new = candidate.new
    if not isinstance(new, list):
        return ast.unparse(new)
    start = starts[old.lineno - 1]
    indent = data[start:start + old.col_offset]
    if indent.strip():
        return None  # a statement after `;` or `:` on the same line: not rewritten
    indent = indent.decode("utf-8")
    lines = []
    for statement in new:
        lines.extend(ast.unparse(statement).splitlines())
    return ("\n" + indent).join(lines) if lines else "pass"


def mutants(source, filename, entry, replaced):
    data = source.encode("utf-8")
    try:
        tree = ast.parse(data, filename)
    except SyntaxError as error:
        yield {"type": "error", "kind": "syntax", "message": str(error.msg),
               "line": error.lineno, "column": error.offset}
        return
    if not any(name in module_definitions(tree) for name in entry):
        yield {"type": "error", "kind": "no-function",
               "message": "defines none of %s at module level" % ", ".join(entry)}
        return
    starts = line_starts(data)
    seen_texts = {data}
    occurrences = {}
    not_compiling = unwritable = 0
    for candidate in candidates(tree, entry, replaced):
        old = candidate.old()
        anchor_is_target = candidate.anchor is old
        before = candidate.described[0] if candidate.described else header(candidate.anchor)
        candidate.apply(candidate.new)
        try:
            expected = ast.dump(tree)
            if candidate.described:
                after = candidate.described[1]
            elif anchor_is_target:
                after = header(candidate.new if not isinstance(candidate.new, list) else candidate.new[0])
            else:
                after = header(candidate.anchor)
            whole_fstring = ast.unparse(candidate.fstring) if candidate.fstring else None
        finally:
            candidate.undo(old)
        # Ways to write it, the smallest edit first; the one kept parses to exactly the
        # intended tree.
        attempts = []
        text = replacement_text(candidate, old, data, starts)
        if text is not None:
            attempts.append((old, text))
            if not isinstance(candidate.new, list):
                attempts.append((old, "(%s)" % text))
        if whole_fstring is not None:
            attempts.append((candidate.fstring, whole_fstring))
        written = None
        for node, attempt in attempts:
            start, end = span(node, starts)
            mutant = data[:start] + attempt.encode("utf-8") + data[end:]
            try:
                if ast.dump(ast.parse(mutant, filename)) == expected:
                    written, line, end_line = attempt, node.lineno, node.end_lineno
                    break
            except (SyntaxError, ValueError):
                continue
        if written is None:
            unwritable += 1
            continue
        if mutant in seen_texts:
            continue
        seen_texts.add(mutant)
        try:
            compile(mutant, filename, "exec", dont_inherit=True)
        except (SyntaxError, ValueError):
            not_compiling += 1
            continue
        key = (candidate.scope, candidate.operator, before, after)
        occurrences[key] = occurrences.get(key, 0) + 1
        yield {"type": "mutant", "scope": candidate.scope, "operator": candidate.operator,
               "original": before, "mutated": after, "occurrence": occurrences[key],
               "line": line, "end_line": end_line, "start": start, "end": end,
               "replacement": written}
    yield {"type": "done", "not_compiling": not_compiling, "unwritable": unwritable}


def main():
    fds = os.environ.get("PARCALL_PROTOCOL_FDS", "3,4")
    read_fd, write_fd = (int(part) for part in fds.split(","))
    reader, writer = os.fdopen(read_fd, "rb"), os.fdopen(write_fd, "wb")

    def send(message):
        writer.write((json.dumps(message, ensure_ascii=True) + "\n").encode("ascii"))
        writer.flush()

    request = json.loads(reader.readline().decode("utf-8"))
    if not hasattr(ast, "unparse"):
        send({"type": "error", "kind": "python",
              "message": "parcall mutate needs Python 3.9 or later (ast.unparse); --python runs %s"
              % sys.version.split()[0]})
        return 0
    entry = request.get("entry") or list(ENTRY)
    replaced = request.get("replaced") or list(REPLACED)
    try:
        for message in mutants(request["source"], request.get("filename", "<module>"), entry, replaced):
            send(message)
    except (RecursionError, MemoryError) as error:
        send({"type": "error", "kind": "too-complex",
              "message": "the module is too deeply nested to mutate (%s)" % type(error).__name__})
    except Exception as error:  # noqa: BLE001 - a bug of ours, reported as such, never a hang
        send({"type": "error", "kind": "internal",
              "message": "the mutator cannot handle this module (%s: %s); please report it"
              % (type(error).__name__, error)})
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Unit tests of parcall's mutator (conformance/adapters/python/parcall_mutator.py).

Run by `cargo test --test suite -- mutate::` (the_mutator_passes_its_python_unit_tests), or directly:
    python3 tests/python/test_mutator.py"""
import ast
import os
import sys
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "conformance", "adapters", "python"))

import parcall_mutator as m  # noqa: E402


def mutants(source):
    source = textwrap.dedent(source)
    messages = list(m.mutants(source, "t.py", list(m.ENTRY), list(m.REPLACED)))
    done = messages[-1]
    return [x for x in messages if x["type"] == "mutant"], done, source


def apply(source, mutant):
    data = source.encode("utf-8")
    return (data[:mutant["start"]] + mutant["replacement"].encode("utf-8") + data[mutant["end"]:]).decode("utf-8")


def kinds(found):
    return sorted((x["operator"], x["original"], x["mutated"]) for x in found)


class Operators(unittest.TestCase):
    def test_each_operator_of_the_issue(self):
        found, done, source = mutants("""
            import json
            def run_parallel_calls(tools, calls):
                out = {}
                for i, call in enumerate(calls):
                    if i >= 2 and call:
                        continue
                    try:
                        out[json.dumps(call, sort_keys=True)] = "x"
                    except ValueError:
                        break
                return out
        """)
        got = kinds(found)
        expect = [
            ("compare", "if i >= 2 and call:", "if i > 2 and call:"),
            ("constant", "if i >= 2 and call:", "if i >= 3 and call:"),
            ("constant", "if i >= 2 and call:", "if i >= 1 and call:"),
            ("boolean", "if i >= 2 and call:", "if i >= 2 or call:"),
            ("negate", "if i >= 2 and call:", "if not (i >= 2 and call):"),
            ("loop-control", "continue", "break"),
            ("loop-control", "break", "continue"),
            ("keyword", "out[json.dumps(call, sort_keys=True)] = 'x'", "out[json.dumps(call)] = 'x'"),
            ("constant", "out[json.dumps(call, sort_keys=True)] = 'x'", "out[json.dumps(call, sort_keys=False)] = 'x'"),
            ("constant", "out[json.dumps(call, sort_keys=True)] = 'x'", "out[json.dumps(call, sort_keys=True)] = ''"),
            ("delete", "out[json.dumps(call, sort_keys=True)] = 'x'", "pass"),
            ("delete", "out = {}", "pass"),
            ("return", "return out", "return None"),
            ("handler", "except ValueError:", ""),
        ]
        for item in expect:
            self.assertIn(item, got)
        self.assertEqual(done["not_compiling"], 0)
        self.assertEqual(done["unwritable"], 0)

    def test_every_mutant_is_one_edit_that_parses_to_a_different_tree(self):
        found, _, source = mutants("""
            def execute_tool_calls(calls, max_parallel=4):
                return [f"call_{i + 1}: {c.get('id', '')!r}" for i, c in enumerate(calls) if not c.get("skip")]
        """)
        self.assertTrue(found)
        original = ast.dump(ast.parse(source))
        texts = set()
        for mutant in found:
            text = apply(source, mutant)
            self.assertNotEqual(ast.dump(ast.parse(text)), original)
            texts.add(text)
        self.assertEqual(len(texts), len(found), "no two mutants are the same text")

    def test_fstring_parts_are_emptied_and_the_fstring_rewritten_whole(self):
        found, _, source = mutants("""
            def execute_tool_calls(calls, max_parallel=4):
                return [f"call_{n}" for n in range(len(calls))]
        """)
        emptied = [x for x in found if x["mutated"] == "return [f'{n}' for n in range(len(calls))]"]
        self.assertEqual(len(emptied), 1)
        self.assertIn("f'{n}'", apply(source, emptied[0]))

    def test_negating_a_flippable_comparison_is_not_a_second_mutant(self):
        found, _, _ = mutants("""
            def run_parallel_calls(tools, calls):
                if calls in tools:
                    return {}
                return {}
        """)
        self.assertIn(("compare", "if calls in tools:", "if calls not in tools:"), kinds(found))
        self.assertFalse([x for x in found if x["operator"] == "negate"])

    def test_occurrences_tell_identical_changes_apart(self):
        found, _, _ = mutants("""
            def run_parallel_calls(tools, calls):
                for c in calls:
                    continue
                for c in calls:
                    continue
                return {}
        """)
        swaps = [x for x in found if x["operator"] == "loop-control"]
        self.assertEqual([x["occurrence"] for x in swaps], [1, 2])
        self.assertEqual([x["line"] for x in swaps], [4, 6])


class Scope(unittest.TestCase):
    def test_dispatch_and_what_only_it_reaches_are_left_alone(self):
        found, _, _ = mutants('''
            LIMIT = 4
            TABLE = {"a": 1}
            def helper(x):
                return x + 1
            def execute_tool_calls(calls, max_parallel=LIMIT):
                """A docstring is never emptied."""
                return [dispatch(helper(c)) for c in calls]
            def dispatch(request):
                return TABLE[request]
            def unused():
                return 1
        ''')
        scopes = {x["scope"] for x in found}
        self.assertEqual(scopes, {"LIMIT", "helper", "execute_tool_calls"})
        self.assertFalse([x for x in found if "docstring" in x["original"]])

    def test_classes_and_lambdas_are_reached_and_named(self):
        found, _, _ = mutants('''
            class Cache:
                """Doc."""
                limit = 2
                def key(self, call):
                    return call["name"]
            def run_parallel_calls(tools, calls):
                run = lambda call: tools[call["name"]](call.get("args", {}))
                return {Cache().key(c): run(c) for c in calls}
        ''')
        scopes = {x["scope"] for x in found}
        self.assertEqual(scopes, {"Cache", "Cache.key", "run_parallel_calls", "run_parallel_calls.<lambda>"})

    def test_nested_functions_are_named_by_their_path(self):
        found, _, _ = mutants("""
            def run_parallel_calls(tools, calls):
                def inner():
                    return 1
                return {"n": inner()}
        """)
        self.assertIn("run_parallel_calls.inner", {x["scope"] for x in found})

    def test_a_mutant_that_does_not_compile_is_counted_apart(self):
        found, done, _ = mutants("""
            def run_parallel_calls(tools, calls):
                n = 0
                def bump():
                    nonlocal n
                    n += 1
                bump()
                return {"n": n}
        """)
        self.assertGreaterEqual(done["not_compiling"], 1)
        self.assertFalse([x for x in found if x["original"] == "n = 0" and x["operator"] == "delete"])

    def test_errors(self):
        (error,) = list(m.mutants("def run_parallel_calls(:\n", "t.py", list(m.ENTRY), []))
        self.assertEqual((error["type"], error["kind"], error["line"]), ("error", "syntax", 1))
        (error,) = list(m.mutants("x = 1\n", "t.py", list(m.ENTRY), []))
        self.assertEqual(error["kind"], "no-function")

    def test_offsets_are_bytes_of_utf8_and_crlf_lines_count(self):
        source = 'def run_parallel_calls(tools, calls):\r\n    s = "é😀"\r\n    return {s: 1}\r\n'
        found = [x for x in m.mutants(source, "t.py", list(m.ENTRY), []) if x["type"] == "mutant"]
        nudged = [x for x in found if x["mutated"] == "return {s: 0}"]
        self.assertEqual(len(nudged), 1)
        self.assertIn("return {s: 0}\r\n", apply(source, nudged[0]))
        emptied = [x for x in found if x["mutated"] == "s = ''"]
        self.assertIn('    s = \'\'\r\n', apply(source, emptied[0]))
        deleted = [x for x in found if x["operator"] == "delete"][0]
        self.assertEqual(apply(source, deleted).splitlines()[1], "    pass")


if __name__ == "__main__":
    unittest.main()

"""The coverage table of the case corners: per corner, how many fixed cases (the spec's own) and
generated cases (`parcall spec export --generated N --seed S`, summed over seeds) reach it,
before and after; with --examples, on how many seeds the generated cases alone catch each
broken example of the corner.

Run: python3 scripts/coverage_table.py --old-ref REF --old-bin OLD_PARCALL --new-bin NEW_PARCALL
         [--seeds 20] [--generated 500] [--examples [--old-seeds N]]

REF is the commit before the change (its spec/ is read with `git show`); OLD_PARCALL is a
parcall built from it, NEW_PARCALL one built from the working tree."""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import unicodedata

EXAMPLES = {
    "batches of hundreds": ["ids_forgotten_after_64", "dedup_cache_forgets"],
    "max_parallel beyond 100": ["limit_capped"],
    "exception kinds": ["dedup_error_args0"],
    "canonically equivalent text": ["ids_normalised"],
    "odd execute tool names": ["tool_name_sanitised"],
    "nesting >= 20": ["dedup_sort_depth_16"],
    "integers >= 1000 digits": ["dedup_big_int_guard"],
}


def strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from strings(v)
    elif isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from strings(v)


def depth(value):
    if isinstance(value, list):
        return 1 + max((depth(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((depth(v) for v in value.values()), default=0)
    return 0


def ints(value):
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from ints(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from ints(v)


def answers(case):
    tools = case.get("tools") or case.get("dispatch", {}).get("tools") or {}
    for script in tools.values():
        for response in script["responses"]:
            yield from response["answers"]


def corners(function, case):
    """The corners (docs/checking.md, Generated cases) a case reaches."""
    found = set()
    batches = case["batches"]
    for batch in batches:
        calls = batch["calls"]
        if len(calls) >= 100:
            found.add("batches of hundreds")
        limit = batch.get("max_parallel")
        if limit is not None and limit > 100 and limit > len(calls):
            found.add("max_parallel beyond 100")
        texts = set(strings(calls))
        by_nfd = {}
        for text in texts:
            by_nfd.setdefault(unicodedata.normalize("NFD", text), set()).add(text)
        if any(len(group) > 1 for group in by_nfd.values()):
            found.add("canonically equivalent text")
        if function == "execute_tool_calls" and any(
                not all(" " <= c <= "~" for c in call["tool"]) for call in calls):
            found.add("odd execute tool names")
        if depth(calls) >= 22:  # the calls list and a call object wrap args: 20 levels inside
            found.add("nesting >= 20")
        if any(len(str(abs(i))) >= 1000 for i in ints(calls)):
            found.add("integers >= 1000 digits")
    if any(a["type"] == "raise" and "exception" in a for a in answers(case)):
        found.add("exception kinds")
    return found


def count(spec_dir, prefix=None):
    table = {corner: 0 for corner in EXAMPLES}
    for function in ("execute_tool_calls", "run_parallel_calls"):
        folder = os.path.join(spec_dir, "cases", function)
        if not os.path.isdir(folder):
            continue
        for name in sorted(os.listdir(folder)):
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                content = json.load(f)
            for case in content["cases"]:
                if prefix and not case["id"].startswith(prefix):
                    continue
                for corner in corners(function, case):
                    table[corner] += 1
    return table


def old_spec(ref, into):
    archive = subprocess.run(["git", "archive", ref, "spec"], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", into], input=archive, check=True)
    return os.path.join(into, "spec")


def generated(binary, seeds, n, tmp):
    """Corner counts of the generated cases only, summed over the seeds."""
    total = {corner: 0 for corner in EXAMPLES}
    for seed in range(1, seeds + 1):
        out = os.path.join(tmp, f"{os.path.basename(binary)}-{seed}")
        subprocess.run([binary, "spec", "export", out, "--generated", str(n), "--seed", str(seed)],
                       check=True, capture_output=True)
        before = count(out, prefix="gen-")
        for corner, k in before.items():
            total[corner] += k
    return total


def caught(binary, example, seed, n):
    """Whether a generated case (not a fixed one) fails on the example."""
    path = f"conformance/examples/python/broken/{example}.py"
    function = "run_parallel_calls" if example.startswith("dedup_") else "execute_tool_calls"
    run = subprocess.run([binary, "check", path, "--format", "json", "--fuzz", str(n), "--seed", str(seed),
                          "--function", function, "--no-regressions"], capture_output=True, text=True)
    report = json.loads(run.stdout)
    return any(c["outcome"] != "pass" and c["id"].startswith(("gen-", "generated-"))
               for c in report["cases"])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--old-ref", required=True)
    parser.add_argument("--old-bin", required=True)
    parser.add_argument("--new-bin", required=True)
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--generated", type=int, default=500)
    parser.add_argument("--examples", action="store_true")
    parser.add_argument("--old-seeds", type=int, default=None,
                        help="seeds for the old binary's catch rates (default: --seeds)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        fixed_before = count(old_spec(args.old_ref, tmp))
        fixed_after = count("spec")
        gen_before = generated(args.old_bin, args.seeds, args.generated, tmp)
        gen_after = generated(args.new_bin, args.seeds, args.generated, tmp)
    per = f"{args.generated} per function x {args.seeds} seeds"
    print(f"| corner | fixed before | fixed after | generated before ({per}) | generated after |"
          + (" broken example: seeds caught by generated cases, before / after |" if args.examples else ""))
    print("| --- | ---: | ---: | ---: | ---: |" + (" --- |" if args.examples else ""))
    for corner, examples in EXAMPLES.items():
        row = f"| {corner} | {fixed_before[corner]} | {fixed_after[corner]} | {gen_before[corner]} | {gen_after[corner]} |"
        if args.examples:
            cells = []
            for example in examples:
                old_seeds = args.old_seeds or args.seeds
                old = sum(caught(args.old_bin, example, s, args.generated) for s in range(1, old_seeds + 1))
                new = sum(caught(args.new_bin, example, s, args.generated) for s in range(1, args.seeds + 1))
                cells.append(f"`{example}` {old}/{old_seeds} / {new}/{args.seeds}")
            row += " " + "; ".join(cells) + " |"
        print(row, flush=True)


if __name__ == "__main__":
    sys.exit(main())

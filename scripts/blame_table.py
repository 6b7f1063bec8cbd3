"""Requirements lost per broken example, under the old rule and under RULES D.

Old rule (before RULES D): a requirement is lost when any case tagged with it fails
(the generated entry tagged with the blame of its one counterexample). RULES D: a
requirement is lost unless it is met (no case charged to it, shown kept, by a generated case
too where generated cases exercise it). Both come from the same `parcall check --format
json` run, so they judge the same outcomes. SANDBOX-* and MAY requirements earn nothing in
the default rubric and are left out of both columns.

Run: python3 scripts/blame_table.py [--parcall target/release/parcall] [--fuzz 500]
     [--seeds 1,2,3] [FILES...]   (default: every broken and correct Python example)
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def scored(requirement):
    return not requirement["id"].startswith("SANDBOX-") and requirement["level"] != "MAY"


def run(parcall, path, fuzz, seed):
    out = subprocess.run(
        [parcall, "check", path, "--format", "json", "--fuzz", str(fuzz), "--seed", str(seed),
         "--no-regressions"],
        capture_output=True, text=True, cwd=ROOT)
    if not out.stdout.strip():
        sys.exit(f"{path}: no report: {out.stderr}")
    return json.loads(out.stdout)


def lost(report, spec_ids):
    in_scope = [r for r in report["requirements"] if scored(r)]
    old = set()
    for case in report["cases"]:
        if case["outcome"] != "pass":
            old.update(r for r in case["requirements"] if r in spec_ids)
    new = {r["id"] for r in in_scope if not r["met"]}
    total = len([i for i in spec_ids if spec_ids[i] in report["functions"]])
    return sorted(old), sorted(new), total


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--parcall", default=os.path.join(ROOT, "target/release/parcall"))
    parser.add_argument("--fuzz", type=int, default=500)
    parser.add_argument("--seeds", default="1")
    parser.add_argument("files", nargs="*")
    args = parser.parse_args()
    requirements = json.load(open(os.path.join(ROOT, "spec/requirements.json")))["requirements"]
    spec_ids = {r["id"]: r["function"] for r in requirements if scored(r)}
    files = args.files or sorted(glob.glob(os.path.join(ROOT, "conformance/examples/python/broken/*.py"))) + \
        sorted(glob.glob(os.path.join(ROOT, "conformance/examples/python/solution*.py")))
    seeds = [int(s) for s in args.seeds.split(",")]
    print("| example | declared | lost before | lost after (RULES D) | score after |")
    print("| --- | --- | --- | --- | --- |")
    for path in files:
        text = open(path).read()
        declared = re.search(r"# parcall: breaks (.*)", text)
        declared = declared.group(1).split() if declared else []
        olds, news, scores = set(), set(), []
        for seed in seeds:
            report = run(args.parcall, path, args.fuzz, seed)
            old, new, total = lost(report, spec_ids)
            olds.update(old)
            news.update(new)
            scores.append(100.0 * (total - len(new)) / total)
        name = os.path.basename(path)
        print(f"| {name} | {' '.join(declared) or '-'} | {len(olds)} | {len(news)}: {', '.join(sorted(news)) or '-'} | "
              f"{min(scores):.0f}%{'' if len(seeds) == 1 else ' (lowest of %d seeds)' % len(seeds)} |")


if __name__ == "__main__":
    main()

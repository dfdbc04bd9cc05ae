"""Runs JAX's SparseCore tests on one target (tools/upstream-tests.sh, with
--check-rules) and checks the outcome against docs/jax.md: the counts of its
results table, and that the tests that do not pass are exactly those its table of
failures lists for the target. Exit 0 when they agree, 1 when not, 77 (CTest's
skip) when JAX's test files are not there.

    python tools/upstream/check.py --target v7x
"""

import argparse
import os
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "jax.md"


def documented(target):
    """(counts, failures) docs/jax.md gives for `target`."""
    text = DOC.read_text()
    row = re.search(rf"^\| {target} \| (\d+) \| (\d+) \| (\d+) \| (\d+) \|$", text, re.MULTILINE)
    if row is None:
        sys.exit(f"docs/jax.md has no results row for {target}")
    counts = dict(zip(("passed", "failed", "skipped", "collected"), map(int, row.groups())))
    failures = set()
    for test, targets in re.findall(r"^\| `([A-Za-z_]+::[A-Za-z0-9_]+)` \| ([a-z0-9, ]+) \|", text, re.MULTILINE):
        if target in [t.strip() for t in targets.split(",")]:
            failures.add(test)
    return counts, failures


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--target", required=True)
    args = parser.parse_args()
    upstream = pathlib.Path(os.environ.get("SCJIT_UPSTREAM", ROOT.parent / "shared" / "upstream" / "jax-v0.10.2"))
    if not (upstream / "tests" / "pallas" / "tpu_sparsecore_pallas_test.py").is_file():
        print(f"upstream: JAX's SparseCore tests are not in {upstream}/tests/pallas: skipped")
        return 77
    run = subprocess.run(["bash", str(ROOT / "tools" / "upstream-tests.sh"), "--target", args.target,
                          "--check-rules", "-p", "no:warnings", "--tb=line", "-rf"],
                         capture_output=True, text=True)
    print(run.stdout[-20000:], run.stderr[-5000:], sep="\n")
    summary = run.stdout.strip().splitlines()[-1] if run.stdout.strip() else ""
    got = {k: int(n) for n, k in re.findall(r"(\d+) (passed|failed|skipped)", summary)}
    got.setdefault("failed", 0)
    got["collected"] = sum(got.get(k, 0) for k in ("passed", "failed", "skipped"))
    failed = set(re.findall(r"^FAILED [^:]+::([A-Za-z_]+::[A-Za-z0-9_]+)", run.stdout, re.MULTILINE))
    counts, listed = documented(args.target)
    ok = True
    if failed != listed:
        ok = False
        for t in sorted(failed - listed):
            print(f"upstream: {t} fails on {args.target} and docs/jax.md does not list it")
        for t in sorted(listed - failed):
            print(f"upstream: docs/jax.md lists {t} as failing on {args.target}, but it passes")
    if any(got.get(k, 0) != v for k, v in counts.items()):
        ok = False
        print(f"upstream: {args.target} gave {got}; docs/jax.md says {counts}")
    print(f"upstream {args.target}: {'as documented' if ok else 'NOT as documented'}: {summary}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

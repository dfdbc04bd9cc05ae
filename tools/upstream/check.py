"""Runs JAX's SparseCore tests on one target with one JAX (tools/upstream-tests.sh,
with --check-rules) and checks the outcome against docs/jax.md: the counts of its
results table for that JAX release and target, and that the tests that do not pass
are exactly those its table of failures lists for them. Exit 0 when they agree, 1
when not, 77 (CTest's skip) when JAX's test files are not there. A file the
installed JAX cannot import (pytest's collection error) counts as a failure of
the file's name, which the table of failures must list too.

    python tools/upstream/check.py --target v7x [--python PY]   # PY: .venv's by default
"""

import argparse
import os
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "jax.md"


def documented(jax_version, target):
    """(counts, failures) docs/jax.md gives for `target` under JAX `jax_version`."""
    text = DOC.read_text()
    v = re.escape(jax_version)
    row = re.search(rf"^\| {v} \| [0-9.]+ \| {target} \| (\d+) \| (\d+) \| (\d+) \| (\d+) \|$", text, re.MULTILINE)
    if row is None:
        sys.exit(f"docs/jax.md has no results row for JAX {jax_version} on {target}")
    counts = dict(zip(("passed", "failed", "skipped", "collected"), map(int, row.groups())))
    failures = set()
    # A test (Class::test), or a whole file the installed JAX cannot import (name.py).
    for test, releases, targets in re.findall(
            r"^\| `([A-Za-z_]+::[A-Za-z0-9_]+|[a-z_]+\.py)` \| ([0-9., ]+) \| ([a-z0-9, ]+) \|", text, re.MULTILINE):
        if (jax_version in [r.strip() for r in releases.split(",")]
                and target in [t.strip() for t in targets.split(",")]):
            failures.add(test)
    return counts, failures


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--target", required=True)
    parser.add_argument("--python", default=str(ROOT / ".venv" / "bin" / "python"))
    args = parser.parse_args()
    jax_version = subprocess.run([args.python, "-c", "import jax; print(jax.__version__)"], capture_output=True,
                                 text=True, check=True).stdout.strip()
    sys.path.insert(0, str(pathlib.Path(__file__).parent))
    from files import newest_not_newer  # noqa: PLC0415 - tools/upstream/files.py

    upstream = os.environ.get("SCJIT_UPSTREAM") or newest_not_newer(ROOT.parent / "shared" / "upstream", jax_version)
    if upstream is None or not (pathlib.Path(upstream) / "tests" / "pallas" / "tpu_sparsecore_pallas_test.py").is_file():
        print(f"upstream: JAX's SparseCore tests for JAX {jax_version} are not beside the checkout: skipped")
        return 77
    run = subprocess.run(["bash", str(ROOT / "tools" / "upstream-tests.sh"), "--python", args.python,
                          "--target", args.target, "--check-rules", "-p", "no:warnings", "--tb=line", "-rfE"],
                         capture_output=True, text=True)
    print(run.stdout[-20000:], run.stderr[-5000:], sep="\n")
    summary = run.stdout.strip().splitlines()[-1] if run.stdout.strip() else ""
    got = {k: int(n) for n, k in re.findall(r"(\d+) (passed|failed|skipped)", summary)}
    got.setdefault("failed", 0)
    got["collected"] = sum(got.get(k, 0) for k in ("passed", "failed", "skipped"))
    failed = set(re.findall(r"^FAILED [^:]+::([A-Za-z_]+::[A-Za-z0-9_]+)", run.stdout, re.MULTILINE))
    # A file that cannot be imported: pytest's "ERROR tests/pallas/name.py" (its tests are not collected).
    failed |= set(re.findall(r"^ERROR \S*/([a-z_]+\.py)\b", run.stdout, re.MULTILINE))
    counts, listed = documented(jax_version, args.target)
    ok = True
    if failed != listed:
        ok = False
        for t in sorted(failed - listed):
            print(f"upstream: {t} fails on {args.target} with JAX {jax_version} and docs/jax.md does not list it")
        for t in sorted(listed - failed):
            print(f"upstream: docs/jax.md lists {t} as failing on {args.target} with JAX {jax_version}, but it passes")
    if any(got.get(k, 0) != v for k, v in counts.items()):
        ok = False
        print(f"upstream: {args.target} with JAX {jax_version} gave {got}; docs/jax.md says {counts}")
    print(f"upstream {args.target}, JAX {jax_version}: {'as documented' if ok else 'NOT as documented'}: {summary}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Shrinks a kernel `differential` reports, keeping the mismatch.

  tests/fuzz/minimize.py build/tests/differential seed-9.scir --input-seed 9 \
      --configs O2,O0 > small.scir

Deletes body lines, and whole regions (a line ending in `{` to its `}`), while
`differential --kernel` still prints `MISMATCH A vs B` (the compiler still
accepting the kernel and the first config still running it without a finding),
until no deletion keeps it. What remains is usually a few
ops; finish by hand (unused parameters, constants). A kernel with partial
writes keeps its `// differential: partial writes` line, so that its RT-INIT
findings stay accepted while the mismatch is a difference in findings.
"""
import argparse
import os
import subprocess
import sys
import tempfile


def mismatches(binary, text, seed, configs):
    with tempfile.NamedTemporaryFile("w", suffix=".scir", delete=False) as f:
        f.write(text)
    try:
        out = subprocess.run([binary, "--kernel", f.name, "--input-seed", str(seed), "--configs", configs],
                             capture_output=True, text=True, timeout=120).stdout
    except subprocess.TimeoutExpired:
        return False
    finally:
        os.unlink(f.name)
    a, b = configs.split(",")[:2]
    return f"MISMATCH {a} vs {b}" in out and "REJECTED" not in out and "FINDINGS" not in out


def region_end(lines, i):
    depth = 0
    for j in range(i, len(lines)):
        depth += lines[j].count("{") - lines[j].count("}")
        if depth <= 0:
            return j
    return i


def main():
    p = argparse.ArgumentParser()
    p.add_argument("binary")
    p.add_argument("kernel")
    p.add_argument("--input-seed", type=int, default=1)
    p.add_argument("--configs", default="O2,O0")
    args = p.parse_args()
    # (The report's comments go; `// differential: ...` lines, which say what
    # the kernel may find, stay.)
    lines = [l for l in open(args.kernel).read().split("\n")
             if not l.startswith("//") or l.startswith("// differential:")]
    body = lines.index("{") + 1
    if not mismatches(args.binary, "\n".join(lines), args.input_seed, args.configs):
        sys.exit("minimize: the kernel does not mismatch to begin with")
    changed = True
    while changed:
        changed = False
        i = len(lines) - 2
        while i >= body:
            end = region_end(lines, i) if lines[i].rstrip().endswith("{") else i
            if lines[i].strip() in ("}", "} else {") or lines[i].strip().startswith("} body"):
                i -= 1
                continue
            trial = lines[:i] + lines[end + 1:]
            if mismatches(args.binary, "\n".join(trial), args.input_seed, args.configs):
                lines = trial
                changed = True
            i -= 1
    print("\n".join(lines))


if __name__ == "__main__":
    main()

"""examples/jax/: Pallas programs that run on the CPU through scjit.jax, on an 8-
and a 16-lane target (each checks its own results and exits non-zero if wrong)."""

import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples" / "jax").glob("*.py"))


@pytest.mark.parametrize("target", ["v6e", "v7x"])
@pytest.mark.parametrize("example", EXAMPLES, ids=[e.name for e in EXAMPLES])
def test_example_runs(example, target):
    run = subprocess.run([sys.executable, str(example), "--target", target], capture_output=True, text=True,
                         env=os.environ, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "ok" in run.stdout


def test_there_are_examples():
    assert EXAMPLES

"""The numpy code of docs/jit-run.md ("Recomputing inputs in numpy") gives, bit for
bit, the arrays jit-run's generators give, as `jit-run --save-inputs` writes them.

The code is taken from the page itself, so the page cannot drift from jit-run.
"""

import os
import pathlib
import re
import subprocess

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
JIT_RUN = os.environ.get("SCJIT_JIT_RUN", str(ROOT / "build" / "jit-run"))

# .scir element type -> numpy dtype name as docs/jit-run.md's generate() takes it.
DTYPES = {"i8": "int8", "i16": "int16", "i32": "int32", "u8": "uint8", "u16": "uint16",
          "u32": "uint32", "bf16": "bfloat16", "f16": "float16", "f32": "float32"}
SHAPE = (5, 41)


def page_code():
    text = (ROOT / "docs" / "jit-run.md").read_text()
    section = text[text.index("### Recomputing inputs in numpy"):]
    match = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert match, "docs/jit-run.md has no python block under 'Recomputing inputs in numpy'"
    namespace = {}
    exec(compile(match.group(1), "docs/jit-run.md", "exec"), namespace)
    return namespace


GENERATE = page_code()["generate"]


def specs_for(elt):
    specs = ["zeros", "ones", "iota", "random", "random:7", "fill:3", "fill:-0", "randint:0:7:3"]
    if elt.startswith("u"):
        specs += ["randint:1:255", "fill:200"]
    elif elt in ("bf16", "f16", "f32"):
        specs += ["randint:-1000:70000:9", "fill:1e-3", "fill:-inf", "fill:nan", "fill:65520", "fill:1e-8"]
    else:
        specs += ["randint:-100:100:5", "fill:-7"]
    if elt in ("bf16", "f16", "f32"):
        # A range of about 2^64 / 3, where a third of all draws are skipped (the redraw
        # rule), and one below zero.
        specs += ["randint:0:6148914691236517206:11", "randint:-6148914691236517206:1:2"]
    return specs


CASES = [(elt, spec) for elt in DTYPES for spec in specs_for(elt)]


@pytest.mark.parametrize("elt,spec", CASES, ids=[f"{e}-{s}" for e, s in CASES])
def test_numpy_recomputes_the_generator(tmp_path, elt, spec):
    kernel = tmp_path / "k.scir"
    kernel.write_text(f"kernel @k(in %p: hbm<{SHAPE[0]}x{SHAPE[1]}x{elt}>)\n"
                      "    mesh vector(cores = 1, subcores = 1)\n{\n}\n")
    saved = tmp_path / "saved"
    proc = subprocess.run([JIT_RUN, str(kernel), "--in", f"p={spec}", "--save-inputs", str(saved)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    got = np.load(saved / "p.npy")
    want = GENERATE(spec, DTYPES[elt], SHAPE)
    assert got.shape == SHAPE
    got_bits = got.view(f"u{got.dtype.itemsize}")
    want_bits = np.asarray(want).view(f"u{np.asarray(want).dtype.itemsize}").reshape(SHAPE)
    np.testing.assert_array_equal(got_bits, want_bits)

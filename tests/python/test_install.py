"""The scjit package the build stages (build/python) installs with pip and works
from where it was installed, as a user's environment would have it."""

import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
STAGE = pathlib.Path(os.environ.get("SCJIT_PYTHON_STAGE", ROOT / "build" / "python"))


def test_pip_installs_the_staged_package(tmp_path):
    target = tmp_path / "site"
    pip = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                          "--target", str(target), str(STAGE)], capture_output=True, text=True, timeout=300)
    assert pip.returncode == 0, pip.stdout + pip.stderr
    assert sorted(p.name for p in (target / "scjit").glob("_scjit*.so"))
    program = ("import numpy as np, scjit; k = scjit.compile(%r); "
               "print(scjit.__file__); print(k(np.arange(32 * 1024, dtype=np.int32).reshape(32, 1024))[31, -1])"
               % str(ROOT / "examples" / "add_one_manual.scir"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(target)
    run = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=env, cwd=tmp_path,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    where, last = run.stdout.split()
    assert pathlib.Path(where).is_relative_to(target)
    assert int(last) == 32 * 1024

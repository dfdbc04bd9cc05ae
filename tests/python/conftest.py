"""Puts the repository's python/ directory on sys.path, so that the tests import the
scjit package of this checkout (scjit.jax) without installing it."""

import pathlib
import sys

PYTHON_DIR = pathlib.Path(__file__).resolve().parents[2] / "python"
if str(PYTHON_DIR) not in sys.path:
  sys.path.insert(0, str(PYTHON_DIR))

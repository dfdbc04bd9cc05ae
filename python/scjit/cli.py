"""The `jit-run` command of a pip-installed scjit: runs the jit-run program the
package carries (scjit/bin/jit-run), with the same arguments, exit status and
output (docs/jit-run.md)."""

from __future__ import annotations

import os
import pathlib
import sys

PROGRAM = pathlib.Path(__file__).resolve().parent / "bin" / "jit-run"


def main() -> int:
    if not os.access(PROGRAM, os.X_OK):
        print(f"jit-run: the program {PROGRAM} is missing from this scjit installation; reinstall scjit",
              file=sys.stderr)
        return 2
    # exec: signals, exit status and MPI (mpirun -n 2 jit-run ...) reach the program itself.
    os.execv(PROGRAM, [str(PROGRAM), *sys.argv[1:]])
    return 0  # not reached


if __name__ == "__main__":
    sys.exit(main())

"""Prints the folder of JAX's test files for a JAX release: the newest
`jax-vX.Y.Z` folder under UPSTREAM whose release is not newer than JAX's
(nothing when there is none).

    python tools/upstream/files.py ../shared/upstream 0.12.1   # .../jax-v0.11.0
"""

import pathlib
import re
import sys


def release(text):
    m = re.match(r"v?(\d+)\.(\d+)\.(\d+)", text)
    return tuple(int(x) for x in m.groups()) if m else None


def newest_not_newer(upstream, jax_version):
    wanted = release(jax_version)
    found = []
    for d in pathlib.Path(upstream).glob("jax-v*"):
        r = release(d.name[len("jax-"):])
        if r is not None and wanted is not None and r <= wanted:
            found.append((r, d))
    return max(found)[1] if found else None


if __name__ == "__main__":
    folder = newest_not_newer(sys.argv[1], sys.argv[2])
    if folder is not None:
        print(folder.resolve())

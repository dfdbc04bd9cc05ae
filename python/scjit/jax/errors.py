"""The error scjit.jax raises when a Pallas kernel uses something scjit lacks."""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Location:
    """A place in the user's Python source: file, line and column (from 1)."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"

    def scir(self) -> str:
        """The `.scir` suffix that records this location on an op."""
        path = self.file.replace("\\", "\\\\").replace('"', '\\"')
        return f' loc("{path}":{self.line}:{self.col})'


class ExportError(Exception):
    """A kernel cannot be written as `.scir`: a primitive, dtype, memory space or
    form that scjit does not have.

    Attributes:
      reason: what is missing, in words.
      primitive: the jaxpr primitive being exported, or None.
      location: the user's Python line that bound it (a `Location`), or None.
    """

    def __init__(self, reason: str, *, primitive: str | None = None,
                 location: Location | None = None):
        self.reason = reason
        self.primitive = primitive
        self.location = location
        where = f"{location}: " if location is not None else ""
        what = f"cannot export `{primitive}`: " if primitive is not None else ""
        super().__init__(f"{where}{what}{reason}")

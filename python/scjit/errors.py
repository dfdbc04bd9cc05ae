"""scjit's exceptions. Each carries the diagnostics behind it: the first one's
code, file, line, column, message, notes and help as attributes, all of them in
`diagnostics`, and their rendering (what jit-run prints) as its text.
"""

from __future__ import annotations

import warnings


class Error(Exception):
    """Base of scjit's errors.

    Attributes:
      code: the diagnostic code ("SWAP-5", "IR-SYNTAX", "RT-BOUNDS", "IO-DTYPE"),
        or absl's status code name when no diagnostic says more.
      file, line, column: where (the user's Python file for kernels made by
        scjit.jax.export); "" and 0 when not about a place.
      message, notes, help: the first diagnostic's text.
      diagnostics: every diagnostic (scjit._scjit.Diagnostic values).
    """

    def __init__(self, message: str, diagnostics=(), code: str = ""):
        self.diagnostics = list(diagnostics)
        first = self.diagnostics[0] if self.diagnostics else None
        self.code = first.code if first else code
        self.file = first.file if first else ""
        self.line = first.line if first else 0
        self.column = first.column if first else 0
        self.message = first.message if first else message
        self.notes = list(first.notes) if first else []
        self.help = first.help if first else ""
        text = "".join(d.render() for d in self.diagnostics).rstrip("\n") or message
        super().__init__(text)


class CompileError(Error):
    """The kernel was rejected: a parse or type error (IR-*), or an SC lowering
    rule (its catalog ID; `exception` of the diagnostic is the Python exception
    type Pallas raises for it)."""


class InputError(Error, ValueError):
    """A bad argument: a file that cannot be read, an array of the wrong dtype or
    shape, a parameter missing or unknown, an option's bad value (IO-* codes)."""


class InputTypeError(InputError, TypeError):
    """An argument of the wrong type (`opt_level="x"`, `explain(5)`): an
    InputError (IO-USAGE) that is also a TypeError, the class Python's own
    functions raise for one, so that either `except` catches it."""


class UnsupportedError(Error, NotImplementedError):
    """Something scjit does not implement yet (it says what)."""


class RunError(Error):
    """The kernel ran and a check failed (RT-* findings).

    Attributes:
      findings: every finding of the launch (errors and warnings).
      result: the LaunchResult, with the outputs as far as they got.
    """

    def __init__(self, findings, result=None):
        errors = [f for f in findings if f.severity == "error"]
        super().__init__("the kernel failed a run-time check", errors or findings)
        self.findings = list(findings)
        self.result = result


class RunWarning(UserWarning):
    """A run-time check's warning (an RT-* finding of severity warning), such as
    RT-INIT's "values computed from bytes nothing had written reach an output".
    Raised with `warnings.warn`, so the usual filters apply: `"error"` turns it
    into an exception, `"ignore"` silences it. Ask for `checks="strict"` to
    make these findings errors of the launch instead.

    Attributes: code, file, line, column, message, notes, help (the
    finding's) and diagnostic (the finding itself).
    """

    def __init__(self, diagnostic):
        super().__init__(diagnostic.render().rstrip("\n"))
        self.diagnostic = diagnostic
        self.code = diagnostic.code
        self.file = diagnostic.file
        self.line = diagnostic.line
        self.column = diagnostic.column
        self.message = diagnostic.message
        self.notes = list(diagnostic.notes)
        self.help = diagnostic.help


def warn_findings(findings, stacklevel: int = 2) -> None:
    """Issues a RunWarning for each finding of severity warning."""
    for finding in findings:
        if finding.severity == "warning":
            warnings.warn(RunWarning(finding), stacklevel=stacklevel + 1)


def from_failure(failure) -> Error:
    """The exception for a failed call of the extension module (a Failure: absl's
    status code name, its message and the diagnostics it carries)."""
    diagnostics = list(failure.diagnostics)
    if failure.code == "UNIMPLEMENTED":
        return UnsupportedError(failure.message, diagnostics, failure.code)
    if diagnostics and diagnostics[0].code.startswith("IO-"):
        return InputError(failure.message, diagnostics)
    if diagnostics:
        return CompileError(failure.message, diagnostics)
    if failure.code in ("INVALID_ARGUMENT", "NOT_FOUND"):
        return InputError(failure.message, code=failure.code)
    return Error(failure.message, code=failure.code)

"""Checks of the arguments of scjit's Python API, made before they reach the
extension module: a mistake is an scjit.InputError (IO-USAGE) naming the
argument and what it takes, and for a value of the wrong type an
InputTypeError (also a TypeError), never pybind11's TypeError or an
OverflowError of a conversion to C++ (docs/python.md, "Errors").

Each checker returns the value as the extension takes it; the generic ones
(string, integer, ...) take the argument's name too, as the caller wrote it.
"""

from __future__ import annotations

import math
import numbers
import os
from typing import Any, Callable

from scjit import _scjit
from scjit.errors import InputError, InputTypeError

# A launch's time limit when none is given (seconds): the library's, as
# jit-run's --time-limit default is.
DEFAULT_TIME_LIMIT = float(_scjit.default_time_limit)

# A launch's most host threads (the library's kMaxLaunchThreads): the launch refuses more (IO-USAGE), but
# only once it runs; checked here so that scjit.jax's options fail where given.
MAX_THREADS = int(_scjit.max_threads)
_UINT64_MAX = 2**64 - 1
_SECONDS = "a number of seconds, 0 or more (0 or float('inf'): no limit)"


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def wrong_type(name: str, expected: str, value: Any) -> InputTypeError:
    return InputTypeError(f"{name} must be {expected}, got {_shown(value)} ({type(value).__name__})",
                          code="IO-USAGE")


def bad_value(name: str, expected: str, value: Any) -> InputError:
    return InputError(f"{name} must be {expected}, got {_shown(value)}", code="IO-USAGE")


def string(name: str, value: Any, *, none: bool = False) -> str | None:
    """A str (or None when `none`)."""
    if value is None and none:
        return None
    if not isinstance(value, str):
        raise wrong_type(name, "a str or None" if none else "a str", value)
    return value


def path(name: str, value: Any) -> str | None:
    """A path (str or os.PathLike) or None, as a str."""
    if value is None:
        return None
    text = os.fspath(value) if isinstance(value, (str, os.PathLike)) else None
    if not isinstance(text, str):  # bytes paths too: the library takes text
        raise wrong_type(name, "a path (str or os.PathLike) or None", value)
    return text


def integer(name: str, value: Any, lo: int, hi: int, expected: str) -> int:
    """An int (numpy's too) in [lo, hi]. A bool is refused: True is no count."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise wrong_type(name, expected, value)
    if not lo <= int(value) <= hi:
        raise bad_value(name, expected, value)
    return int(value)


def devices(value: Any) -> str:
    """compile's `devices` as the library takes it: "" for the file's mesh, a
    count or "y=2,x=4" (which the library judges: a bad one is its IO-USAGE)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise wrong_type("devices", "a count of devices (4), a str naming each axis and its size ('y=2,x=4'), "
                         "or None", value)
    return str(int(value))


def flag(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise wrong_type(name, "True or False", value)
    return value


def choice(name: str, value: Any, choices: tuple[str, ...], expected: str) -> str:
    """One of the strings `choices`."""
    if not isinstance(value, str):
        raise wrong_type(name, expected, value)
    if value not in choices:
        raise bad_value(name, expected, value)
    return value


def threads(value: Any) -> int:
    return integer("threads", value, 0, MAX_THREADS, f"an int from 0 (the host's cores) to {MAX_THREADS}")


def seed(value: Any) -> int:
    return integer("seed", value, 0, _UINT64_MAX, "an int from 0 to 2**64 - 1, or None (the fixed order)")


def dma(value: Any) -> str:
    return choice("dma", value, ("eager", "on_wait"), "'eager', 'on_wait' or None (on_wait when checked)")


def checks(value: Any) -> str:
    # The value itself ("all", "bounds,sync", ...) is the library's to judge:
    # a bad one is its IO-USAGE, at the compile or the launch.
    return string("checks", value)


def time_limit(value: Any) -> float:
    """Seconds, as the launch takes them: 0 for no limit, which inf means too
    (the launch would count to an infinite deadline)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise wrong_type("time_limit", _SECONDS, value)
    seconds = float(value)
    if math.isnan(seconds) or seconds < 0:
        raise bad_value("time_limit", _SECONDS, value)
    return 0.0 if math.isinf(seconds) else seconds


def log(value: Any) -> Callable[[str], Any]:
    if not callable(value):
        raise wrong_type("log", "a callable taking a str (debug_print's output), or None", value)
    return value


_LAUNCH_OPTIONS = dict(threads=threads, seed=seed, dma=dma, checks=checks, time_limit=time_limit, log=log)


def launch_options(**given: Any) -> dict[str, Any]:
    """The launch options given (threads, seed, dma, checks, time_limit, log),
    checked, without those that are None (not given)."""
    return {name: _LAUNCH_OPTIONS[name](value) for name, value in given.items() if value is not None}

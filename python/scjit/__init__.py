"""scjit: run TPU SparseCore kernels on a CPU.

    import numpy as np, scjit
    k = scjit.compile("examples/add_one_manual.scir")
    o = k(x=np.arange(32 * 1024, dtype=np.int32).reshape(32, 1024))   # x + 1

A kernel is written in scjit's Kernel IR (.scir, docs/language.md), or traced
from a Pallas SparseCore kernel by scjit.jax (docs/jax.md). `compile` checks it
against Pallas' SparseCore lowering rules and compiles it to host code; calling
the kernel runs it on the emulated SparseCore with numpy arrays (bfloat16 as
ml_dtypes.bfloat16) and returns its outputs. Errors are exceptions carrying
their diagnostics (scjit.errors).

Thread safety: compiling and launching from several threads is safe (the GIL
is released while kernels compile and run); do not pass one output array to two
launches at once.
"""

from __future__ import annotations

import dataclasses
import math
import os
import sys
from typing import Any, Callable, Mapping, Sequence

import ml_dtypes
import numpy as np

from scjit import _args, _scjit
from scjit.errors import (CompileError, Error, InputError, InputTypeError, RunError, RunWarning, UnsupportedError,
                          from_failure, warn_findings)

__all__ = ["compile", "explain", "targets", "describe_target", "Kernel", "Param", "LaunchResult", "Error",
           "CompileError", "InputError", "InputTypeError", "RunError", "RunWarning", "UnsupportedError",
           "__version__"]
__version__ = _scjit.version

_COMPILER = _scjit.Compiler()  # thread-safe; its memory cache serves the process


def _numpy_dtype(name: str) -> np.dtype:
    """numpy's dtype for a dtype name of the extension (numpy's own names, and
    ml_dtypes' bfloat16, float8, int4 and uint4 types, which numpy knows once ml_dtypes is
    imported)."""
    return np.dtype(getattr(ml_dtypes, name, name))


def _check(result):
    """The value of an extension call, or its failure raised as scjit's error."""
    if isinstance(result, _scjit.Failure):
        raise from_failure(result)
    return result


@dataclasses.dataclass(frozen=True)
class Param:
    """A kernel parameter: name (without '%'), direction ("in", "out", "inout"),
    numpy dtype, shape, memory space ("hbm", "vmem", ...), its .scir type, and
    for semaphores `semaphore=True` (their array is int32, one count per
    semaphore)."""

    name: str
    direction: str
    dtype: np.dtype
    shape: tuple[int, ...]
    space: str
    type: str
    semaphore: bool = False


@dataclasses.dataclass
class LaunchResult:
    """One launch: the outputs (name -> array, for out and inout parameters), the
    statistics (wall_ms, dma_bytes, ops, ops_by_class, per_subcore, subcores,
    threads, epochs) and the run-time findings (warnings, or errors when the
    launch failed)."""

    outputs: dict[str, np.ndarray]
    stats: Any
    findings: list

    @property
    def failed(self) -> bool:
        return any(f.severity == "error" for f in self.findings)


@dataclasses.dataclass(frozen=True)
class _LaunchOptions:
    threads: int = 0            # 0: the host's cores
    seed: int | None = None     # None: the fixed (core, subcore) order
    dma: str | None = None      # "eager" | "on_wait"; None: on_wait when checked
    checks: str | None = None   # "all" | "none" | "warn" | "strict" | "bounds,init,race,sync"; None: as compiled
    time_limit: float = _args.DEFAULT_TIME_LIMIT  # seconds (600); 0 or float("inf"): none
    log: Callable[[str], Any] | None = None  # debug_print output; None: sys.stderr


class Kernel:
    """A compiled kernel. Call it with one array per `in`/`inout` parameter, by
    position or by name, to run it and get its outputs; `launch` gives the whole
    result; `with_options` sets launch options."""

    def __init__(self, compiled, options: _LaunchOptions = _LaunchOptions()):
        self._compiled = compiled
        self._options = options
        self.params = [
            Param(p.name, p.direction, _numpy_dtype(p.dtype), tuple(p.shape), p.space, p.type, p.semaphore)
            for p in compiled.params
        ]

    name = property(lambda self: self._compiled.name)
    target = property(lambda self: self._compiled.target)
    mesh = property(lambda self: self._compiled.mesh)            # "vector" | "scalar"
    cores = property(lambda self: self._compiled.cores)
    subcores = property(lambda self: self._compiled.subcores)    # per core
    devices = property(lambda self: self._compiled.devices)      # chips of its device mesh (1 without one)
    times = property(lambda self: self._compiled.times)          # compile times (ms), cache_hit
    warnings = property(lambda self: list(self._compiled.warnings))

    @property
    def inputs(self) -> list[Param]:
        return [p for p in self.params if p.direction != "out"]

    @property
    def outputs(self) -> list[Param]:
        return [p for p in self.params if p.direction != "in"]

    def with_options(self, *, threads: int | None = None, seed: int | None = None, dma: str | None = None,
                     checks: str | None = None, time_limit: float | None = None,
                     log: Callable[[str], Any] | None = None) -> "Kernel":
        """The same kernel launching with these options (the others unchanged).
        Raises InputError (IO-USAGE) for a bad value, InputTypeError for a value
        of the wrong type."""
        given = _args.launch_options(threads=threads, seed=seed, dma=dma, checks=checks, time_limit=time_limit,
                                     log=log)
        return Kernel(self._compiled, dataclasses.replace(self._options, **given))

    def __call__(self, *args, **kwargs):
        """Runs the kernel; returns its output array, or a tuple of them in
        parameter order. Raises RunError when a run-time check fails."""
        outputs = list(self.launch(*args, **kwargs).outputs.values())
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def launch(self, *args, **kwargs) -> LaunchResult:
        """Runs the kernel on the arrays given by position (in/inout parameters in
        order) or by name; returns the LaunchResult. Raises InputError for a
        missing, unknown or mismatched array and RunError when a check fails
        (with `checks="warn"` findings are warnings and the launch goes on)."""
        arrays = self._bind(args, kwargs)
        o = self._options
        log = o.log if o.log is not None else sys.stderr.write
        refs = [_scjit.ArrayRef(a.ctypes.data, a.nbytes, a.dtype.name, a.shape) for a in arrays]
        result = _check(self._compiled.launch(refs, o.threads, o.seed, o.dma or "", o.checks or "",
                                              o.time_limit, log))
        outputs = {p.name: arrays[i] for i, p in enumerate(self.params) if p.direction != "in"}
        launch = LaunchResult(outputs, result.stats, list(result.findings))
        if result.failed():
            raise RunError(launch.findings, launch)
        warn_findings(launch.findings, stacklevel=2)
        return launch

    def _bind(self, args: Sequence[Any], kwargs: Mapping[str, Any]) -> list:
        """One array per parameter, as the launch binds them: the inputs given
        (or copies of them, _needs_copy) and new output arrays."""
        given = self._given(args, kwargs)
        inputs = [None if p.direction == "out" else _as_array(p, given[p.name]) for p in self.params]
        self._check_host_memory(inputs)
        return [_launch_array(p, a) for p, a in zip(self.params, inputs)]

    def _given(self, args: Sequence[Any], kwargs: Mapping[str, Any]) -> dict[str, Any]:
        """The value given for each in/inout parameter, by name."""
        inputs = self.inputs
        if len(args) > len(inputs):
            raise InputError(f"@{self.name} takes {len(inputs)} input array(s), got {len(args)}", code="IO-PARAM")
        given = {p.name: a for p, a in zip(inputs, args)}
        for name, value in kwargs.items():
            name = name.lstrip("%")
            param = next((p for p in self.params if p.name == name), None)
            if param is None or param.direction == "out":
                what = "an output" if param is not None and param.direction == "out" else "no input"
                raise InputError(f"@{self.name} has {what} parameter named '{name}'; its inputs are "
                                 + ", ".join(f"%{p.name}" for p in inputs), code="IO-PARAM")
            if name in given:
                raise InputError(f"%{name} is given twice", code="IO-PARAM")
            given[name] = value
        missing = [p.name for p in inputs if p.name not in given]
        if missing:
            raise InputError(f"@{self.name} needs an array for " + ", ".join(f"%{m}" for m in missing),
                             code="IO-PARAM")
        return given

    def _check_host_memory(self, inputs: list) -> None:
        """IO-MEMORY, as jit-run's, when the arrays the launch would allocate
        (outputs, and copies of inputs) exceed the host's memory: refused
        before any is allocated, rather than left to the out-of-memory killer
        once the launch writes them (numpy's pages are taken when written)."""
        total = sum(_bytes(p) for p, a in zip(self.params, inputs) if a is None or _needs_copy(p, a))
        host = _scjit.host_memory_bytes()
        if total > host:
            raise InputError(f"cannot allocate {total} bytes for the outputs and input copies of kernel "
                             f"@{self.name}: the host has {host} bytes of memory", code="IO-MEMORY")


def _as_array(p: Param, value: Any) -> np.ndarray:
    """The value given for in/inout parameter `p` as a numpy array, not copied:
    arrays (and objects with __array__, such as JAX's) as they are, Python
    scalars and lists in p's dtype."""
    try:
        if isinstance(value, np.ndarray):
            return value
        if hasattr(value, "__array__"):
            return np.asarray(value)
        return np.asarray(value, dtype=p.dtype)
    except (TypeError, ValueError, OverflowError) as e:  # ["a"], [2**70], ragged lists, None
        raise InputError(f"%{p.name} ({p.type}) takes an array of {p.dtype} {p.shape}; the value given is not "
                         f"one: {e}", code="IO-DTYPE") from None


def _native(dtype: np.dtype) -> np.dtype:
    # ">i4" holds the same ints as "<i4", in the other byte order.
    return dtype if dtype.isnative else dtype.newbyteorder("=")


def _needs_copy(p: Param, a: np.ndarray) -> bool:
    """Whether the launch binds a copy of `a` rather than its memory: for an
    inout parameter (the copy is its output: the caller's array is never
    written), and for an array not C-contiguous, read-only or in the other byte
    order (the kernel reads native bytes). Never for an array whose dtype or
    shape is not p's: the launch refuses it (IO-DTYPE, IO-SHAPE) without
    reading it, and it may be huge (a broadcast view)."""
    if a.shape != p.shape or _native(a.dtype) != p.dtype:
        return False
    return p.direction == "inout" or not (a.flags.c_contiguous and a.flags.writeable and a.dtype.isnative)


def _launch_array(p: Param, a: np.ndarray | None) -> np.ndarray:
    """The array the launch binds to `p`: `a`, a native C-contiguous copy of
    it, or for an out parameter (`a` None) a new array."""
    try:
        if a is None:
            return np.empty(p.shape, p.dtype)
        return a.astype(p.dtype, order="C", copy=True) if _needs_copy(p, a) else a
    except MemoryError as e:  # less free memory than the host has
        raise InputError(f"cannot allocate {_bytes(p)} bytes for %{p.name} ({p.type}): {e}",
                         code="IO-MEMORY") from None


def _bytes(p: Param) -> int:
    return math.prod(p.shape) * p.dtype.itemsize


def compile(source: str | os.PathLike, kernel: str | None = None, target: str | None = None, opt_level: int = 2,
            checks: str = "all", cache_dir: str | os.PathLike | None = None, engine: str = "jit",
            devices: int | str | None = None, jax: str | None = None) -> Kernel:
    """Compiles one kernel of a .scir file (a path) or of .scir text.

    Args:
      source: a path to a .scir file, or the .scir text itself.
      kernel: the kernel's name ("@add_one" or "add_one"); None: the only one.
      target: "v5p", "v6e", "v7x", "v8i" or "v8t"; None: the file's `target`,
        else v7x.
      opt_level: LLVM optimization level, 0-3.
      checks: the run-time checks compiled in and used by default: "all",
        "none", "warn" (all, findings as warnings), "strict" (all, values
        computed from unwritten bytes in an output an error, not a
        RunWarning), or a comma list of "bounds", "init", "race", "sync",
        "strict" (docs/runtime.md).
      cache_dir: a directory for the disk cache of compiled kernels
        (default: $SCJIT_CACHE_DIR, else memory only).
      engine: what runs the kernel: "jit" (LLVM's ORC JIT) or "interp" (the
        interpreter of the verified IR, the JIT's reference: the same results,
        slower; docs/interpreter.md).
      devices: the device mesh, overriding the kernel's `devices` clause: a
        count (4) resizes its one device axis, "y=2,x=4" names every axis and
        its size; None: the file's.
      jax: the JAX release whose words the SC rules' messages use, "0.10.2" to
        "0.12.1" (docs/jax.md, "Versions"); None: 0.10.2's.
    Raises:
      CompileError (the kernel is rejected), InputError (a file that cannot be
      read, a bad option; InputTypeError for an argument of the wrong type),
      UnsupportedError.
    """
    kernel = _args.string("kernel", kernel, none=True)
    target = _target(target)
    opt_level = _args.integer("opt_level", opt_level, 0, 3, "an int from 0 to 3")
    checks = _args.checks(checks)
    cache_dir = _args.path("cache_dir", cache_dir)
    engine = _args.string("engine", engine)
    devices = _args.devices(devices)
    jax = _args.string("jax", jax, none=True)
    name, text = _source(source)
    if cache_dir is None:
        cache_dir = os.environ.get("SCJIT_CACHE_DIR", "")
    compiled = _check(_COMPILER.compile(name, text, kernel or "", target or "", opt_level, checks, cache_dir, engine,
                                        devices, jax or ""))
    return Kernel(compiled)


def _source(source: Any) -> tuple[str, str]:
    """(name, text) of compile's `source`: a .scir file's path and text, or
    ("<string>", the .scir text)."""
    if isinstance(source, os.PathLike) or (isinstance(source, str) and _looks_like_path(source)):
        return _check(_scjit.read_source(_args.path("source", source)))
    if not isinstance(source, str):  # bytes too: neither a path nor text scjit would guess the encoding of
        raise _args.wrong_type("source", "a path (str or os.PathLike) to a .scir file, or .scir text (str)", source)
    return "<string>", source


def _looks_like_path(s: str) -> bool:
    # .scir text always holds a kernel, with spaces and braces; a path has neither
    # a newline nor a '{'.
    return "\n" not in s and "{" not in s


def _target(name: Any) -> str | None:
    """A target's name, or None."""
    name = _args.string("target", name, none=True)
    if name is not None and not any(t["name"] == name for t in targets()):
        raise _unknown_target(name)
    return name


def _unknown_target(name: str) -> InputError:
    return InputError(f"unknown target '{name}'; expected one of " + ", ".join(t["name"] for t in targets()),
                      code="IO-USAGE")


def explain(code: str) -> str:
    """The long explanation of a diagnostic code (any case), with a failing and a
    fixed example: what `jit-run --explain CODE` prints. An unknown code is
    InputError IO-USAGE, as it is jit-run's usage error."""
    text = _scjit.explain(_args.string("code", code))
    if isinstance(text, _scjit.Failure):
        raise InputError(text.message, code="IO-USAGE")
    return text


def targets() -> list[dict]:
    """Every target chip: name, cores, subcores, lanes, vmem_bytes,
    dma_granule_bytes, smem_bytes, vmem_shared_bytes, semaphores, in_jax."""
    return list(_scjit.targets())


def describe_target(name: str) -> str:
    """What `jit-run --target-info NAME` prints."""
    text = _scjit.describe_target(_args.string("name", name))
    if text is None:
        raise _unknown_target(name)
    return text

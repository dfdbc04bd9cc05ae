"""JAX's own SparseCore lowering as the oracle of scjit's rules.

Off a TPU, under an abstract TPU mesh, JAX runs its Mosaic SparseCore lowering
(the Python side that checks every rule) on the CPU. `compare` lowers one
kernel both ways — through JAX for the TPU, and through scjit's export and
rules — and says whether they agree: both accept it, or both reject it with the
same exception type and message.

    with scjit.jax.sparsecore("v7x", check_rules=True):
        jax.jit(f)(x)       # every SparseCore kernel is checked against JAX first

Kernels scjit cannot express (scjit.jax.ExportError) are not compared, nor
kernels whose lowering JAX's rules accept but whose Mosaic module the installed
jaxlib then fails to serialize for libtpu (the serializer is compiled code that
a newer libtpu and jaxlib change, not a rule of the lowering).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Sequence

import jax

import scjit

from .errors import ExportError
from .export import kernel_from_params
from . import internals
from .internals import mpmd, state_types
from .tpu import abstract_tpu


@dataclasses.dataclass(frozen=True)
class Verdict:
    """What a lowering said of a kernel: accepted, or the exception type and
    message it rejected it with."""

    accepted: bool
    exception: str = ""
    message: str = ""

    def __str__(self) -> str:
        return "accepted" if self.accepted else f"{self.exception}: {self.message}"


class RulesDisagreementError(AssertionError):
    """scjit's rules and JAX's lowering disagree about a kernel."""

    def __init__(self, jax_verdict: Verdict, scjit_verdict: Verdict, where: str):
        self.jax_verdict, self.scjit_verdict = jax_verdict, scjit_verdict
        super().__init__(f"scjit's SparseCore rules disagree with JAX's lowering about the kernel at {where}:\n"
                         f"  JAX:   {jax_verdict}\n  scjit: {scjit_verdict}")


def _struct(aval: Any) -> jax.ShapeDtypeStruct:
    aval = getattr(aval, "inner_aval", aval)
    return jax.ShapeDtypeStruct(aval.shape, aval.dtype)


def jax_verdict(params: dict, in_avals: Sequence[Any], target: str,
                devices: Sequence[tuple[Any, int]] = ()) -> Verdict | None:
    """Lowers the mpmd_map equation with `params` for the TPU `target` through
    JAX's own lowering (inside a jax.shard_map over a mesh of `devices`' axes
    when the kernel runs under one); None when the rules accepted it and
    jaxlib's serializer failed (internals.failed_in_serialization)."""
    refs = [isinstance(a, state_types.AbstractRef) for a in in_avals]

    def kernel(*args):
        # An operand that was a ref is one here too (JAX 0.12 rejects a kernel
        # that writes to an operand passed as an array).
        args = [jax.new_ref(a) if r else a for a, r in zip(args, refs)]
        return mpmd.mpmd_map_p.bind(*args, **params)

    try:
        with abstract_tpu(target, tuple(devices)) as mesh:
            fn = kernel
            if devices:
                fn = jax.shard_map(kernel, mesh=mesh, in_specs=jax.P(), out_specs=jax.P(), check_vma=False)
            jax.jit(fn).trace(*[_struct(a) for a in in_avals]).lower(lowering_platforms=("tpu",))
    except Exception as e:  # noqa: BLE001 - any rejection is a verdict
        if internals.failed_in_serialization(e):
            return None
        return Verdict(False, type(e).__name__, str(e))
    return Verdict(True)


def scjit_verdict(params: dict, in_avals: Sequence[Any], target: str,
                  devices: Sequence[tuple[Any, int]] = ()) -> Verdict | None:
    """The kernel exported and checked by scjit's rules; None when scjit cannot
    express it."""
    try:
        exported = kernel_from_params(params, in_avals, target=target, devices=devices)
    except ExportError:
        return None
    try:
        scjit.compile(exported.scir, target=target, jax=internals.rules_release())
    except scjit.CompileError as e:
        first = e.diagnostics[0]
        return Verdict(False, first.exception or type(e).__name__, first.message)
    return Verdict(True)


# MLIR's note after a verifier message, which names SSA values of JAX's module:
# scjit's GEN-3 messages stop before it.
_SEE_CURRENT_OPERATION = "\n see current operation:"


def agree(jax_says: Verdict, scjit_says: Verdict) -> bool:
    if jax_says.accepted or scjit_says.accepted:
        return jax_says.accepted == scjit_says.accepted
    # (scjit names GEN-3's exception by its module, error_handling.VerificationError.)
    if jax_says.exception.rsplit(".", 1)[-1] != scjit_says.exception.rsplit(".", 1)[-1]:
        return False
    message = jax_says.message
    if jax_says.exception == "VerificationError" and _SEE_CURRENT_OPERATION in message:
        message = message[:message.index(_SEE_CURRENT_OPERATION)]
    return message == scjit_says.message


def compare(params: dict, in_avals: Sequence[Any], target: str,
            devices: Sequence[tuple[Any, int]] = ()) -> tuple[Verdict, Verdict] | None:
    """Both verdicts on one kernel (the params of its mpmd_map equation, run
    under a device mesh of `devices`' axes), or None when they cannot be
    compared: scjit cannot express it, or jaxlib cannot serialize it."""
    scjit_says = scjit_verdict(params, in_avals, target, devices)
    if scjit_says is None:
        return None
    jax_says = jax_verdict(params, in_avals, target, devices)
    if jax_says is None:
        return None
    return jax_says, scjit_says

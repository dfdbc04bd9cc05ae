"""scjit.jax: Pallas SparseCore kernels on a CPU.

    with scjit.jax.sparsecore("v7x"):            # or scjit.jax.enable("v7x")
        y = jax.jit(f)(x)                        # pl.kernel SparseCore kernels run on scjit
    text = scjit.jax.export(kernel, x, target="v7x")   # the kernel as .scir

See docs/jax.md.
"""

from .backend import Options, disable, enable, enabled, sparsecore
from .errors import ExportError, Location
from .execute import kernel_call
from .oracle import RulesDisagreementError
from .export import ExportedKernel, Param, export, export_kernels, kernel_from_params
from .primitives import TABLE
from .tpu import abstract_mesh, abstract_tpu, target_of_current_context

__all__ = [
    "ExportError", "ExportedKernel", "Location", "Options", "Param", "RulesDisagreementError", "TABLE", "abstract_mesh", "abstract_tpu",
    "disable", "enable", "enabled", "export", "export_kernels", "kernel_call", "kernel_from_params", "sparsecore",
    "target_of_current_context",
]

"""scjit.jax: Pallas SparseCore kernels, traced with JAX, as scjit `.scir`.

    text = scjit.jax.export(kernel, x, target="v7x")

See docs/jax.md.
"""

from .errors import ExportError, Location
from .export import ExportedKernel, Param, export, export_kernels, kernel_from_params
from .primitives import TABLE
from .tpu import abstract_tpu, target_of_current_context

__all__ = [
    "ExportError", "ExportedKernel", "Location", "Param", "TABLE", "abstract_tpu",
    "export", "export_kernels", "kernel_from_params", "target_of_current_context",
]

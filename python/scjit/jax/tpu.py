"""Tracing Pallas TPU kernels without a TPU.

Pallas asks the current device what chip it is (`pltpu.get_tpu_info()`,
`plsc.get_sparse_core_info()`); off a TPU that raises. `abstract_tpu(target)` makes
JAX answer for one of scjit's targets by tracing under an abstract mesh whose device
is that chip, which is all `jax.make_jaxpr` needs.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import jax

from .internals import mesh_lib, tpu_info

# scjit's target name -> the device kind JAX 0.10.2 gives that chip. (scjit's v8t is
# not known to JAX 0.10.2.)
DEVICE_KINDS = {
    "v5p": "TPU v5p",
    "v6e": "TPU v6e",
    "v7x": "TPU7x",
    "v8i": "TPU8i",
}

_TARGET_OF_CHIP = {
    tpu_info.ChipVersion.TPU_V5P: "v5p",
    tpu_info.ChipVersion.TPU_V6E: "v6e",
    tpu_info.ChipVersion.TPU_7X: "v7x",
    tpu_info.ChipVersion.TPU_8I: "v8i",
}


def abstract_mesh(target: str = "v7x", devices: tuple = ()) -> jax.sharding.AbstractMesh:
    """An abstract mesh whose devices are chips of `target` (`"v5p"`, `"v6e"`,
    `"v7x"` or `"v8i"`): under it, Pallas asks that chip's questions. One device
    on an axis "x", or the axes `devices` gives ((name, size), ... major first)."""
    if target not in DEVICE_KINDS:
        raise ValueError(f"unknown target {target!r}; JAX 0.10.2 knows "
                         f"{', '.join(sorted(DEVICE_KINDS))}")
    device = mesh_lib.AbstractDevice(device_kind=DEVICE_KINDS[target], num_cores=1,
                                     platform="tpu")
    axes = tuple(devices) or (("x", 1),)
    # Auto axes, as JAX made them by default before 0.12 (whose default, Explicit,
    # would give the kernel's values shardings that Pallas' traces do not carry).
    return jax.sharding.AbstractMesh(tuple(size for _, size in axes), tuple(name for name, _ in axes),
                                     axis_types=(jax.sharding.AxisType.Auto,) * len(axes), abstract_device=device)


@contextlib.contextmanager
def abstract_tpu(target: str = "v7x", devices: tuple = ()) -> Iterator[jax.sharding.AbstractMesh]:
    """Within this context JAX traces as if the device were the chip of `target`,
    so Pallas SparseCore kernels can be traced on any host; `devices` as for
    abstract_mesh. Yields the mesh."""
    mesh = abstract_mesh(target, devices)
    with jax.sharding.use_abstract_mesh(mesh):
        yield mesh


def target_of_current_context() -> str | None:
    """The scjit target of the chip JAX traces for here (an `abstract_tpu` context or
    the default device), or None when that is not a chip with SparseCores scjit
    knows."""
    try:
        kind = tpu_info.get_device_kind()
    except RuntimeError:
        return None
    return _TARGET_OF_CHIP.get(tpu_info.chip_version_from_device_kind(kind))

"""JAX's own SparseCore lowering as the oracle of scjit's rules, on every kernel
the exporter's tests export (tests/python/test_export.py): each is lowered through
JAX for the TPU too, and a test whose kernel JAX judges otherwise than scjit's
rules (one accepts what the other rejects, or the messages differ) fails
(scjit.jax.oracle). The upstream files get the same check from
`tools/upstream-tests.sh --check-rules`."""

import importlib
import os

import pytest

# Several CPU devices for the tests of kernels under jax.shard_map
# (test_jax_devices.py); set before any test imports jax.
if "xla_force_host_platform_device_count" not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=8").strip()


@pytest.fixture(autouse=True)
def rules_agree_with_jax(request, monkeypatch):
    if request.module.__name__.rsplit(".", 1)[-1] != "test_export":
        yield
        return
    export = importlib.import_module("scjit.jax.export")
    oracle = importlib.import_module("scjit.jax.oracle")
    translate = export.kernel_from_params
    disagreements = []

    def checked(params, in_avals, *, target, **kwargs):
        if "jaxprs" in params:  # mpmd_map (pl.kernel); core_map kernels are discharged first
            verdicts = oracle.compare(params, in_avals, target, kwargs.get("devices", ()))
            if verdicts is not None and not oracle.agree(*verdicts):
                disagreements.append(f"JAX:   {verdicts[0]}\n  scjit: {verdicts[1]}")
        return translate(params, in_avals, target=target, **kwargs)

    monkeypatch.setattr(export, "kernel_from_params", checked)
    yield
    if disagreements:
        pytest.fail("scjit's SparseCore rules disagree with JAX's lowering:\n  " + "\n  ".join(disagreements))

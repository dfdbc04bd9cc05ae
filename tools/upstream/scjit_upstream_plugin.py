"""pytest plugin: JAX's own SparseCore tests, unmodified, on a CPU with scjit as
the SparseCore backend (tools/upstream-tests.sh loads it).

It changes only what tells the tests they are on a TPU and the settings JAX's own
test runs use:
  - the device under test is a TPU (`--jax_test_dut=tpu`, as JAX's TPU runs set
    it), of the chip `--scjit-target` names: jtu.is_device_tpu,
    jtu.get_tpu_version and tpu_info.is_tpu_device answer for that chip, and
    Pallas' chip queries (get_tpu_info, get_sparse_core_info) do too, through
    scjit.jax's abstract TPU mesh;
  - Pallas SparseCore kernels run on scjit (scjit.jax.enable);
  - the hypothesis profile JAX's test runs register ("deterministic": no
    database, derandomized, no deadline), from jax._src.hypothesis_test_util,
    which JAX's source tree has and its wheels do not: this plugin provides the
    two functions the tests call;
  - several devices: XLA's CPU platform is asked for 8
    (--xla_force_host_platform_device_count), as JAX's multi-chip TPU runs
    have several chips; a kernel that talks to other chips runs all of them
    in one scjit launch;
  - a test that builds a TensorCore mesh skips itself (scjit runs SparseCore
    kernels only; tpu_pallas_mpmd_test.py has such tests);
  - Bazel's test sharding, which JAX's BUILD gives the debug-check file so that
    each test runs in a shard of its own (a failed check halts a TPU, and the
    file skips itself without TEST_TOTAL_SHARDS): a failed check halts nothing
    on scjit, so one process runs them all, as one shard of one.
"""

import os
import re
import sys
import types

os.environ.setdefault("JAX_PLATFORMS", "cpu")
# The distributed file's tests need several devices (jax.device_count() >= 2):
# the host's CPU stands for 8 chips, as many as a TPU v7x tray's (a test that
# wants more says how many it needs).
if "xla_force_host_platform_device_count" not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=8").strip()
os.environ.setdefault("TEST_TOTAL_SHARDS", "1")
os.environ.setdefault("TEST_SHARD_INDEX", "0")


def pytest_addoption(parser):
    parser.addoption("--scjit-target", default="v7x", choices=("v5p", "v6e", "v7x", "v8i"),
                     help="the TPU the tests believe they run on (default v7x)")
    # JAX's absl flag, as JAX's TPU test runs pass it; the test files parse it
    # from the command line (jax.config.parse_flags_with_absl).
    parser.addoption("--jax_test_dut", default="", help="JAX's device under test (tpu)")
    parser.addoption("--scjit-check-rules", action="store_true",
                     help="lower every kernel through JAX's own SparseCore lowering too; a kernel scjit's rules "
                          "judge otherwise fails its test (scjit.jax.oracle)")


def _hypothesis_test_util():
    """jax._src.hypothesis_test_util as JAX's test runs have it: the profiles its
    setup_hypothesis registers and selects, and hypothesis_is_thread_safe."""
    import hypothesis as hp

    module = types.ModuleType("jax._src.hypothesis_test_util")

    def hypothesis_is_thread_safe():
        return tuple(int(x) for x in hp.__version__.split(".")[:3]) >= (6, 136, 9)

    def setup_hypothesis(max_examples=30):
        suppressed = [hp.HealthCheck.differing_executors] if hasattr(hp.HealthCheck, "differing_executors") else []
        hp.settings.register_profile("deterministic", database=None, derandomize=True, deadline=None,
                                     max_examples=max_examples, print_blob=True, suppress_health_check=suppressed)
        hp.settings.register_profile("interactive", parent=hp.settings.load_profile("deterministic"),
                                     max_examples=1, report_multiple_bugs=False, verbosity=hp.Verbosity.verbose,
                                     phases=(hp.Phase.explicit, hp.Phase.reuse, hp.Phase.generate, hp.Phase.target,
                                             hp.Phase.explain))
        hp.settings.load_profile(os.environ.get("JAX_HYPOTHESIS_PROFILE", "deterministic"))

    module.hypothesis_is_thread_safe = hypothesis_is_thread_safe
    module.setup_hypothesis = setup_hypothesis
    return module


def pytest_configure(config):
    target = config.getoption("--scjit-target")
    import jax
    from jax._src import test_util as jtu

    import scjit.jax
    from scjit.jax.internals import tpu_info
    from scjit.jax.tpu import DEVICE_KINDS

    if "jax._src.hypothesis_test_util" not in sys.modules:
        try:
            import jax._src.hypothesis_test_util  # noqa: F401 - a source tree has it
        except ImportError:
            sys.modules["jax._src.hypothesis_test_util"] = _hypothesis_test_util()
            jax._src.hypothesis_test_util = sys.modules["jax._src.hypothesis_test_util"]

    jax.config.update("jax_test_dut", config.getoption("--jax_test_dut"))
    kind = DEVICE_KINDS[target]

    # jtu reads the chip from the first device's kind; the device is the target's.
    def is_device_tpu(version=None, variant=""):
        if jtu.device_under_test() != "tpu":
            return False
        if version is None:
            return True
        expected = f"v{version}{variant}"
        if expected == "v6e":
            return kind in ("TPU v6e", "TPU v6 lite")
        if expected == "v5p":
            return kind in ("TPU v5", "TPU v5p")
        if expected in ("v7x", "v7"):
            return kind in ("TPU7x", "TPU7") if expected == "v7" else kind == "TPU7x"
        return f"TPU{version}{variant}" in kind.replace(" ", "")

    def get_tpu_version():
        match = re.match(r"TPU[^\d]*(\d+)", kind)
        return int(match.group(1))

    jtu.is_device_tpu = is_device_tpu
    jtu.get_tpu_version = get_tpu_version
    tpu_info.is_tpu_device = lambda: True
    scjit.jax.enable(target, check_rules=config.getoption("--scjit-check-rules"))
    config._scjit_target = target
    _skip_tensorcore_meshes()


NEEDS_TENSORCORE = "needs a TensorCore mesh: scjit runs SparseCore kernels only"


def _skip_tensorcore_meshes():
    """A test that builds a TensorCore mesh (tpu_pallas_mpmd_test.py's TensorCore
    and mixed variants) skips itself there, with that reason: its kernels need
    a TensorCore, which neither scjit nor the CPU has."""
    import pytest
    from jax.experimental.pallas import tpu as pltpu

    if hasattr(pltpu, "TensorCoreMesh"):
        class TensorCoreMesh(pltpu.TensorCoreMesh):
            def __init__(self, *args, **kwargs):
                pytest.skip(NEEDS_TENSORCORE)

        pltpu.TensorCoreMesh = TensorCoreMesh
    if hasattr(pltpu, "create_tensorcore_mesh"):
        def create_tensorcore_mesh(*args, **kwargs):
            pytest.skip(NEEDS_TENSORCORE)

        pltpu.create_tensorcore_mesh = create_tensorcore_mesh


def pytest_report_header(config):
    return f"scjit: SparseCore kernels run on scjit as {config.getoption('--scjit-target')} (JAX's tests unmodified)"

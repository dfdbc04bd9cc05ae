"""Arguments of the Python module that scjit cannot take: each is scjit's own
error (an InputError with an IO-* code naming the argument and what it takes;
an InputTypeError, also a TypeError, for a value of the wrong type), never
pybind11's TypeError, numpy's ValueError or MemoryError, or an OverflowError.
Arrays in the other byte order are read by their values; time limits; explain
of an unknown code as jit-run answers it (issue #34)."""

import math
import os
import pathlib
import subprocess

import numpy as np
import pytest

import scjit

ROOT = pathlib.Path(__file__).resolve().parents[2]
JIT_RUN = os.environ.get("SCJIT_JIT_RUN", str(ROOT / "build" / "jit-run"))

ADD_ONE = ROOT / "examples" / "add_one_manual.scir"  # x + 1, x: hbm<32x1024xi32>

# acc += x (an inout parameter), f32.
ACCUMULATE = """kernel @accumulate(in %x: hbm<16xf32>, inout %acc: hbm<16xf32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%a: vmem<16xf32>, %b: vmem<16xf32>)
{
  copy %x -> %a
  copy %acc -> %b
  %v = get %a : vector<16xf32>
  %w = get %b : vector<16xf32>
  %s = add %v, %w : vector<16xf32>
  store %b, %s
  copy %b -> %acc
}
"""

# One output far larger than any host's memory (4 TiB).
HUGE_OUTPUT = """kernel @huge(in %x: hbm<16xi32>, out %o: hbm<1048576x1048576xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%buf: vmem<16xi32>)
{
  copy %x -> %buf
  copy %buf -> %o[0, 0:16]
}
"""


@pytest.fixture(scope="module")
def add_one():
    return scjit.compile(ADD_ONE)


X = np.arange(32 * 1024, dtype=np.int32).reshape(32, 1024)


# --- arrays in the other byte order ------------------------------------------------------------


def test_big_endian_inputs_are_read_by_their_values(add_one):
    big = np.arange(32 * 1024, dtype=">i4").reshape(32, 1024)
    o = add_one(big)
    assert o.dtype == np.dtype("=i4")  # outputs are native
    assert o.tobytes() == (X + 1).tobytes()
    assert add_one.launch(x=big).outputs["o"].tobytes() == (X + 1).tobytes()
    # A strided view in the other byte order too.
    strided = np.arange(64 * 1024, dtype=">i4").reshape(32, 2048)[:, ::2]
    assert add_one(strided).tobytes() == (np.arange(64 * 1024, dtype=np.int32).reshape(32, 2048)[:, ::2] + 1).tobytes()


def test_big_endian_inout_is_converted_and_the_callers_array_kept():
    k = scjit.compile(ACCUMULATE)
    x = np.linspace(-2, 2, 16).astype(">f4")
    acc = np.full(16, 0.5, ">f4")
    acc_bytes = acc.tobytes()
    out = k(x, acc)
    assert out.dtype == np.dtype("=f4")
    assert out.tobytes() == (x.astype(np.float32) + np.float32(0.5)).tobytes()
    assert acc.tobytes() == acc_bytes  # the caller's array is not written


def test_big_endian_arrays_of_the_wrong_dtype_or_shape_are_refused(add_one):
    with pytest.raises(scjit.InputError) as e:
        add_one(X.astype(">i8"))
    assert e.value.code == "IO-DTYPE"
    assert str(e.value) == ("error[IO-DTYPE]: dtype mismatch for %x (hbm<32x1024xi32>): the kernel expects int32, "
                            "the buffer bound to it has int64")
    with pytest.raises(scjit.InputError) as e:
        add_one(X.ravel().astype(">i4"))
    assert e.value.code == "IO-SHAPE"


# --- explain -----------------------------------------------------------------------------------


def test_explain_of_an_unknown_code_is_jit_runs_usage_error():
    with pytest.raises(scjit.InputError) as e:
        scjit.explain("NOPE-1")
    assert e.value.code == "IO-USAGE"
    assert e.value.message == str(e.value) == "unknown diagnostic code 'NOPE-1'"
    cli = subprocess.run([JIT_RUN, "--explain", "NOPE-1"], capture_output=True, text=True, check=False)
    assert cli.returncode == 2
    assert cli.stderr.startswith(f"error[{e.value.code}]: {e.value.message}\n")


# --- argument mistakes -------------------------------------------------------------------------

TYPE = scjit.InputTypeError
VALUE = scjit.InputError
THREADS = "threads must be an int from 0 (the host's cores) to 1024, got "
SEED = "seed must be an int from 0 to 2**64 - 1, or None (the fixed order), got "
SECONDS = "time_limit must be a number of seconds, 0 or more (0 or float('inf'): no limit), got "
SOURCE = "source must be a path (str or os.PathLike) to a .scir file, or .scir text (str), got "
DEVICES = "devices must be a count of devices (4), a str naming each axis and its size ('y=2,x=4'), or None, got "

COMPILE_MISTAKES = [
    (dict(source=123), TYPE, SOURCE + "123 (int)"),
    (dict(source=None), TYPE, SOURCE + "None (NoneType)"),
    (dict(source=b"bytes"), TYPE, SOURCE + "b'bytes' (bytes)"),
    (dict(kernel=5), TYPE, "kernel must be a str or None, got 5 (int)"),
    (dict(target=5), TYPE, "target must be a str or None, got 5 (int)"),
    (dict(target="v9"), VALUE, "unknown target 'v9'; expected one of v5p, v6e, v7x, v8i, v8t"),
    (dict(checks=5), TYPE, "checks must be a str, got 5 (int)"),
    (dict(checks=None), TYPE, "checks must be a str, got None (NoneType)"),
    (dict(engine=5), TYPE, "engine must be a str, got 5 (int)"),
    (dict(devices=True), TYPE, DEVICES + "True (bool)"),
    (dict(devices=2.5), TYPE, DEVICES + "2.5 (float)"),
    (dict(jax=5), TYPE, "jax must be a str or None, got 5 (int)"),
    (dict(cache_dir=5), TYPE, "cache_dir must be a path (str or os.PathLike) or None, got 5 (int)"),
    (dict(opt_level="x"), TYPE, "opt_level must be an int from 0 to 3, got 'x' (str)"),
    (dict(opt_level=True), TYPE, "opt_level must be an int from 0 to 3, got True (bool)"),
    (dict(opt_level=-1), VALUE, "opt_level must be an int from 0 to 3, got -1"),
    (dict(opt_level=9), VALUE, "opt_level must be an int from 0 to 3, got 9"),
    (dict(opt_level=2**70), VALUE, "opt_level must be an int from 0 to 3, got 1180591620717411303424"),
]


@pytest.mark.parametrize("arguments,error,message", COMPILE_MISTAKES, ids=[repr(a) for a, _, _ in COMPILE_MISTAKES])
def test_compile_arguments(arguments, error, message):
    arguments = dict(dict(source=ADD_ONE), **arguments)
    with pytest.raises(scjit.InputError) as e:
        scjit.compile(**arguments)
    assert type(e.value) is error and e.value.code == "IO-USAGE"
    assert str(e.value) == e.value.message == message
    assert isinstance(e.value, TypeError) == (error is TYPE)


@pytest.mark.parametrize("arguments", [dict(checks="bogus"), dict(engine="llvm"), dict(devices=0),
                                       dict(devices="bogus"), dict(jax="9.9"), dict(kernel="nope")])
def test_values_the_library_judges_are_its_usage_errors(arguments):
    with pytest.raises(scjit.InputError) as e:
        scjit.compile(ADD_ONE, **arguments)
    assert type(e.value) is scjit.InputError and e.value.code == "IO-USAGE"


OPTION_MISTAKES = [
    (dict(threads="x"), TYPE, THREADS + "'x' (str)"),
    (dict(threads=True), TYPE, THREADS + "True (bool)"),
    (dict(threads=-1), VALUE, THREADS + "-1"),
    (dict(threads=5000), VALUE, THREADS + "5000"),
    (dict(threads=2**70), VALUE, THREADS + "1180591620717411303424"),
    (dict(seed="x"), TYPE, SEED + "'x' (str)"),
    (dict(seed=-1), VALUE, SEED + "-1"),
    (dict(seed=2**70), VALUE, SEED + "1180591620717411303424"),
    (dict(dma="bogus"), VALUE, "dma must be 'eager', 'on_wait' or None (on_wait when checked), got 'bogus'"),
    (dict(dma=5), TYPE, "dma must be 'eager', 'on_wait' or None (on_wait when checked), got 5 (int)"),
    (dict(checks=5), TYPE, "checks must be a str, got 5 (int)"),
    (dict(time_limit="x"), TYPE, SECONDS + "'x' (str)"),
    (dict(time_limit=True), TYPE, SECONDS + "True (bool)"),
    (dict(time_limit=-1), VALUE, SECONDS + "-1"),
    (dict(time_limit=math.nan), VALUE, SECONDS + "nan"),
    (dict(time_limit=-math.inf), VALUE, SECONDS + "-inf"),
    (dict(log=5), TYPE, "log must be a callable taking a str (debug_print's output), or None, got 5 (int)"),
]


@pytest.mark.parametrize("options,error,message", OPTION_MISTAKES, ids=[repr(o) for o, _, _ in OPTION_MISTAKES])
def test_launch_options(add_one, options, error, message):
    with pytest.raises(scjit.InputError) as e:
        add_one.with_options(**options)
    assert type(e.value) is error and e.value.code == "IO-USAGE"
    assert str(e.value) == message


def test_bad_checks_are_the_launchs_usage_error(add_one):
    with pytest.raises(scjit.InputError) as e:
        add_one.with_options(checks="bogus")(X)
    assert type(e.value) is scjit.InputError and e.value.code == "IO-USAGE"


def test_good_options_at_their_limits(add_one):
    k = add_one.with_options(threads=np.int64(1), seed=2**64 - 1, dma="eager", time_limit=math.inf, log=print)
    assert k._options.time_limit == 0  # inf: no limit
    np.testing.assert_array_equal(k(X), X + 1)


def test_other_calls_take_strings():
    for call, name in ((scjit.explain, "code"), (scjit.describe_target, "name")):
        for value in (5, None):
            with pytest.raises(TypeError) as e:  # also an InputError
                call(value)
            assert isinstance(e.value, scjit.InputError) and e.value.code == "IO-USAGE"
            assert str(e.value) == f"{name} must be a str, got {value!r} ({type(value).__name__})"


# --- arrays a launch cannot take ---------------------------------------------------------------

ARRAY_MISTAKES = [
    (np.empty((32, 1024), object), "IO-DTYPE", "the kernel expects int32, the array has object"),
    (np.full((32, 1024), "a"), "IO-DTYPE", "the kernel expects int32, the array has str32"),
    (np.zeros((32, 1024), [("a", "<i4")]), "IO-DTYPE", "the kernel expects int32, the array has void32"),
    (np.zeros((32, 1024), np.float32), "IO-DTYPE", "the kernel expects int32, the buffer bound to it has float32"),
    ([["a"] * 1024] * 32, "IO-DTYPE", "invalid literal for int() with base 10: 'a'"),
    ([[2**70] * 1024] * 32, "IO-DTYPE", "Python int too large to convert to C long"),
    ([[1, 2], [3]], "IO-DTYPE", "inhomogeneous shape"),
    (None, "IO-DTYPE", "%x (hbm<32x1024xi32>) takes an array of int32 (32, 1024); the value given is not one: "),
    (np.zeros((32, 1023), np.int32), "IO-SHAPE",
     "the kernel expects (32, 1024), the buffer bound to it has (32, 1023)"),
    (np.array(3, np.int32), "IO-SHAPE", "the kernel expects (32, 1024), the buffer bound to it has ()"),
    (3, "IO-SHAPE", "the kernel expects (32, 1024), the buffer bound to it has ()"),
    # 4 TiB as a broadcast view: refused, never copied.
    (np.broadcast_to(np.int32(0), (2**20, 2**20)), "IO-SHAPE", "the buffer bound to it has (1048576, 1048576)"),
]


@pytest.mark.parametrize("value,code,text", ARRAY_MISTAKES, ids=[code + ":" + text[-30:] for _, code, text in
                                                                  ARRAY_MISTAKES])
def test_arrays_a_launch_cannot_take(add_one, value, code, text):
    with pytest.raises(scjit.InputError) as e:
        add_one(value)
    assert e.value.code == code
    assert text in str(e.value)


@pytest.mark.parametrize("args,kwargs,text", [
    ((X, X), {}, "@add_one_manual takes 1 input array(s), got 2"),
    ((), {}, "@add_one_manual needs an array for %x"),
    ((X,), dict(y=X), "@add_one_manual has no input parameter named 'y'; its inputs are %x"),
    ((), dict(o=X), "@add_one_manual has an output parameter named 'o'; its inputs are %x"),
    ((X,), dict(x=X), "%x is given twice"),
])
def test_parameters_missing_unknown_or_given_twice(add_one, args, kwargs, text):
    with pytest.raises(scjit.InputError) as e:
        add_one(*args, **kwargs)
    assert e.value.code == "IO-PARAM" and str(e.value) == text


def test_outputs_larger_than_the_host_are_refused_before_allocation():
    k = scjit.compile(HUGE_OUTPUT)
    with pytest.raises(scjit.InputError) as e:
        k(np.zeros(16, np.int32))
    assert e.value.code == "IO-MEMORY"
    assert str(e.value).startswith("cannot allocate 4398046511104 bytes for the outputs and input copies of kernel "
                                   "@huge: the host has ")


# --- time limits -------------------------------------------------------------------------------


def test_a_kernel_past_its_time_limit_raises_rt_timeout():
    k = scjit.compile(ROOT / "tests" / "bugs" / "timeout_infinite_loop.scir")
    with pytest.raises(scjit.RunError) as e:
        k.with_options(time_limit=0.05)(np.zeros(16, np.int32))
    assert e.value.code == "RT-TIMEOUT"
    assert e.value.message == "kernel @timeout_infinite_loop ran longer than 0.05 s and was stopped"


def test_every_interface_has_the_same_default_time_limit():
    # jit-run's --time-limit default, LaunchOptions' and Python's are one figure.
    import scjit.jax
    from scjit import _scjit
    cli = subprocess.run([JIT_RUN, "--help"], capture_output=True, text=True, check=False)
    assert "RT-TIMEOUT; default 600, 0: none" in cli.stdout
    assert _scjit.default_time_limit == 600
    assert scjit.compile(ADD_ONE)._options.time_limit == 600
    assert scjit.jax.Options().time_limit == 600

"""The Python module over the public C++ API (python/scjit): compile, call with
numpy arrays by position or name, launch options and statistics, exceptions with
their diagnostics, explain and the targets."""

import pathlib
import threading

import ml_dtypes
import numpy as np
import pytest

import scjit

ROOT = pathlib.Path(__file__).resolve().parents[2]

ADD_ONE = """kernel @add_one(in %x: hbm<4x16xi32>, out %o: hbm<4x16xi32>)
    mesh vector(cores = 1, subcores = 4)
    scratch(%buf: vmem<16xi32>)
{
  %s = axis_index subcore : i32
  copy %x[%s] -> %buf
  %v = get %buf[...] : vector<16xi32>
  %w = add %v, 1 : vector<16xi32>
  store %buf[...], %w
  copy %buf -> %o[%s]
}
"""

# o = x * 2 in bf16, and acc += x (an inout parameter).
BF16 = """kernel @scale(in %x: hbm<32xbf16>, inout %acc: hbm<32xbf16>, out %o: hbm<32xbf16>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%a: vmem<32xbf16>, %b: vmem<32xbf16>)
{
  copy %x -> %a
  copy %acc -> %b
  %v = get %a : vector<32xbf16>
  %w = get %b : vector<32xbf16>
  %two = mul %v, 2 : vector<32xbf16>
  %sum = add %v, %w : vector<32xbf16>
  store %a, %two
  store %b, %sum
  copy %a -> %o
  copy %b -> %acc
}
"""


def test_compile_a_file_and_call_it():
    k = scjit.compile(ROOT / "examples" / "add_one_manual.scir")
    assert (k.name, k.target, k.mesh, k.cores, k.subcores) == ("add_one_manual", "v7x", "vector", 2, 16)
    assert [(p.name, p.direction, p.dtype, p.shape) for p in k.params] == [
        ("x", "in", np.dtype(np.int32), (32, 1024)), ("o", "out", np.dtype(np.int32), (32, 1024))]
    x = np.random.default_rng(0).integers(-1000, 1000, (32, 1024), dtype=np.int32)
    np.testing.assert_array_equal(k(x), x + 1)
    np.testing.assert_array_equal(k(x=x), x + 1)
    np.testing.assert_array_equal(k(**{"%x": x}), x + 1)


def test_the_interpreter_engine_gives_the_jits_results():
    x = np.random.default_rng(1).integers(-1000, 1000, (32, 1024), dtype=np.int32)
    path = ROOT / "examples" / "add_one_manual.scir"
    jit, interp = scjit.compile(path), scjit.compile(path, engine="interp")
    np.testing.assert_array_equal(interp(x), jit(x))
    v = np.arange(32, dtype=ml_dtypes.bfloat16)
    acc = np.linspace(-3, 3, 32).astype(ml_dtypes.bfloat16)
    outputs_jit = scjit.compile(BF16)(v, acc)
    outputs_interp = scjit.compile(BF16, engine="interp")(v, acc)
    assert [a.tobytes() for a in outputs_interp] == [a.tobytes() for a in outputs_jit]
    with pytest.raises(scjit.InputError, match="unknown engine 'llvm'; expected one of jit, interp") as e:
        scjit.compile(ADD_ONE, engine="llvm")
    assert e.value.code == "IO-USAGE"


def test_compile_text_for_each_target():
    for target in ("v6e", "v7x"):
        k = scjit.compile(ADD_ONE, target=target)
        assert k.target == target
        x = np.arange(64, dtype=np.int32).reshape(4, 16)
        np.testing.assert_array_equal(k(x), x + 1)


def test_bfloat16_and_inout():
    k = scjit.compile(BF16)
    x = (np.arange(32) / 4).astype(ml_dtypes.bfloat16)
    acc = np.full(32, 1.5, ml_dtypes.bfloat16)
    acc_before = acc.copy()
    new_acc, o = k(x, acc)
    assert o.dtype == ml_dtypes.bfloat16 and new_acc.dtype == ml_dtypes.bfloat16
    np.testing.assert_array_equal(o, x * 2)
    np.testing.assert_array_equal(new_acc, (x.astype(np.float32) + 1.5).astype(ml_dtypes.bfloat16))
    np.testing.assert_array_equal(acc, acc_before)  # the caller's array is not written


def test_inputs_that_are_not_c_contiguous_or_lists():
    k = scjit.compile(ADD_ONE)
    x = np.arange(128, dtype=np.int32).reshape(4, 32)[:, ::2]  # a strided view
    np.testing.assert_array_equal(k(x), x + 1)
    np.testing.assert_array_equal(k(x.tolist()), x + 1)  # a list takes the parameter's dtype


def test_launch_statistics_and_options():
    k = scjit.compile(ROOT / "examples" / "add_one_manual.scir").with_options(threads=1, seed=3, dma="eager")
    r = k.launch(np.zeros((32, 1024), np.int32))
    assert set(r.outputs) == {"o"}
    assert r.stats.subcores == 32 and r.stats.threads == 1
    assert r.stats.dma_bytes == 2 * 32 * 1024 * 4
    assert r.stats.ops == {"dma_start": 512, "dma_wait": 512}
    assert len(r.stats.per_subcore) == 32 and r.findings == [] and not r.failed


def test_a_kernel_of_two_meshes_runs_both_in_one_launch():
    """examples/mpmd_rows.scir: vector subcores add 1 to their rows, the scalar
    subcores 100 to theirs; the statistics list both kinds of subcore."""
    k = scjit.compile(ROOT / "examples" / "mpmd_rows.scir")
    assert k.mesh == "vector"  # the first part's
    lines = []
    x = np.arange(34 * 16, dtype=np.int32).reshape(34, 16)
    r = k.with_options(log=lines.append).launch(x)
    np.testing.assert_array_equal(r.outputs["o"], x + np.where(np.arange(34) % 17 == 16, 100, 1)[:, None])
    assert r.stats.subcores == 34
    assert [s.mesh for s in r.stats.per_subcore] == ["vector"] * 32 + ["scalar"] * 2
    assert "".join(lines).endswith("[core 0, scalar subcore] From SCS\n[core 1, scalar subcore] From SCS\n")


def test_debug_print_goes_to_the_log():
    k = scjit.compile("""kernel @p(in %x: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 2)
    scratch(%buf: vmem<16xi32>)
{
  copy %x -> %buf
  %v = get %buf : vector<16xi32>
  debug_print "v" %v
}
""")
    lines = []
    k.with_options(log=lines.append)(np.arange(16, dtype=np.int32))
    text = "".join(lines)
    assert "[core 0, subcore 0] v, data: s32[16]: 0, 1, 2, 3" in text
    assert "[core 0, subcore 1] v" in text


def test_a_rejected_kernel_raises_compile_error():
    with pytest.raises(scjit.CompileError) as e:
        scjit.compile(ROOT / "examples" / "errors" / "SWAP-5.scir")
    err = e.value
    assert err.code == "SWAP-5"
    assert err.file.endswith("examples/errors/SWAP-5.scir")
    assert (err.line, err.column) == (11, 20)
    assert err.message == "Swap does not support masked scalar stores"  # Pallas' text
    assert err.diagnostics[0].exception == "NotImplementedError"
    assert err.help == "use an unmasked scalar `store` inside `if %m { ... }`"
    assert str(err).startswith(f"{err.file}:11:20: error[SWAP-5]: NotImplementedError: ")


def test_a_syntax_error_has_its_location_and_help():
    with pytest.raises(scjit.CompileError) as e:
        scjit.compile(ADD_ONE.replace("%v = get %buf[...] : vector<16xi32>", "%v = get %buf[...]"))
    assert (e.value.code, e.value.file, e.value.line, e.value.column) == ("IR-SYNTAX", "<string>", 7, 21)
    assert e.value.help == "every op that defines a value writes its type after ':' (`%v = get %buf[...] : " \
                           "vector<16xi32>`)"


def test_bad_inputs_raise_input_error():
    k = scjit.compile(ADD_ONE)
    with pytest.raises(scjit.InputError) as e:
        k(np.zeros((4, 16), np.int64))
    assert e.value.code == "IO-DTYPE"
    assert str(e.value) == ("error[IO-DTYPE]: dtype mismatch for %x (hbm<4x16xi32>): the kernel expects int32, "
                            "the buffer bound to it has int64")
    with pytest.raises(scjit.InputError) as e:
        k(np.zeros((4, 15), np.int32))
    assert e.value.code == "IO-SHAPE"
    with pytest.raises(scjit.InputError, match=r"needs an array for %x"):
        k()
    with pytest.raises(scjit.InputError, match=r"no input parameter named 'y'"):
        k(np.zeros((4, 16), np.int32), y=1)
    with pytest.raises(scjit.InputError) as e:
        scjit.compile(ROOT / "examples" / "no_such_file.scir")
    assert e.value.code == "IO-OPEN"
    with pytest.raises(scjit.InputError, match="unknown target 'v9'"):
        scjit.compile(ADD_ONE, target="v9")
    assert isinstance(e.value, ValueError)


def test_a_failed_check_raises_run_error_with_every_finding():
    k = scjit.compile(ROOT / "examples" / "gather_indirect.scir")
    x = np.zeros((4096, 128), np.int32)
    ids = np.zeros((1, 4096), np.int32)
    ids[0, 7] = 5000
    with pytest.raises(scjit.RunError) as e:
        k(x, ids)
    err = e.value
    assert err.code == "RT-BOUNDS" and err.line == 39
    assert err.message == ("copy %x[idx(%row_ids)] -> %o_vmem: entry 7 of the index list is 5000, outside "
                           "dimension 0 of the source (size 4096)")
    assert len(err.findings) == 1  # one report for the op (both cores)
    assert err.findings[0].notes == ["in kernel @gather_indirect, 2 subcores: core 0 subcore 0, core 1 subcore 0"]
    # As warnings, the launch goes on, returns its findings and warns with them.
    with pytest.warns(scjit.RunWarning) as w:
        r = k.with_options(checks="warn").launch(x, ids)
    assert [f.severity for f in r.findings] == ["warning"] and not r.failed
    assert [x.message.code for x in w] == ["RT-BOUNDS"] and w[0].message.line == 39


def test_explain_and_targets():
    assert scjit.explain("get-1") == scjit.explain("GET-1")
    assert scjit.explain("GET-1").startswith("GET-1: ")
    with pytest.raises(scjit.InputError):
        scjit.explain("NOPE-1")
    v6e = next(t for t in scjit.targets() if t["name"] == "v6e")
    assert (v6e["cores"], v6e["subcores"], v6e["lanes"], v6e["vmem_bytes"]) == (2, 16, 8, 256 * 1024)
    assert scjit.describe_target("v7x").startswith("v7x (the default target)\n")


def test_a_kernel_compiled_before_a_fork_launches_in_the_child():
    # The kernel's launches keep their helper threads; a child of fork() has
    # none of them, and must make its own rather than wait for them forever.
    import multiprocessing

    k = scjit.compile(ADD_ONE).with_options(threads=2)
    x = np.arange(64, dtype=np.int32).reshape(4, 16)
    np.testing.assert_array_equal(k(x), x + 1)  # the parent's threads exist now
    ctx = multiprocessing.get_context("fork")
    results = ctx.Queue()
    child = ctx.Process(target=lambda: results.put(k(x)))  # (fork: nothing is pickled)
    child.start()
    child.join(timeout=60)
    if child.is_alive():
        child.kill()
        pytest.fail("the launch in the child of fork() did not finish")
    assert child.exitcode == 0
    np.testing.assert_array_equal(results.get(timeout=5), x + 1)


def test_many_threads_compile_and_launch_at_once():
    errors = []

    def work(i):
        try:
            k = scjit.compile(ADD_ONE.replace("add %v, 1", f"add %v, {i}"), target="v6e" if i % 2 else "v7x")
            x = np.full((4, 16), i, np.int32)
            for _ in range(5):
                np.testing.assert_array_equal(k(x), x + i)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_a_kernel_on_several_chips_takes_one_array_per_chip():
    k = scjit.compile(ROOT / "examples" / "collective_permute.scir")
    assert k.devices == 4 and k.params[0].shape == (4, 8, 128)
    assert k.params[0].type == "hbm<8x128xi32> on each of 4 devices"
    x = np.arange(4 * 8 * 128, dtype=np.int32).reshape(4, 8, 128) * 3
    np.testing.assert_array_equal(k(x), np.roll(x, 1, axis=0))
    with pytest.raises(scjit.InputError) as e:
        k(x[0])
    assert "the kernel expects (4, 8, 128)" in str(e.value)
    k2 = scjit.compile(ROOT / "examples" / "collective_permute.scir", devices=2)
    assert k2.devices == 2 and k2.params[1].shape == (2, 8, 128)
    np.testing.assert_array_equal(k2(x[:2]), x[1::-1])

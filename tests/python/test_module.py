"""pt2ov's Python module: calls with torch tensors and numpy arrays against eager PyTorch, no
copies of inputs, dynamic shapes, mutated buffers, errors, threads, inspect and the command."""
from __future__ import annotations

import gc
import json
import os
import pathlib
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
import torch

import pt2ov
from tests.models import get_case
from tests.models.compare import assert_output_matches, to_numpy
from tests.models.export import call_inputs, eager_outputs, flatten

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]

ZOO = ["mlp", "multi_output", "bool_int_outputs", "params_and_buffers", "int64_big", "buffer_mutation"]


def check(case, actual, expected, label):
    rtol, atol = case.tolerance
    assert len(actual) == len(expected), f"{label}: {len(actual)} outputs, expected {len(expected)}"
    for i, (a, e) in enumerate(zip(actual, expected)):
        exact = case.expect_exact or i in case.exact_outputs
        if isinstance(a, torch.Tensor):
            assert a.dtype == e.dtype, f"{label} output {i}: dtype {a.dtype}, expected {e.dtype}"
            a = to_numpy(a)
        assert_output_matches(a, e, rtol=rtol, atol=atol, exact=exact, label=f"{label} output {i}")


@pytest.mark.parametrize("name", ZOO + ["bf16_compute"])
def test_zoo_torch_in_torch_out(exported, name):
    case = get_case(name)
    program = pt2ov.load(exported.path(name))
    calls = call_inputs(case, "dynamic" if case.has_dynamic else "static")  # two sizes when dynamic
    expected = eager_outputs(case.make_module(), calls)
    for n, (args, want) in enumerate(zip(calls, expected)):
        out = program(*flatten(args))
        assert isinstance(out, tuple) and all(isinstance(t, torch.Tensor) for t in out)
        check(case, out, want, f"{name} call {n}")


@pytest.mark.parametrize("name", ZOO)
def test_zoo_numpy_in_numpy_out(exported, name):
    case = get_case(name)
    program = pt2ov.load(exported.path(name))
    calls = call_inputs(case, "dynamic" if case.has_dynamic else "static")
    expected = eager_outputs(case.make_module(), calls)
    for n, (args, want) in enumerate(zip(calls, expected)):
        out = program(*[t.numpy() for t in flatten(args)])
        assert all(isinstance(a, np.ndarray) for a in out)
        check(case, out, want, f"{name} call {n}")


def test_bf16_outputs_torch_as_bf16_numpy_as_float32():
    class Mixed(torch.nn.Module):
        def forward(self, x, y):
            return x.to(torch.bfloat16) * 2, y + 1

    program = pt2ov.compile(Mixed(), (torch.ones(2, 3), torch.ones(2, 3, dtype=torch.bfloat16)))
    assert [i.dtype for i in program.inputs] == ["float32", "bfloat16"]
    assert [o.dtype for o in program.outputs] == ["bfloat16", "bfloat16"]
    y = torch.full((2, 3), 0.5, dtype=torch.bfloat16)
    out = program(torch.full((2, 3), 1.5), y)  # torch first: torch out, bf16 as itself
    assert all(t.dtype == torch.bfloat16 for t in out)
    assert torch.equal(out[0], torch.full((2, 3), 3.0, dtype=torch.bfloat16))
    out = program(np.full((2, 3), 1.5, np.float32), y)  # numpy first: numpy has no bf16, float32 (exact)
    assert out[0].dtype == np.float32 and out[1].dtype == np.float32
    np.testing.assert_array_equal(out[0], np.full((2, 3), 3.0, np.float32))
    np.testing.assert_array_equal(out[1], np.full((2, 3), 1.5, np.float32))


def test_inputs_are_not_copied_or_written_and_outputs_own_memory(save):
    class Clone(torch.nn.Module):
        def forward(self, x):
            return x.clone(), x * 2

    path = save(Clone(), (torch.randn(4, 5),), "clone")
    program = pt2ov.load(path)
    x = torch.randn(4, 5)
    before = x.clone()
    copy, doubled = program(x)
    assert torch.equal(copy, x) and torch.equal(doubled, x * 2)
    assert copy.data_ptr() != x.data_ptr() and not np.shares_memory(copy.numpy(), x.numpy())
    assert torch.equal(x, before)
    a = np.random.default_rng(0).standard_normal((4, 5)).astype(np.float32)
    a.flags.writeable = False  # read in place: a read-only array is fine
    copy_np, _ = program(a)
    assert not np.shares_memory(copy_np, a) and np.array_equal(copy_np, a)
    # outputs outlive the program and the inputs
    del program, x, a
    gc.collect()
    assert torch.equal(copy, before) and copy_np.shape == (4, 5)
    assert copy.numpy().flags.writeable


def test_earlier_inputs_stay_as_the_caller_left_them(tmp_path):
    """A result OpenVINO compiles into its input (`x.to(x.dtype)`, a no-op Convert folded away)
    made the plugin write each call's input into the memory of the input it had last call: the
    caller's earlier arrays changed under it, exit 0."""

    class SameDtype(torch.nn.Module):
        def forward(self, x):
            return x.to(torch.float32), x.sin()

    batch = torch.export.Dim("batch", min=1, max=16)
    ep = torch.export.export(SameDtype(), (torch.randn(3, 8),), dynamic_shapes=({0: batch},))
    path = tmp_path / "same_dtype.pt2"
    torch.export.save(ep, str(path))
    program = pt2ov.load(path, measure_placement=False)
    given = []
    for call, rows in enumerate([3, 2, 2, 2, 5, 2, 2]):
        x = np.full((rows, 8), float(call + 1), np.float32)
        given.append(x)
        same, sine = program(x)
        assert np.array_equal(same, x) and not np.shares_memory(same, x), call
        np.testing.assert_allclose(sine, np.sin(x), rtol=1e-6, atol=1e-6)
    changed = [call for call, x in enumerate(given) if not np.all(x == call + 1)]
    assert not changed, f"the inputs of calls {changed} were written by later calls"


def test_contiguous_inputs_are_viewed_in_place():
    from pt2ov import _pt2ov

    t = torch.randn(6, 4)
    a = np.arange(24, dtype=np.float32).reshape(6, 4)
    items = [t, t[2:5], a, a[1:3], np.zeros((), np.int64), torch.ones(3, dtype=torch.bfloat16), torch.tensor(2.5),
             torch.ones(1, 3, 1, 1).contiguous(memory_format=torch.channels_last),  # strides of size-1 dims: any
             memoryview(a), torch.ones(0, 3)[:, ::2]]
    addresses = [x.data_ptr() if isinstance(x, torch.Tensor) else np.asarray(x).ctypes.data for x in items]
    assert _pt2ov._view_addresses(*items) == addresses
    strided = [t[:, ::2], t.t(), a[:, ::2], a[::-1], torch.ones(2, 3, 4, 5).contiguous(memory_format=torch.channels_last),
               memoryview(a.reshape(-1))[::2]]
    copies = _pt2ov._view_addresses(*strided)
    assert all(c != (x.data_ptr() if isinstance(x, torch.Tensor) else np.asarray(x).ctypes.data)
               for c, x in zip(copies, strided))


def test_views_with_an_offset_and_non_contiguous_inputs(save):
    class Affine(torch.nn.Module):
        def forward(self, x, y):
            return x * 3 + y

    path = save(Affine(), (torch.randn(2, 4), torch.randn(2, 4)), "affine",
                dynamic_shapes=({0: torch.export.Dim("b", max=64)}, {0: torch.export.Dim("b", max=64)}))
    program = pt2ov.load(path)
    base = torch.randn(6, 4)
    y = torch.randn(4, 6)
    rows = base[2:5]  # contiguous, with a storage offset
    cols = y.t()[1:4]  # not contiguous
    assert not cols.is_contiguous()
    (out,) = program(rows, cols)
    torch.testing.assert_close(out, rows * 3 + cols, rtol=1e-6, atol=1e-6)
    (out_np,) = program(base.numpy()[2:5], y.numpy().T[1:4])
    np.testing.assert_allclose(out_np, (rows * 3 + cols).numpy(), rtol=1e-6, atol=1e-6)
    (swapped,) = program(base.numpy()[2:5].astype(">f4"), cols)  # big-endian: converted
    np.testing.assert_allclose(swapped, (rows * 3 + cols).numpy(), rtol=1e-6, atol=1e-6)
    (mixed,) = program(base.numpy()[::2], torch.ones(3, 4))  # numpy first: numpy out
    assert isinstance(mixed, np.ndarray)
    np.testing.assert_allclose(mixed, base.numpy()[::2] * 3 + 1, rtol=1e-6)


def test_dynamic_shapes_and_io_info(exported):
    program = pt2ov.load(exported.path("mlp"))
    (info,) = program.inputs
    assert info.dtype == "float32" and info.shape[0] is None and all(isinstance(d, int) for d in info.shape[1:])
    assert program.outputs and all(o.dtype == "float32" for o in program.outputs)
    case = get_case("mlp")
    for variant in (0, 1):
        args = case.make_inputs(variant)
        (want,) = eager_outputs(case.make_module(), [args])
        out = program(*args)
        assert out[0].shape == want[0].shape


def test_mutated_buffer_carries_over_calls(save):
    class Counter(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("count", torch.zeros(1))

        def forward(self, x):
            self.count.add_(1)
            return x + self.count

    path = save(Counter(), (torch.zeros(3),), "counter")
    program = pt2ov.load(path)
    for n in range(1, 4):
        (out,) = program(torch.zeros(3))
        assert torch.equal(out, torch.full((3,), float(n)))
    (out,) = program(np.zeros(3, np.float32))
    np.testing.assert_array_equal(out, np.full(3, 4.0, np.float32))
    assert torch.equal(pt2ov.load(path)(torch.zeros(3))[0], torch.ones(3))  # a new load starts afresh


def test_state_read_write_reset(save):
    """The mutated buffers' state from Python: read as the program left it (compared with the
    same calls in eager), written, and reset to the archive's values."""
    class Accumulator(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("total", torch.arange(4, dtype=torch.float32))
            self.register_buffer("steps", torch.zeros((), dtype=torch.int64))

        def forward(self, x):
            self.total.mul_(0.5).add_(x)
            self.steps.add_(1)
            return self.total * 2

    eager = Accumulator()
    path = save(Accumulator(), (torch.ones(4),), "accumulator")
    program = pt2ov.load(path)
    assert sorted(program.state_names) == ["steps", "total"]
    inputs = [torch.randn(4, generator=torch.Generator().manual_seed(k)) for k in range(3)]
    for x in inputs:
        program(x)
        eager(x)
    np.testing.assert_allclose(program.read_state("total"), eager.total.numpy(), rtol=1e-6, atol=1e-7)
    assert program.read_state("steps").dtype == np.int64 and int(program.read_state("steps")) == 3
    assert torch.is_tensor(program.read_state("total", as_torch=True))
    program.write_state("total", np.full(4, 8.0, np.float32))
    (out,) = program(torch.zeros(4))
    assert torch.equal(out, torch.full((4,), 8.0))  # (8 * 0.5 + 0) * 2
    program.reset_state()
    np.testing.assert_array_equal(program.read_state("total"), np.arange(4, dtype=np.float32))
    assert int(program.read_state("steps")) == 0
    with pytest.raises(pt2ov.InputError, match="total"):
        program.write_state("total", np.zeros(3, np.float32))
    with pytest.raises(pt2ov.InputError, match="nothing"):
        program.read_state("nothing")


def test_errors_are_exceptions_with_one_line_messages(tmp_path, exported):
    missing = tmp_path / "nowhere" / "missing.pt2"
    with pytest.raises(pt2ov.ArchiveError) as info:
        pt2ov.load(missing)
    assert str(missing) in str(info.value) and "\n" not in str(info.value)
    assert isinstance(info.value, pt2ov.Error) and isinstance(info.value, RuntimeError)
    with pytest.raises(pt2ov.Error):
        pt2ov.inspect(missing)
    garbage = tmp_path / "garbage.pt2"
    garbage.write_bytes(b"not a zip at all")
    with pytest.raises(pt2ov.ArchiveError, match="garbage.pt2"):
        pt2ov.load(garbage)
    program = pt2ov.load(exported.path("mlp"))
    (x,) = get_case("mlp").make_inputs(0)
    with pytest.raises(pt2ov.InputError) as info:
        program(x.to(torch.int64))
    assert "int64" in str(info.value) and "\n" not in str(info.value)
    with pytest.raises(pt2ov.InputError):
        program(x, x)
    with pytest.raises(pt2ov.InputError):
        program(x.numpy().astype(np.complex64))
    with pytest.raises(pt2ov.InputError, match="input 0: element type complex64"):
        program(x.to(torch.complex64).conj())  # a conjugate view: refused by its dtype as any complex input
    with pytest.raises(pt2ov.InputError, match="input 1: element type uint32"):
        program(x, np.zeros(3, np.uint32))
    with pytest.raises(pt2ov.OptionError, match="no method 'nope'"):
        pt2ov.load(exported.path("mlp"), method="nope")
    assert issubclass(pt2ov.UnsupportedError, pt2ov.Error)


def test_every_failure_has_a_class_of_its_own(tmp_path, exported):
    """No failure is the bare base class: each names whose it is to fix (pt2ov/error.h)."""
    classes = [pt2ov.ArchiveError, pt2ov.UnsupportedError, pt2ov.InputError, pt2ov.OptionError, pt2ov.ResourceError,
               pt2ov.OpenVINOError, pt2ov.InternalError]
    assert all(issubclass(c, pt2ov.Error) for c in classes) and len(set(classes)) == len(classes)
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("")
    with pytest.raises(pt2ov.OptionError, match="--cache-dir .*not a folder"):
        pt2ov.load(exported.path("mlp"), cache_dir=str(not_a_folder), measure_placement=False)
    with pytest.raises(pt2ov.OptionError, match="--cpu-op aten.no_such_op"):
        pt2ov.load(exported.path("mlp"), cpu_ops=["aten.no_such_op"], measure_placement=False)
    with pytest.raises(pt2ov.OptionError, match="unknown precision"):
        pt2ov.load(exported.path("mlp"), precision="f8", measure_placement=False)


@pytest.mark.parametrize("form", ["exported", "decomposed"])
def test_stacked_cache_state_read_write_reset_between_calls(exported, tmp_path, form):
    """A stacked cache runs as one buffer per layer (graph/split_buffers.cpp); the state API takes
    the stacked buffer whole, by its own name: every read after every call is eager's buffer, bit
    for bit, a write sets every layer, a reset puts every layer back."""
    case = get_case("stacked_cache")
    ep = torch.export.load(str(exported.path("stacked_cache")))
    if form == "decomposed":
        ep = ep.run_decompositions()
    path = tmp_path / f"stacked_cache-{form}.pt2"
    torch.export.save(ep, str(path))
    program = pt2ov.load(path)
    eager = case.make_module()
    assert sorted(program.state_names) == ["k_cache", "v_cache"]

    def call(k):
        x, _, layer = case.make_inputs(k % 2)
        args = (x * (k + 1), torch.tensor([(3 * k) % 5]), layer)
        got = program(*args)
        with torch.no_grad():
            want = eager(*args)
        rtol, atol = case.tolerance
        assert_output_matches(to_numpy(got[0]), want[0], rtol=rtol, atol=atol, exact=False, label=f"call {k}")
        assert np.asarray(got[1]).tobytes() == want[1].numpy().tobytes()
        for name in ("k_cache", "v_cache"):
            assert program.read_state(name).tobytes() == getattr(eager, name).numpy().tobytes(), (k, name)

    for k in range(6):
        call(k)
    written = np.random.default_rng(3).standard_normal((3, 2, 5, 4)).astype(np.float32)
    program.write_state("v_cache", written)
    eager.v_cache.copy_(torch.from_numpy(written))
    assert program.read_state("v_cache").tobytes() == written.tobytes()
    for k in range(6, 9):
        call(k)
    program.reset_state()
    eager = case.make_module()
    for name in ("k_cache", "v_cache"):
        assert program.read_state(name).tobytes() == getattr(eager, name).numpy().tobytes()
    call(9)
    with pytest.raises(pt2ov.InputError, match=r"state 'k_cache' is float32 of shape \(3, 2, 5, 4\)"):
        program.write_state("k_cache", np.zeros((2, 5, 4), np.float32))
    with pytest.raises(pt2ov.InputError, match=r"only the buffers 'k_cache', 'v_cache'"):
        program.read_state("k_cache[0]")


def assert_four_threads_get_eagers_outputs(program, inputs, wants, calls: int, pick):
    """Four threads call `program` `calls` times each, thread t's k-th call on inputs[pick(t, k)];
    every output must be eager's for that input."""
    failures = []

    def work(t):
        try:
            for k in range(calls):
                i = pick(t, k)
                (out,) = program(inputs[i])
                torch.testing.assert_close(out, wants[i], rtol=1e-4, atol=1e-5)
        except Exception as e:  # reported by the main thread
            failures.append(f"thread {t}: {e!r}")

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not failures, failures


def test_four_threads_share_one_program(exported):
    case = get_case("mlp")
    program = pt2ov.load(exported.path("mlp"))
    module = case.make_module()
    inputs = [torch.randn(1 + t, *case.make_inputs(0)[0].shape[1:]) for t in range(4)]
    with torch.no_grad():
        wants = [module(x) for x in inputs]
    assert_four_threads_get_eagers_outputs(program, inputs, wants, calls=25, pick=lambda t, k: t)


def test_four_threads_share_a_program_inferred_on_openvinos_own_thread(tmp_path):
    """A step with 64 MiB of weights is inferred by OpenVINO's own stream thread (start_async,
    then wait); calls from four threads, each on a call context of its own, queue on it and
    each gets its own input's outputs."""
    torch.manual_seed(5)
    module = torch.nn.Sequential(torch.nn.Linear(4096, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 64)).eval()
    path = tmp_path / "heavy.pt2"
    torch.export.save(torch.export.export(module, (torch.randn(2, 4096),)), str(path))
    program = pt2ov.load(path)
    assert [s["own_thread"] for s in program.report["steps"]] == [True], program.report["steps"]
    inputs = [torch.randn(2, 4096) for _ in range(6)]
    with torch.no_grad():
        wants = [module(x) for x in inputs]
    assert_four_threads_get_eagers_outputs(program, inputs, wants, calls=15, pick=lambda t, k: (t + k) % len(inputs))


def test_inspect_report_methods_version(exported):
    path = exported.path("mlp")
    # Without timing, so that the three reports are the same to the byte.
    cli = subprocess.run([str(REPO_ROOT / "build" / "pt2ov"), "inspect", "--no-measure-placement", str(path), "--json"],
                         capture_output=True, text=True, check=True)
    assert pt2ov.inspect(path, measure_placement=False) == json.loads(cli.stdout)
    report = pt2ov.load(path, measure_placement=False).report
    assert report == json.loads(cli.stdout)["methods"]["forward"]
    assert {"steps", "constants", "openvino_version"} <= set(report)
    forced = pt2ov.inspect(path, cpu_ops=["aten.relu"], measure_placement=False)
    kinds = [s["kind"] for s in forced["methods"]["forward"]["steps"]]
    assert "cpu" in kinds
    assert pt2ov.methods(path) == ["forward"]
    assert pt2ov.openvino_version().startswith("2026.4") and report["openvino_version"].startswith("2026.4")


def test_compile_module_and_exported_program():
    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(5, 3)

        def forward(self, x):
            return torch.relu(self.lin(x))

    torch.manual_seed(0)
    net = Net().eval()
    x = torch.randn(2, 5)
    program = pt2ov.compile(net, (x,), dynamic_shapes=({0: torch.export.Dim("batch", max=16)},), num_threads=1)
    for batch in (2, 7):
        xb = torch.randn(batch, 5)
        torch.testing.assert_close(program(xb)[0], net(xb).detach(), rtol=1e-4, atol=1e-5)
    ep = torch.export.export(net, (x,))
    torch.testing.assert_close(pt2ov.compile(ep, strict=True)(x)[0], net(x).detach(), rtol=1e-4, atol=1e-5)


def test_python_m_pt2ov_mirrors_the_command(tmp_path):
    env = dict(os.environ)
    inputs = REPO_ROOT / "examples" / "policy_inputs.npz"
    out = tmp_path / "out.npz"
    proc = subprocess.run([sys.executable, "-m", "pt2ov", "run", str(REPO_ROOT / "examples" / "policy.pt2"),
                           "--inputs", str(inputs), "--outputs", str(out), "--num-threads", "1", "--precision", "f32"],
                          capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    with np.load(out) as got, np.load(REPO_ROOT / "examples" / "policy_expected.npz") as want:
        for name in want.files:
            np.testing.assert_allclose(got[name], want[name], rtol=1e-4, atol=1e-5)
    proc = subprocess.run([sys.executable, "-m", "pt2ov", "bench", str(REPO_ROOT / "examples" / "policy.pt2"),
                           "--inputs", str(inputs), "--iterations", "3", "--warmup", "1", "--json", "--num-threads", "1"],
                          capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    assert isinstance(json.loads(proc.stdout), dict)
    proc = subprocess.run([sys.executable, "-m", "pt2ov", "inspect", str(tmp_path / "missing.pt2")],
                          capture_output=True, text=True, env=env)
    assert proc.returncode == 2 and "missing.pt2" in proc.stderr


def test_the_gil_is_released_during_a_call(save):
    class Heavy(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(torch.randn(384, 384) / 20)

        def forward(self, x):
            for _ in range(12):
                x = torch.tanh(x @ self.w)
            return x

    program = pt2ov.load(save(Heavy(), (torch.randn(384, 384),), "heavy"), num_threads=1)
    x = torch.randn(384, 384)
    windows, ticks, done = [], [], threading.Event()

    def work():
        for _ in range(6):
            start = time.perf_counter()
            program(x)
            windows.append((start, time.perf_counter()))
        done.set()

    worker = threading.Thread(target=work)
    worker.start()
    while not done.is_set():  # pure Python: runs only while the worker does not hold the GIL
        ticks.append(time.perf_counter())
    worker.join()
    margin = 0.002
    inside = [t for t in ticks for (a, b) in windows if a + margin < t < b - margin]
    longest = max(b - a for a, b in windows)
    assert longest > 3 * margin, f"calls too short to tell ({longest * 1e3:.1f} ms)"
    assert inside, "no Python ran while a call was in OpenVINO: the GIL was held"


class _Flatten(torch.nn.Module):
    """Order-sensitive and exact for every dtype: a copy laid out wrongly, or a sign lost, shows."""

    def forward(self, x):
        flat = x.reshape(-1)
        return (torch.logical_not(flat),) if x.dtype == torch.bool else (flat * 2, flat.sum(0, keepdim=True) * 0 + flat[0])


def _strided_inputs():
    g = torch.Generator().manual_seed(3)
    base = torch.randn(4, 6, generator=g)
    image = torch.randn(2, 3, 4, 5, generator=g)
    return {
        "numpy_transposed": base.numpy().T,
        "numpy_step": base.numpy()[:, ::2],
        "numpy_reversed": base.numpy()[::-1],
        "numpy_unaligned": np.frombuffer(b"\0" + base.numpy().tobytes(), np.float32, 24, offset=1).reshape(4, 6),
        "numpy_0d": np.array(1.5, np.float32),
        "numpy_bool_strided": (base.numpy() > 0)[::2],
        "numpy_float16_strided": base.numpy().astype(np.float16).T,
        "numpy_big_endian_strided": base.numpy().astype(">f4")[:, ::3],
        "torch_channels_last": image.contiguous(memory_format=torch.channels_last),
        "torch_transposed": base.t(),
        "torch_0d": torch.tensor(-2.25),
        "torch_bool": base > 0,
        "torch_bool_strided": (base > 0).t(),
        "torch_float16": base.half(),
        "torch_float16_strided": base.half()[:, 1::2],
        "torch_bfloat16": base.bfloat16(),
        "torch_bfloat16_strided": base.bfloat16().t(),
        "torch_neg_view": base._neg_view(),
        "torch_neg_view_strided": base.t()._neg_view(),
        "torch_requires_grad": base.clone().requires_grad_(True),
        "torch_expanded": torch.randn(1, 6, generator=g).expand(4, 6),
        "torch_subclass": base.as_subclass(_TensorSubclass),
        "torch_subclass_strided": base.t().as_subclass(_TensorSubclass),
        "torch_parameter": torch.nn.Parameter(base.clone()),
    }


class _TensorSubclass(torch.Tensor):
    """A subclass without overrides: read through torch's legacy capsule, not the exchange API."""


@pytest.mark.parametrize("name", list(_strided_inputs()))
def test_every_input_path_matches_eager(save, name):
    from pt2ov import _pt2ov

    x = _strided_inputs()[name]
    reference = (torch.from_numpy(np.array(x, dtype=x.dtype.newbyteorder("="), order="C"))
                 if isinstance(x, np.ndarray) else x.detach().as_subclass(torch.Tensor).resolve_neg().contiguous())
    before = reference.clone()
    program = pt2ov.load(save(_Flatten(), (reference.clone(),), f"flatten_{name}"))
    with torch.no_grad():
        want = _Flatten()(reference)
    routes = [True] if isinstance(x, np.ndarray) else list(TORCH_ROUTES.values())  # torch: both routes
    try:
        for exchange_api in routes:
            _pt2ov._use_torch_exchange_api(exchange_api)
            got = program(x)
            assert len(got) == len(want)
            for g, w in zip(got, want):
                if isinstance(x, np.ndarray):
                    assert isinstance(g, np.ndarray)
                    g = torch.from_numpy(g)
                else:
                    assert type(g) is torch.Tensor and g.dtype == w.dtype
                    assert not _overlap(g, x)
                assert torch.equal(g, w), f"{name} (exchange API: {exchange_api}): {g} != {w}"
            if isinstance(x, np.ndarray):
                assert x.flags.c_contiguous or not np.shares_memory(got[0], x)
    finally:
        _pt2ov._use_torch_exchange_api(True)
    unchanged = (torch.from_numpy(np.array(x, dtype=x.dtype.newbyteorder("="), order="C"))
                 if isinstance(x, np.ndarray) else x.detach().as_subclass(torch.Tensor).resolve_neg().contiguous())
    assert torch.equal(unchanged, before), f"{name}: the input was written"


# Torch tensors cross the binding through DLPack's C exchange API where torch has it, else through
# the legacy capsule functions torch._C._to_dlpack / _from_dlpack; both are run here.
TORCH_ROUTES = {"exchange_api": True, "legacy_capsules": False}


@pytest.fixture(params=list(TORCH_ROUTES))
def torch_route(request):
    from pt2ov import _pt2ov

    has_exchange_api = _pt2ov._use_torch_exchange_api(TORCH_ROUTES[request.param])
    if TORCH_ROUTES[request.param]:
        assert has_exchange_api, f"torch {torch.__version__} has no DLPack exchange API"
    yield request.param
    _pt2ov._use_torch_exchange_api(True)


class _Echo(torch.nn.Module):
    """Returns its input and views of it: what eager returns aliases the input, pt2ov's outputs
    must own their memory."""

    def forward(self, x):
        return (x, x.reshape(1)) if x.dim() == 0 else (x, x.t(), x[1:])


_ECHO_DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.uint16, torch.int32, torch.int64,
                torch.float16, torch.bfloat16, torch.float32, torch.float64]


def _echo_input(dtype, shape):
    g = torch.Generator().manual_seed(5)
    values = torch.randint(-100, 100, shape, generator=g) if dtype.is_floating_point or dtype.is_signed else \
        torch.randint(0, 200, shape, generator=g)
    return (values % 2 == 0) if dtype == torch.bool else (values / 8 if dtype.is_floating_point else values).to(dtype)


def _memory(t):
    """The byte range of a tensor's or array's storage."""
    if isinstance(t, np.ndarray):
        while isinstance(t.base, np.ndarray):
            t = t.base
        return t.ctypes.data, t.ctypes.data + t.nbytes
    storage = t.untyped_storage()
    return storage.data_ptr(), storage.data_ptr() + storage.nbytes()


def _overlap(a, b):
    (a0, a1), (b0, b1) = _memory(a), _memory(b)
    return a0 < b1 and b0 < a1


_echo_programs: dict = {}


def _echo_program(save, dtype, shape):
    key = (dtype, len(shape))
    if key not in _echo_programs:
        name = f"echo_{str(dtype).split('.')[-1]}_{len(shape)}d"
        _echo_programs[key] = pt2ov.load(save(_Echo(), (_echo_input(dtype, shape),), name))
    return _echo_programs[key]


@pytest.mark.parametrize("shape", [(3, 4), ()], ids=["2d", "0d"])
@pytest.mark.parametrize("dtype", _ECHO_DTYPES, ids=lambda d: str(d).split(".")[-1])
def test_outputs_own_memory_never_an_input_and_keep_every_dtype(save, torch_route, dtype, shape):
    program = _echo_program(save, dtype, shape)
    x = _echo_input(dtype, shape)
    before = x.clone()
    want = [w.clone() for w in _Echo()(x)]
    got = program(x)
    assert torch.equal(x, before), "the input was written"
    assert len(got) == len(want)
    for k, (g, w) in enumerate(zip(got, want)):
        assert isinstance(g, torch.Tensor) and g.dtype == w.dtype and g.shape == w.shape, f"output {k}: {g!r}"
        assert torch.equal(g, w), f"output {k}: {g} != {w}"
        assert g.is_contiguous() and not _overlap(g, x), f"output {k} shares the input's memory"
    for a, b in [(a, b) for i, a in enumerate(got) for b in got[i + 1:]]:
        assert not _overlap(a, b), "two outputs share memory"
    # numpy in, numpy out (bfloat16 as float32): the same, against the array
    if dtype != torch.bfloat16:
        a = x.numpy()
        got_np = program(a)
        for k, (g, w) in enumerate(zip(got_np, want)):
            assert isinstance(g, np.ndarray) and g.dtype == w.numpy().dtype, f"output {k}: {g!r}"
            np.testing.assert_array_equal(g, w.numpy())
            assert g.flags.c_contiguous and not np.shares_memory(g, a)
    # outputs outlive the input, and can be written
    del x
    gc.collect()
    for g, w in zip(got, want):
        assert torch.equal(g, w)
        g.zero_()
    assert all(not g.any() for g in got)


def test_the_module_needs_no_torch():
    """torch is read at run time only: the extension links no libtorch, and the package imports
    and runs numpy calls in a process where torch cannot be imported."""
    from pt2ov import _pt2ov

    binary = pathlib.Path(_pt2ov.__file__).read_bytes()
    assert b"libtorch" not in binary and b"libc10" not in binary
    script = (
        "import sys\n"
        "class NoTorch:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'torch' or name.startswith('torch.'):\n"
        "            raise ImportError('torch is blocked in this test')\n"
        "sys.meta_path.insert(0, NoTorch())\n"
        "import numpy as np, pt2ov\n"
        f"program = pt2ov.load({str(REPO_ROOT / 'examples' / 'policy.pt2')!r})\n"
        f"with np.load({str(REPO_ROOT / 'examples' / 'policy_inputs.npz')!r}) as data:\n"
        "    inputs = [data['arr_0'], data['arr_1']]\n"
        "outputs = program(*inputs)\n"
        "assert all(isinstance(o, np.ndarray) for o in outputs)\n"
        "assert 'torch' not in sys.modules\n"
        "np.savez(sys.argv[1], *outputs)\n"
    )
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        result_path = pathlib.Path(folder) / "outputs.npz"
        env = dict(os.environ, PYTHONPATH=str(pathlib.Path(pt2ov.__file__).resolve().parents[1]))
        done = subprocess.run([sys.executable, "-c", script, str(result_path)], capture_output=True, text=True,
                              env=env, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        with np.load(result_path) as data:
            got = [data[f"arr_{i}"] for i in range(len(data.files))]
    sys.path.insert(0, str(REPO_ROOT / "examples"))
    import policy  # the module examples/policy.pt2 was exported from (seed 0)

    with np.load(REPO_ROOT / "examples" / "policy_inputs.npz") as data, torch.no_grad():
        want = policy.make_policy(seed=0)(torch.from_numpy(data["arr_0"]), torch.from_numpy(data["arr_1"]))
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        np.testing.assert_allclose(g, w.numpy(), rtol=1e-4, atol=1e-5, err_msg=f"output {i}")


def test_small_program_placement_is_timed_unless_asked_not_to(save):
    class Tiny(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1, self.fc2 = torch.nn.Linear(16, 32), torch.nn.Linear(32, 8)

        def forward(self, x):
            return self.fc2(torch.relu(self.fc1(x)))

    torch.manual_seed(0)
    module = Tiny().eval()
    x = torch.randn(1, 16)
    path = save(module, (x,), "tiny_timed")
    timed = pt2ov.load(path)
    measurement = timed.report["measurement"]
    assert measurement["chosen"] in ("cpu", "openvino") and measurement["calls"] > 0, measurement
    kinds = {step["kind"] for step in timed.report["steps"]}
    assert kinds == ({"cpu"} if measurement["chosen"] == "cpu" else {"openvino"}), timed.report
    with torch.no_grad():
        expected = module(x)
    (out,) = timed(x)
    torch.testing.assert_close(out, expected, rtol=1e-4, atol=1e-5)
    rules = pt2ov.load(path, measure_placement=False)
    assert "measurement" not in rules.report
    assert {step["kind"] for step in rules.report["steps"]} == {"openvino"}
    (out,) = rules(x)
    torch.testing.assert_close(out, expected, rtol=1e-4, atol=1e-5)


class _Gather(torch.nn.Module):
    def forward(self, x, idx):
        return torch.take(x, idx) * 2


def test_an_error_about_a_node_names_it_as_an_attribute(save):
    path = save(_Gather(), (torch.randn(6), torch.tensor([0, 5])), "gather_node")
    program = pt2ov.load(path, cpu_ops=["aten.take"])
    x = torch.randn(6)
    (got,) = program(x, torch.tensor([1, 2]))
    np.testing.assert_allclose(got, torch.take(x, torch.tensor([1, 2])) * 2)
    with pytest.raises(pt2ov.Error) as info:
        program(x, torch.tensor([0, 9]))  # index 9 of 6 elements: refused by the CPU kernel
    assert info.value.node == "take", str(info.value)
    assert "take" in str(info.value) and "\n" not in str(info.value)
    with pytest.raises(pt2ov.InputError) as info:
        program(x.to(torch.int64), torch.tensor([0, 1]))
    assert info.value.node is None  # about an input, no node


def test_values_computed_once_at_load_are_handed_out_as_copies(save):
    """A weight unpacked from a packed constant (NNCF's int4 form: masks and shifts, kept on the
    CPU kernels) reads constants only: computed once at load, and every call reads it. Returned,
    it is the caller's own copy: writing into it changes no later call."""

    class Unpacked(torch.nn.Module):
        def __init__(self):
            super().__init__()
            g = torch.Generator().manual_seed(2606)
            self.register_buffer("packed", torch.randint(0, 256, (6, 4), generator=g, dtype=torch.uint8))

        def forward(self, x):
            unpacked = torch.stack([self.packed & 15, self.packed >> 4], dim=-1).reshape(6, 8)
            weight = unpacked.to(torch.float32) - 8.0
            return x @ weight.t(), unpacked

    module = Unpacked().eval()
    path = save(module, (torch.randn(3, 8),), "unpacked")
    report = pt2ov.inspect(path, measure_placement=False)
    reasons = [n["reason"] for s in report["methods"]["forward"]["steps"] for n in s["nodes"]]
    assert any("computed once at load" in r for r in reasons), reasons
    program = pt2ov.load(path, measure_placement=False)
    x = torch.randn(3, 8)
    first, unpacked = program(x)
    want, want_unpacked = module(x)
    assert torch.equal(unpacked, want_unpacked) and torch.allclose(first, want, rtol=1e-5, atol=1e-5)
    unpacked.fill_(99)  # the caller's copy
    second, unpacked_again = program(x)
    assert torch.equal(unpacked_again, want_unpacked) and torch.equal(second, first)

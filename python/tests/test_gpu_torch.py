"""tilegemm.gemm on torch CUDA tensors: every dtype against an fp64 product (the library's
tolerance) and against torch.matmul, transposed and padded views read in place, c= / out= with
beta, streams, and the argument errors that need real tensors."""
import pytest

import tilegemm

# (A/B dtype, C dtype, tf32) -> the library's names for the tolerance.
TYPES = [
    ("float32", "float32", False, "f32", "f32"),
    ("float32", "float32", True, "tf32", "f32"),
    ("bfloat16", "bfloat16", False, "bf16", "bf16"),
    ("bfloat16", "float32", False, "bf16", "f32"),
    ("float16", "float16", False, "f16", "f16"),
    ("float16", "float32", False, "f16", "f32"),
]
TYPE_IDS = [f"{lib}->{c}" for _, _, _, lib, c in TYPES]
SHAPES = [(1, 1, 1), (33, 17, 45), (128, 256, 64), (257, 129, 1000), (1024, 1024, 1024)]


def rel_error(torch, c, ref):
    diff = c.double() - ref
    return (torch.linalg.norm(diff) / torch.linalg.norm(ref)).item()


def operands(torch, m, n, k, dtype, seed=0, tf32_exact=False):
    """Uniform in [-1, 1). tf32_exact: multiples of 2^-10, which tf32 holds exactly, as the
    testbed's tf32 inputs are (the library's tf32 tolerance assumes operands tf32 represents;
    rounding arbitrary fp32 operands to tf32 is an error of its own, about 2^-11 each)."""
    g = torch.Generator(device="cuda").manual_seed(seed)
    if tf32_exact:
        a = torch.randint(-1024, 1024, (m, k), device="cuda", generator=g) / 1024.0
        b = torch.randint(-1024, 1024, (k, n), device="cuda", generator=g) / 1024.0
        return a.to(dtype), b.to(dtype)
    a = (torch.rand(m, k, device="cuda", generator=g) * 2 - 1).to(dtype)
    b = (torch.rand(k, n, device="cuda", generator=g) * 2 - 1).to(dtype)
    return a, b


@pytest.mark.parametrize("ab, cd, tf32, lib_ab, lib_c", TYPES, ids=TYPE_IDS)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_every_dtype_against_fp64_and_torch(torch, ab, cd, tf32, lib_ab, lib_c, shape):
    m, n, k = shape
    dtype, out_dtype = getattr(torch, ab), getattr(torch, cd)
    a, b = operands(torch, m, n, k, dtype, tf32_exact=tf32)
    c = tilegemm.gemm(a, b, out_dtype=out_dtype if cd != ab else None, tf32=tf32)
    torch.cuda.synchronize()
    assert c.shape == (m, n) and c.dtype == out_dtype and c.device == a.device
    ref = a.double() @ b.double()
    tol = tilegemm.tolerance(k, lib_ab, lib_c)
    assert rel_error(torch, c, ref) <= tol
    assert torch.isfinite(c).all()
    expected = (a.float() @ b.float()).to(out_dtype) if cd != ab else a @ b
    # Both within the tolerance of the exact product, so within twice it of each other.
    assert rel_error(torch, c, expected.double()) <= 2 * tol


LAYOUTS = ["row", "col"]


def view(torch, rows, cols, layout, dtype, pad=0, fill=None):
    """A rows x cols view in `layout` with `pad` extra leading-dimension elements, random."""
    if layout == "row":
        base = torch.rand(rows, cols + pad, device="cuda").to(dtype)
        return base[:, :cols]
    base = torch.rand(cols, rows + pad, device="cuda").to(dtype)
    return base[:, :rows].T


@pytest.mark.parametrize("la", LAYOUTS)
@pytest.mark.parametrize("lb", LAYOUTS)
@pytest.mark.parametrize("lc", LAYOUTS)
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_transposed_and_padded_views_in_place(torch, la, lb, lc, dtype, pad=3):
    m, n, k = 96, 80, 72
    dt = getattr(torch, dtype)
    a = view(torch, m, k, la, dt, pad)
    b = view(torch, k, n, lb, dt, pad)
    c = view(torch, m, n, lc, dt, pad)
    base = c._base if c._base is not None else c
    before = base.clone()
    out = tilegemm.gemm(a, b, c)
    torch.cuda.synchronize()
    assert out is c
    ref = a.double() @ b.double()
    assert rel_error(torch, c, ref) <= tilegemm.tolerance(k, {"float32": "f32"}.get(dtype, "bf16"))
    # The padding between C's rows (or columns) is untouched: C was written in place.
    mask = torch.ones_like(base, dtype=torch.bool)
    (mask[:, :n] if lc == "row" else mask[:, :m]).fill_(False)
    assert torch.equal(base[mask], before[mask])


def test_transposed_views_are_not_copied(torch):
    a, b = operands(torch, 64, 48, 32, torch.float32)
    at, bt = a.T.contiguous(), b.T.contiguous()
    # Views of at/bt: the only memory read is theirs, so the result proves the layout was used.
    c = tilegemm.gemm(at.T, bt.T)
    assert at.T.data_ptr() == at.data_ptr()
    assert rel_error(torch, c, a.double() @ b.double()) <= tilegemm.tolerance(32)


@pytest.mark.parametrize("alpha, beta", [(1.0, 1.0), (0.5, 2.0), (-1.5, 0.0), (0.0, 3.0),
                                         (2.0, -1.0)])
def test_c_with_alpha_and_beta(torch, alpha, beta):
    m, n, k = 100, 60, 70
    a, b = operands(torch, m, n, k, torch.float32, seed=1)
    c0 = torch.rand(m, n, device="cuda") * 2 - 1
    c = c0.clone()
    out = tilegemm.gemm(a, b, c, alpha=alpha, beta=beta)
    torch.cuda.synchronize()
    assert out is c
    ref = alpha * (a.double() @ b.double()) + beta * c0.double()
    assert rel_error(torch, c, ref) <= tilegemm.tolerance(k)


def test_out_is_c(torch):
    a, b = operands(torch, 50, 40, 30, torch.bfloat16)
    out = torch.empty(50, 40, device="cuda", dtype=torch.float32)
    assert tilegemm.gemm(a, b, out=out, out_dtype=torch.float32) is out
    assert rel_error(torch, out, a.double() @ b.double()) <= tilegemm.tolerance(30, "bf16", "f32")


def test_empty_products(torch):
    a, b = operands(torch, 0, 8, 5, torch.float32)
    assert tilegemm.gemm(a, b).shape == (0, 8)
    a, b = operands(torch, 6, 8, 0, torch.float32)
    c = torch.full((6, 8), 5.0, device="cuda")
    tilegemm.gemm(a, b, c, beta=0.5)  # k == 0: C = beta * C
    torch.cuda.synchronize()
    assert torch.equal(c, torch.full_like(c, 2.5))


@pytest.mark.parametrize("kernel", ["naive", "smem_tiled_t8", "smem_tiled_t16", "smem_tiled_t32",
                                    "smem_tiled_rect_32x16x16"])
def test_named_kernels(torch, kernel):
    a, b = operands(torch, 77, 65, 93, torch.float32)
    c = tilegemm.gemm(a, b, kernel=kernel)
    assert rel_error(torch, c, a.double() @ b.double()) <= tilegemm.tolerance(93)


def test_named_tf32_kernel_implies_tf32(torch):
    names = [r["name"] for r in tilegemm.kernels("tf32", "f32")
             if r["runs_here"] and r["name"].startswith("mma_sync")]
    if not names:
        pytest.skip("no mma.sync tf32 kernel runs on this GPU")
    a, b = operands(torch, 128, 128, 128, torch.float32, tf32_exact=True)
    c = tilegemm.gemm(a, b, kernel=names[0])
    assert rel_error(torch, c, a.double() @ b.double()) <= tilegemm.tolerance(128, "tf32")
    # On full-precision operands the rounding to tf32 shows: the kernel did read them as tf32.
    a, b = operands(torch, 128, 128, 128, torch.float32)
    ref = a.double() @ b.double()
    assert rel_error(torch, tilegemm.gemm(a, b, kernel=names[0]), ref) > 1e-5


def test_fp32_is_fp32_unless_tf32_is_asked_for(torch):
    # tf32 keeps 10 of fp32's 23 mantissa bits: on full-precision operands its error is orders
    # of magnitude above fp32's. Without tf32=True no kernel may take that shortcut.
    a, b = operands(torch, 512, 512, 256, torch.float32)
    ref = a.double() @ b.double()
    fp32 = rel_error(torch, tilegemm.gemm(a, b), ref)
    tf32 = rel_error(torch, tilegemm.gemm(a, b, tf32=True), ref)
    assert fp32 <= tilegemm.tolerance(256)
    assert tf32 > 20 * fp32


def test_current_side_stream(torch):
    a, b = operands(torch, 2048, 2048, 2048, torch.float32)
    side = torch.cuda.Stream()
    c = torch.full((2048, 2048), float("nan"), device="cuda")
    torch.cuda.synchronize()
    with torch.cuda.stream(side):
        torch.cuda._sleep(100_000_000)  # keeps the side stream busy
        tilegemm.gemm(a, b, c)
    # Queued behind the sleep on the side stream, not run on the default one.
    assert not side.query()
    assert torch.cuda.default_stream().query()
    side.synchronize()
    assert rel_error(torch, c, a.double() @ b.double()) <= tilegemm.tolerance(2048)


def test_explicit_stream_argument(torch):
    a, b = operands(torch, 256, 256, 256, torch.bfloat16)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    c = tilegemm.gemm(a, b, stream=s)
    s.synchronize()
    assert rel_error(torch, c, a.double() @ b.double()) <= tilegemm.tolerance(256, "bf16")
    c2 = tilegemm.gemm(a, b, stream=s.cuda_stream)
    s.synchronize()
    assert torch.equal(c, c2)


def test_captured_in_a_cuda_graph(torch):
    # Capture fails for a launch on any stream but the capturing one: this proves the current
    # stream is used, and that a call can be replayed.
    a, b = operands(torch, 512, 512, 512, torch.bfloat16)
    c = torch.empty(512, 512, device="cuda", dtype=torch.bfloat16)
    tilegemm.gemm(a, b, c)  # warm-up outside the capture (workspaces, attributes)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        tilegemm.gemm(a, b, c)
    c.fill_(float("nan"))
    graph.replay()
    torch.cuda.synchronize()
    assert rel_error(torch, c, a.double() @ b.double()) <= tilegemm.tolerance(512, "bf16")


def _ticks_while_calling(fn, seconds=0.2):
    """How often another thread ran while this one called fn in a loop, with the interpreter's
    switch interval so long that the GIL changes hands only when a holder lets it go: the other
    thread runs only while fn releases the GIL."""
    import sys
    import threading
    import time

    state = {"ticks": 0, "stop": False}

    def spin():
        while not state["stop"]:
            state["ticks"] += 1
            time.sleep(0)  # hands the GIL straight back

    thread = threading.Thread(target=spin, daemon=True)
    thread.start()
    time.sleep(0.01)
    old = sys.getswitchinterval()
    sys.setswitchinterval(100.0)
    try:
        before = state["ticks"]
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            fn()
        return state["ticks"] - before
    finally:
        sys.setswitchinterval(old)
        state["stop"] = True
        thread.join()


def test_gil_is_released_during_the_call(torch):
    a, b = operands(torch, 64, 64, 64, torch.float32)
    c = torch.empty(64, 64, device="cuda")
    stream = torch.cuda.current_stream().cuda_stream
    export = torch._C._to_dlpack
    # The control does the same host work but keeps the GIL: the other thread must not run.
    control = _ticks_while_calling(lambda: (export(a), export(b), export(c),
                                            tilegemm.tolerance(64)))
    released = _ticks_while_calling(lambda: tilegemm.gemm(a, b, c, stream=stream))
    torch.cuda.synchronize()
    assert control <= 2
    assert released >= 20


# --- errors that need real tensors ---------------------------------------------------------------

def test_cpu_tensor(torch):
    a = torch.rand(4, 5)
    with pytest.raises(ValueError, match="argument 'a': is a CPU tensor"):
        tilegemm.gemm(a, torch.rand(5, 3, device="cuda"))


def test_requires_grad(torch):
    a = torch.rand(4, 5, device="cuda", requires_grad=True)
    b = torch.rand(5, 3, device="cuda")
    with pytest.raises(ValueError, match="argument 'a': requires grad"):
        tilegemm.gemm(a, b)
    with pytest.raises(ValueError, match="argument 'b': requires grad"):
        tilegemm.gemm(a.detach(), b.requires_grad_(True))


@pytest.mark.parametrize("make, arg, text", [
    (lambda t: (t.rand(4, 5, device="cuda", dtype=t.float64), t.rand(5, 3, device="cuda")),
     "a", "dtype torch.float64 is not supported"),
    (lambda t: (t.ones(4, 5, device="cuda", dtype=t.int32), t.rand(5, 3, device="cuda")),
     "a", "dtype torch.int32"),
    (lambda t: (t.rand(4, 5, device="cuda"), t.rand(5, 3, device="cuda", dtype=t.float16)),
     "b", "dtype float16 differs from a's float32"),
    (lambda t: (t.rand(4, 5, device="cuda"), t.rand(6, 3, device="cuda")),
     "b", "does not chain"),
    (lambda t: (t.rand(2, 4, 5, device="cuda"), t.rand(5, 3, device="cuda")),
     "a", "2-D"),
    (lambda t: (t.rand(8, 10, device="cuda")[::2, ::2], t.rand(5, 3, device="cuda")),
     "a", "strided in both dimensions"),
])
def test_argument_errors(torch, make, arg, text):
    a, b = make(torch)
    with pytest.raises(ValueError, match=f"argument '{arg}': .*{text}"):
        tilegemm.gemm(a, b)


@pytest.mark.parametrize("kwargs, arg", [
    ({"kernel": "nosuch"}, "kernel"),
    ({"kernel": "smem_tiled_t16", "tf32": True}, "kernel"),
    ({"out_dtype": "float16"}, "out_dtype"),
])
def test_nothing_written_to_c_on_error(torch, kwargs, arg):
    a, b = operands(torch, 64, 64, 64, torch.float32)
    c = torch.full((64, 64), 7.0, device="cuda")
    with pytest.raises(ValueError, match=f"argument '{arg}'"):
        tilegemm.gemm(a, b, c, **kwargs)
    torch.cuda.synchronize()
    assert torch.equal(c, torch.full_like(c, 7.0))


def test_c_of_the_wrong_dtype_or_shape(torch):
    a, b = operands(torch, 8, 6, 4, torch.bfloat16)
    with pytest.raises(ValueError, match="argument 'c': dtype float16 cannot hold"):
        tilegemm.gemm(a, b, torch.empty(8, 6, device="cuda", dtype=torch.float16))
    with pytest.raises(ValueError, match=r"argument 'c': shape \(6, 8\)"):
        tilegemm.gemm(a, b, torch.empty(6, 8, device="cuda", dtype=torch.bfloat16))


def test_different_devices(torch):
    if torch.cuda.device_count() < 2:
        pytest.skip("one CUDA device: operands on different devices need two "
                    "(test_gemm_errors covers the check with views)")
    a = torch.rand(4, 5, device="cuda:0")
    b = torch.rand(5, 3, device="cuda:1")
    with pytest.raises(ValueError, match="argument 'b': is on CUDA device 1"):
        tilegemm.gemm(a, b)


def test_second_device(torch):
    if torch.cuda.device_count() < 2:
        pytest.skip("one CUDA device: the operands' device decides, tested with two")
    a = torch.rand(64, 32, device="cuda:1")
    b = torch.rand(32, 16, device="cuda:1")
    c = tilegemm.gemm(a, b)
    assert c.device == a.device
    assert rel_error(torch, c, a.double() @ b.double()) <= tilegemm.tolerance(32)

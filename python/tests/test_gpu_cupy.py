"""tilegemm.gemm on CuPy arrays: the dtypes CuPy has, transposed views, c= with beta, CuPy's
current stream, and CuPy's argument errors."""
import pytest

import tilegemm

TYPES = [("float32", "float32", False, "f32", "f32"),
         ("float32", "float32", True, "tf32", "f32"),
         ("float16", "float16", False, "f16", "f16"),
         ("float16", "float32", False, "f16", "f32")]


def rel_error(cupy, c, ref):
    return float(cupy.linalg.norm(c.astype(cupy.float64) - ref) / cupy.linalg.norm(ref))


def operands(cupy, m, n, k, dtype, seed=0, tf32_exact=False):
    """Uniform in [-1, 1); tf32_exact: multiples of 2^-10 (see test_gpu_torch.operands)."""
    rng = cupy.random.default_rng(seed)
    if tf32_exact:
        a = rng.integers(-1024, 1024, (m, k)).astype(cupy.float32) / 1024
        b = rng.integers(-1024, 1024, (k, n)).astype(cupy.float32) / 1024
        return a.astype(dtype), b.astype(dtype)
    a = (rng.random((m, k), dtype=cupy.float32) * 2 - 1).astype(dtype)
    b = (rng.random((k, n), dtype=cupy.float32) * 2 - 1).astype(dtype)
    return a, b


@pytest.mark.parametrize("ab, cd, tf32, lib_ab, lib_c", TYPES,
                         ids=[f"{t[3]}->{t[4]}" for t in TYPES])
@pytest.mark.parametrize("shape", [(1, 1, 1), (33, 17, 45), (300, 200, 500), (1024, 1024, 1024)],
                         ids=lambda s: "x".join(map(str, s)))
def test_every_dtype_against_fp64(cupy, ab, cd, tf32, lib_ab, lib_c, shape):
    m, n, k = shape
    a, b = operands(cupy, m, n, k, getattr(cupy, ab), tf32_exact=tf32)
    c = tilegemm.gemm(a, b, out_dtype=cd if cd != ab else None, tf32=tf32)
    cupy.cuda.get_current_stream().synchronize()
    assert c.shape == (m, n) and c.dtype == getattr(cupy, cd)
    ref = a.astype(cupy.float64) @ b.astype(cupy.float64)
    assert rel_error(cupy, c, ref) <= tilegemm.tolerance(k, lib_ab, lib_c)


@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
def test_transposed_views(cupy, ta, tb):
    m, n, k = 70, 90, 50
    a, b = operands(cupy, m, n, k, cupy.float32)
    a_in = cupy.ascontiguousarray(a.T).T if ta else a
    b_in = cupy.ascontiguousarray(b.T).T if tb else b
    assert a_in.flags.f_contiguous == ta or m == 1
    c = tilegemm.gemm(a_in, b_in)
    ref = a.astype(cupy.float64) @ b.astype(cupy.float64)
    assert rel_error(cupy, c, ref) <= tilegemm.tolerance(k)


def test_c_with_beta_and_column_major_c(cupy):
    m, n, k = 64, 48, 80
    a, b = operands(cupy, m, n, k, cupy.float16)
    c0 = cupy.asfortranarray(cupy.random.default_rng(3).random((m, n), dtype=cupy.float32))
    c = c0.copy(order="F")
    assert tilegemm.gemm(a, b, c, alpha=2.0, beta=-0.5) is c
    ref = 2.0 * (a.astype(cupy.float64) @ b.astype(cupy.float64)) - 0.5 * c0.astype(cupy.float64)
    assert rel_error(cupy, c, ref) <= tilegemm.tolerance(k, "f16", "f32")


def test_current_stream(cupy):
    a, b = operands(cupy, 512, 512, 512, cupy.float32)
    with cupy.cuda.Stream(non_blocking=True) as s:
        c = tilegemm.gemm(a, b)
        s.synchronize()
    ref = a.astype(cupy.float64) @ b.astype(cupy.float64)
    assert rel_error(cupy, c, ref) <= tilegemm.tolerance(512)


def test_cupy_stream_argument(cupy):
    a, b = operands(cupy, 128, 128, 128, cupy.float16)
    s = cupy.cuda.Stream(non_blocking=True)
    cupy.cuda.get_current_stream().synchronize()
    c = tilegemm.gemm(a, b, stream=s)
    s.synchronize()
    ref = a.astype(cupy.float64) @ b.astype(cupy.float64)
    assert rel_error(cupy, c, ref) <= tilegemm.tolerance(128, "f16")


def test_errors(cupy):
    a, b = operands(cupy, 8, 6, 4, cupy.float32)
    with pytest.raises(ValueError, match="argument 'a': dtype float64 is not supported"):
        tilegemm.gemm(a.astype(cupy.float64), b)
    with pytest.raises(ValueError, match="argument 'b': dtype float16 differs"):
        tilegemm.gemm(a, b.astype(cupy.float16))
    with pytest.raises(ValueError, match="argument 'a': .*strided in both dimensions"):
        tilegemm.gemm(cupy.zeros((16, 8), cupy.float32)[::2, ::2], b)
    with pytest.raises(ValueError, match="argument 'out_dtype': a float16 product cannot be "
                                         "bfloat16"):
        tilegemm.gemm(a.astype(cupy.float16), b.astype(cupy.float16), out_dtype="bfloat16")
    with pytest.raises(ValueError, match="argument 'c': dtype float16 cannot hold a float32"):
        tilegemm.gemm(a, b, cupy.empty((8, 6), cupy.float16))

"""tilegemm.gemm's argument checking, without a GPU: DLPack views of no memory that claim to live
on a CUDA device (the extension's _testing_device_view) reach every check the Python layer and the
C++ library make before a launch. The views claim device 7777, which no machine has: on a machine
with a GPU a call that passed every check would fail to make that device current before any
launch, so their address is never touched there either."""
import pytest

import tilegemm
from tilegemm import _tilegemm

BASE = 1 << 20


NO_DEVICE = 7777


def view(rows, cols, strides=None, dtype="float32", device=NO_DEVICE, address=BASE):
    strides = strides if strides is not None else (cols, 1)
    return _tilegemm._testing_device_view([rows, cols], list(strides), dtype, device, address)


A, B, C = view(4, 5), view(5, 3), view(4, 3)


def test_testing_views_speak_dlpack():
    assert A.__dlpack_device__() == (2, NO_DEVICE)  # kDLCUDA


CASES = [
    # (id, call, argument named)
    ("list b", lambda: tilegemm.gemm(A, [[1.0]], C, stream=0), "b"),
    ("float64 a", lambda: tilegemm.gemm(view(4, 5, dtype="float64"), B, C, stream=0), "a"),
    ("int32 b", lambda: tilegemm.gemm(A, view(5, 3, dtype="int32"), C, stream=0), "b"),
    ("3-D a", lambda: tilegemm.gemm(
        _tilegemm._testing_device_view([2, 4, 5], [20, 5, 1], "float32", NO_DEVICE, BASE), B, C,
        stream=0), "a"),
    ("mixed dtypes", lambda: tilegemm.gemm(A, view(5, 3, dtype="float16"), C, stream=0), "b"),
    ("k mismatch", lambda: tilegemm.gemm(A, view(6, 3), C, stream=0), "b"),
    ("c shape", lambda: tilegemm.gemm(A, B, view(4, 4), stream=0), "c"),
    ("b on another device", lambda: tilegemm.gemm(A, view(5, 3, device=NO_DEVICE + 1), C, stream=0), "b"),
    ("c on another device", lambda: tilegemm.gemm(A, B, view(4, 3, device=NO_DEVICE + 1), stream=0), "c"),
    ("both-dim strided a", lambda: tilegemm.gemm(view(4, 5, (10, 2)), B, C, stream=0), "a"),
    ("both-dim strided c", lambda: tilegemm.gemm(A, B, view(4, 3, (6, 2)), stream=0), "c"),
    ("negative strides b", lambda: tilegemm.gemm(A, view(5, 3, (-3, 1)), C, stream=0), "b"),
    ("broadcast a (lda 0)", lambda: tilegemm.gemm(view(4, 5, (0, 1)), B, C, stream=0), "a"),
    ("ldb below the minimum", lambda: tilegemm.gemm(A, view(5, 3, (2, 1)), C, stream=0), "b"),
    ("misaligned a", lambda: tilegemm.gemm(view(4, 5, address=BASE + 2), B, C, stream=0), "a"),
    ("misaligned c", lambda: tilegemm.gemm(A, B, view(4, 3, address=BASE + 1), stream=0), "c"),
    ("f16 c for f32 product", lambda: tilegemm.gemm(A, B, view(4, 3, dtype="float16"),
                                                   stream=0), "c"),
    ("out_dtype not c's", lambda: tilegemm.gemm(A, B, C, out_dtype="bfloat16", stream=0),
     "out_dtype"),
    ("unknown out_dtype", lambda: tilegemm.gemm(A, B, C, out_dtype="float64", stream=0),
     "out_dtype"),
    ("tf32 on bf16", lambda: tilegemm.gemm(view(4, 5, dtype="bfloat16"),
                                           view(5, 3, dtype="bfloat16"), C, tf32=True, stream=0),
     "tf32"),
    ("unknown kernel", lambda: tilegemm.gemm(A, B, C, kernel="nosuch", stream=0), "kernel"),
    ("kernel not a string", lambda: tilegemm.gemm(A, B, C, kernel=3, stream=0), "kernel"),
    ("kernel cannot implement", lambda: tilegemm.gemm(A, B, C, kernel="wgmma_tf32_128x256x32_s4",
                                                      stream=0), "kernel"),
    ("beta without c", lambda: tilegemm.gemm(A, B, beta=1.0, stream=0), "beta"),
    ("c and out", lambda: tilegemm.gemm(A, B, C, out=C, stream=0), "out"),
    ("alpha not a number", lambda: tilegemm.gemm(A, B, C, alpha="x", stream=0), "alpha"),
    ("stream not a stream", lambda: tilegemm.gemm(A, B, C, stream="default"), "stream"),
    ("negative stream", lambda: tilegemm.gemm(A, B, C, stream=-1), "stream"),
    ("no stream for a DLPack producer", lambda: tilegemm.gemm(A, B, C), "stream"),
    ("no c for a DLPack producer", lambda: tilegemm.gemm(A, B, stream=0), "c"),
]


@pytest.mark.parametrize("call, arg", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_argument_errors_name_the_argument(call, arg):
    with pytest.raises(ValueError, match=rf"^tilegemm\.gemm: argument '{arg}': "):
        call()


def test_a_numpy_array_is_refused():
    np = pytest.importorskip("numpy", reason="numpy is not installed")
    with pytest.raises(ValueError, match="argument 'a': is a NumPy array in host memory"):
        tilegemm.gemm(np.zeros((4, 5), np.float32), B, C, stream=0)


def test_strided_error_says_why():
    with pytest.raises(ValueError, match=r"strided in both dimensions .*strides \(10, 2\)"):
        tilegemm.gemm(view(4, 5, (10, 2)), B, C, stream=0)


def test_validation_error_shows_the_view():
    with pytest.raises(ValueError, match=r"strides \(2, 1\) read as row-major with leading "
                                         r"dimension 2: ldb: .*\(invalid_ldb\)"):
        tilegemm.gemm(A, view(5, 3, (2, 1)), C, stream=0)


def test_transposed_views_pass_the_checks():
    # A transposed view is a layout: column-major A (strides (1, 4)) and B (strides (1, 5)),
    # and a size-1 dimension's stride decides nothing. These fail only later, on the kernel name.
    for a, b, c in [(view(4, 5, (1, 4)), view(5, 3, (1, 5)), view(4, 3, (1, 4))),
                    (view(1, 5, (99, 1)), view(5, 1, (7, 99)), view(1, 1, (0, 0)))]:
        with pytest.raises(ValueError, match="argument 'kernel': 'nosuch'"):
            tilegemm.gemm(a, b, c, kernel="nosuch", stream=0)


def test_an_empty_product_returns_c_without_a_launch(no_gpu):
    c = view(0, 3)
    assert tilegemm.gemm(view(0, 5), B, c, stream=0) is c
    c = view(4, 0)
    assert tilegemm.gemm(A, view(5, 0), c, stream=0) is c


def test_a_valid_call_without_its_device_is_a_runtime_error():
    # No GPU: the library reports cudaErrorNoDevice; a GPU: device 7777 cannot be made current.
    with pytest.raises(RuntimeError, match="cudaErrorNoDevice|cannot make CUDA device 7777"):
        tilegemm.gemm(A, B, C, stream=0)

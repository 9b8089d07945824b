"""tilegemm's Python API over the extension: gemm() on torch and CuPy arrays, and the lab.

Everything the C++ library already knows (validation, the registry, tolerances, the testbed, the
benchmark, the analysis model) is asked of it through the extension; this module adds only what
Python knows: which framework an array belongs to, its current stream, whether a tensor requires
grad, and how to allocate a result.
"""

import json
import sys

from . import _tilegemm as _ext

__all__ = [
    "gemm",
    "kernels",
    "devices",
    "cuda_available",
    "tolerance",
    "element_tolerance",
    "verify",
    "bench",
    "analyze",
    "set_fp32_math",
    "fp32_math",
    "Testbed",
]

Testbed = _ext.Testbed

# What each A/B type may produce (the library's types_supported, for argument errors that name
# the Python argument before anything is allocated).
_ALLOWED_OUT = {"f32": ("f32",), "bf16": ("bf16", "f32"), "f16": ("f16", "f32")}
_DTYPE_ALIASES = {
    "float32": "f32",
    "float": "f32",
    "f32": "f32",
    "tf32": "tf32",
    "bfloat16": "bf16",
    "bf16": "bf16",
    "float16": "f16",
    "half": "f16",
    "f16": "f16",
}
_FRAMEWORK_NAMES = {"f32": "float32", "bf16": "bfloat16", "f16": "float16"}


def _error(function, arg, message):
    return ValueError(f"tilegemm.{function}: argument '{arg}': {message}")


def _dtype_code(function, arg, value, allow_tf32=False):
    """The library's name of a dtype given as a string, a torch dtype or a NumPy/CuPy dtype."""
    text = value if isinstance(value, str) else str(value)
    text = text.rsplit(".", 1)[-1]  # "torch.float32"
    if text.startswith("<class '"):  # numpy.float32 as a type
        text = text[len("<class '"):].rstrip("'>").rsplit(".", 1)[-1]
    code = _DTYPE_ALIASES.get(text)
    if code is None or (code == "tf32" and not allow_tf32):
        allowed = "f32, tf32, bf16 or f16" if allow_tf32 else "float32, bfloat16 or float16"
        raise _error(function, arg, f"unknown dtype {value!r}; expected {allowed}")
    return code


def _lab_dtype(function, arg, value):
    if value is None:
        return ""
    if isinstance(value, str) and value not in _DTYPE_ALIASES:
        return value  # the library's parser names the argument in its error
    return _dtype_code(function, arg, value, allow_tf32=True)


# ---------------------------------------------------------------------------------------------
# Frameworks
# ---------------------------------------------------------------------------------------------


class _Torch:
    name = "torch"

    def __init__(self, torch):
        self.torch = torch
        self.codes = {torch.float32: "f32", torch.bfloat16: "bf16", torch.float16: "f16"}
        self.dtypes = {code: dtype for dtype, code in self.codes.items()}
        # The current stream's handle without building a torch.cuda.Stream object per call.
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        self._raw_stream = raw if callable(raw) else None
        # torch's own DLPack exporter, the C function Tensor.__dlpack__ ends in: its capsule
        # skips __dlpack__'s Python-level argument handling on every call (gemm checks grad and
        # device itself, and hands over no stream, so nothing else in it applies).
        to_dlpack = getattr(torch._C, "_to_dlpack", None)
        self.export = to_dlpack if callable(to_dlpack) else (lambda x: x)

    def operand(self, x, arg):
        """(dtype code, device index) of a tensor gemm can read, else a ValueError naming arg."""
        if not x.is_cuda:
            raise _error("gemm", arg,
                         f"is a CPU tensor (device {x.device}); tilegemm computes on CUDA devices: "
                         "move it with .cuda()")
        if x.requires_grad:
            raise _error("gemm", arg,
                         "requires grad, and tilegemm.gemm records no autograd graph: pass "
                         f"{arg}.detach(), or use tilegemm.torch.gemm, whose op has a backward")
        code = self.codes.get(x.dtype)
        if code is None:
            raise _error("gemm", arg,
                         f"dtype {x.dtype} is not supported; tilegemm computes torch.float32, "
                         "torch.bfloat16 and torch.float16")
        if x.dim() != 2:
            raise _error("gemm", arg, f"must be a 2-D matrix; it has shape {tuple(x.shape)}")
        return code, x.get_device()

    def empty(self, a, b, code, device):
        return a.new_empty((a.shape[0], b.shape[1]), dtype=self.dtypes[code])

    def current_stream(self, device):
        if self._raw_stream is not None:
            return self._raw_stream(device)
        return self.torch.cuda.current_stream(device).cuda_stream


class _CuPy:
    name = "cupy"

    @staticmethod
    def export(x):
        return x

    def __init__(self, cupy):
        self.cupy = cupy
        self.dtypes = {"f32": cupy.float32, "f16": cupy.float16}

    def operand(self, x, arg):
        name = str(x.dtype)
        code = {"float32": "f32", "float16": "f16", "bfloat16": "bf16"}.get(name)
        if code is None:
            raise _error("gemm", arg,
                         f"dtype {name} is not supported; tilegemm computes float32, bfloat16 "
                         "and float16")
        if x.ndim != 2:
            raise _error("gemm", arg, f"must be a 2-D matrix; it has shape {x.shape}")
        return code, x.device.id

    def empty(self, a, b, code, device):
        # The product's own type is a's dtype object (a bfloat16 array's included); a wider
        # result is float32.
        dtype = a.dtype if self.operand(a, "a")[0] == code else self.dtypes[code]
        with self.cupy.cuda.Device(device):
            return self.cupy.empty((a.shape[0], b.shape[1]), dtype=dtype)

    def current_stream(self, device):
        with self.cupy.cuda.Device(device):
            return self.cupy.cuda.get_current_stream().ptr


class _DLPack:
    """Any other producer of __dlpack__: read through DLPack, but no allocation and no stream."""

    name = "dlpack"

    @staticmethod
    def export(x):
        return x

    def operand(self, x, arg):
        try:
            device_type, device = x.__dlpack_device__()
        except Exception as e:  # a producer that cannot say is not usable
            raise _error("gemm", arg, f"__dlpack_device__() failed: {e}") from None
        if int(device_type) not in (2, 13):  # kDLCUDA, kDLCUDAManaged
            where = "a CPU array" if int(device_type) == 1 else "not on a CUDA device"
            raise _error("gemm", arg,
                         f"is {where} (DLPack device type {int(device_type)}); "
                         "tilegemm computes on CUDA devices")
        return None, int(device)  # dtype and rank: the extension reads them from the capsule

    def empty(self, a, b, code, device):
        raise _error("gemm", "c",
                     "is required for arrays other than torch tensors and CuPy arrays: tilegemm "
                     "cannot allocate the result in their framework")

    def current_stream(self, device):
        raise _error("gemm", "stream",
                     "is required for arrays other than torch tensors and CuPy arrays: their "
                     "framework's current stream is unknown to tilegemm")


_frameworks = {}
_dlpack = _DLPack()


def _framework(x, arg):
    tp = type(x)
    fw = _frameworks.get(tp)
    if fw is not None:
        return fw
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(x, torch.Tensor):
        fw = _frameworks.setdefault("torch", _Torch(torch))
    else:
        cupy = sys.modules.get("cupy")
        if cupy is not None and isinstance(x, cupy.ndarray):
            fw = _frameworks.setdefault("cupy", _CuPy(cupy))
    if fw is None:
        kind = f"{tp.__module__}.{tp.__qualname__}"
        if kind.startswith("numpy."):
            raise _error("gemm", arg,
                         "is a NumPy array in host memory; tilegemm computes on CUDA device "
                         "arrays (torch tensors on a CUDA device, CuPy arrays)")
        if hasattr(x, "__dlpack__") and hasattr(x, "__dlpack_device__"):
            return _dlpack
        raise _error("gemm", arg,
                     f"is a {kind}, not a device array: tilegemm takes torch tensors, CuPy arrays "
                     "or other producers of __dlpack__")
    _frameworks[tp] = fw
    return fw


def _stream_handle(stream):
    if isinstance(stream, int) and not isinstance(stream, bool):
        if stream < 0:
            raise _error("gemm", "stream", f"a stream handle is not negative; got {stream}")
        return stream
    protocol = getattr(stream, "__cuda_stream__", None)
    if protocol is not None:
        return int(protocol()[1])
    for attr in ("cuda_stream", "ptr", "handle"):
        value = getattr(stream, attr, None)
        if isinstance(value, int):
            return value
    raise _error("gemm", "stream",
                 f"{stream!r} is no CUDA stream: give None (the current stream), a "
                 "torch.cuda.Stream, a cupy.cuda.Stream, an object with __cuda_stream__, or a "
                 "cudaStream_t as an int")


# ---------------------------------------------------------------------------------------------
# gemm
# ---------------------------------------------------------------------------------------------


def gemm(a, b, c=None, *, alpha=1.0, beta=0.0, kernel="auto", out_dtype=None, stream=None,
         tf32=False, out=None):
    """C = alpha * A @ B + beta * C on CUDA device arrays, by tilegemm's C++ library.

    a (m x k) and b (k x n): torch tensors or CuPy arrays on one CUDA device, of one dtype
    (float32, bfloat16, float16), any strides the library reads: row- or column-major with any
    leading dimension, so a transposed view is read in place, never copied. A view strided in
    both dimensions is an error.

    c (m x n), or its torch spelling out=: written in place and returned; without it a new
    array of dtype out_dtype (default: a's dtype) is returned. float32 operands give float32;
    bfloat16 and float16 give their own type or float32. beta != 0 needs c.

    kernel: "auto" (the library's dispatcher) or a name from tilegemm.kernels().
    tf32: float32 operands read with tf32 tensor-core math (as cuBLAS's FAST_TF32 compute type);
    off by default, so a float32 product is plain fp32 unless asked. A named kernel that computes
    only tf32 (wgmma_tf32_*, mma_sync_tf32_*) implies it.
    stream: None (the current torch or CuPy stream of the operands' device), a torch/CuPy stream,
    an object with __cuda_stream__, or a raw cudaStream_t as an int. The launch is asynchronous on
    that stream, with the GIL released while the library validates and enqueues it.

    Errors are ValueError naming the argument; nothing is launched and c is untouched.
    """
    if out is not None:
        if c is not None:
            raise _error("gemm", "out", "give c or out, not both (out is c's other name)")
        c = out
        c_arg = "out"
    else:
        c_arg = "c"
    fa = _framework(a, "a")
    code, device = fa.operand(a, "a")
    fb = _framework(b, "b")
    code_b, device_b = fb.operand(b, "b")
    if device_b != device:
        raise _error("gemm", "b", f"is on CUDA device {device_b}, a on device {device}")
    known = code is not None and code_b is not None  # torch or CuPy: dtype and shape read here
    if known:
        if code_b != code:
            raise _error("gemm", "b",
                         f"dtype {_FRAMEWORK_NAMES[code_b]} differs from a's "
                         f"{_FRAMEWORK_NAMES[code]}; A and B share one element type")
        m, k = a.shape
        k_b, n = b.shape
        if k_b != k:
            raise _error("gemm", "b",
                         f"shape ({k_b}, {n}) does not chain with a's ({m}, {k}): b needs {k} rows")
    if out_dtype is not None:
        out_code = _dtype_code("gemm", "out_dtype", out_dtype)
        if code is not None and out_code not in _ALLOWED_OUT[code]:
            raise _error("gemm", "out_dtype",
                         f"a {_FRAMEWORK_NAMES[code]} product cannot be "
                         f"{_FRAMEWORK_NAMES[out_code]}; it can be "
                         + " or ".join(_FRAMEWORK_NAMES[x] for x in _ALLOWED_OUT[code]))
    else:
        out_code = None
    c_given = c is not None
    if c_given:
        fc = _framework(c, c_arg)
        code_c, device_c = fc.operand(c, c_arg)
        if device_c != device:
            raise _error("gemm", c_arg, f"is on CUDA device {device_c}, a on device {device}")
        if known and code_c is not None:
            if code_c not in _ALLOWED_OUT[code]:
                raise _error("gemm", c_arg,
                             f"dtype {_FRAMEWORK_NAMES[code_c]} cannot hold a "
                             f"{_FRAMEWORK_NAMES[code]} product; it can be "
                             + " or ".join(_FRAMEWORK_NAMES[x] for x in _ALLOWED_OUT[code]))
            if out_code is not None and out_code != code_c:
                raise _error("gemm", "out_dtype",
                             f"{_FRAMEWORK_NAMES[out_code]} differs from {c_arg}'s dtype "
                             f"{_FRAMEWORK_NAMES[code_c]}")
            if tuple(c.shape) != (m, n):
                raise _error("gemm", c_arg,
                             f"shape {tuple(c.shape)} is not the product's ({m}, {n})")
    elif beta != 0:
        raise _error("gemm", "beta",
                     f"is {beta}, which scales an existing C: pass c (or out) to accumulate into")
    if not isinstance(kernel, str):
        raise _error("gemm", "kernel", f"must be a kernel name or 'auto'; got {kernel!r}")
    try:
        alpha = float(alpha)
        beta = float(beta)
    except (TypeError, ValueError):
        bad = "alpha" if not _is_real(alpha) else "beta"
        raise _error("gemm", bad, "must be a real number") from None
    handle = fa.current_stream(device) if stream is None else _stream_handle(stream)
    if c is None:
        c = fa.empty(a, b, out_code or code, device)
    _ext.gemm(fa.export(a), fb.export(b), fc.export(c) if c_given else fa.export(c), alpha, beta,
              kernel, handle, bool(tf32), out_code or "")
    return c


def _is_real(x):
    try:
        float(x)
        return True
    except (TypeError, ValueError):
        return False


# ---------------------------------------------------------------------------------------------
# The lab
# ---------------------------------------------------------------------------------------------


def set_fp32_math(math):
    """How kernel="auto" computes fp32 products, process-wide: "3xtf32" (the default: as three
    tf32 tensor-core products where that pays, on Hopper; error below cuBLAS SGEMM's but at the
    shortest K; NaN propagates, an Inf input may come out NaN; docs/perf-notes.md "Rung 22") or
    "simt" (the CUDA cores only, SGEMM's semantics). The C++ set_fp32_math; TILEGEMM_FP32_MATH
    sets it at start-up."""
    if math not in ("3xtf32", "simt"):
        raise _error("set_fp32_math", "math", f"expected '3xtf32' or 'simt', got {math!r}")
    _ext.set_fp32_math_3xtf32(math == "3xtf32")


def fp32_math():
    """The current fp32 math of kernel="auto": "3xtf32" or "simt" (set_fp32_math)."""
    return "3xtf32" if _ext.fp32_math_is_3xtf32() else "simt"


def cuda_available():
    """Whether the CUDA runtime sees a device."""
    return _ext.cuda_device_count() > 0


def devices():
    """The CUDA devices present, as `tilegemm devices --format json` describes them."""
    return json.loads(_ext.devices_json())


def kernels(dtype=None, out_dtype=None):
    """Every registered kernel as a record (`tilegemm list --format json`): name, family, rung,
    op class, the (dtype, dtype_c) pairs it computes, alignment, the GPUs it runs on and whether it
    runs here, tile numbers and a summary. With dtype (and out_dtype), only those computing it."""
    records = json.loads(_ext.kernels_json())["kernels"]
    if dtype is None and out_dtype is None:
        return records
    ab, c = _ext.parse_types(_lab_dtype("kernels", "dtype", dtype or "f32"),
                             _lab_dtype("kernels", "out_dtype", out_dtype))
    return [r for r in records
            if any(t["dtype"] == ab and t["dtype_c"] == c for t in r["types"])]


def tolerance(k, dtype="f32", out_dtype=None):
    """The verification bound of ||C - ref||_F / ||ref||_F at depth k (the library's rule)."""
    return _ext.tolerance(_lab_dtype("tolerance", "dtype", dtype),
                          _lab_dtype("tolerance", "out_dtype", out_dtype), int(k))


def element_tolerance(k, dtype="f32", out_dtype=None):
    """The bound on one element's error, in units of the reference's rms (the library's rule)."""
    return _ext.element_tolerance(_lab_dtype("element_tolerance", "dtype", dtype),
                                  _lab_dtype("element_tolerance", "out_dtype", out_dtype), int(k))


def _progress(progress):
    if progress is None or progress is False:
        return None
    if progress is True:
        return lambda line: print(line, file=sys.stderr, flush=True)
    if not callable(progress):
        raise ValueError("tilegemm: argument 'progress': must be None, True or a callable")
    return progress


def _shapes(function, shapes):
    try:
        out = [tuple(int(v) for v in s) for s in shapes]
    except TypeError:
        raise _error(function, "shapes", "must be a list of (m, n, k)") from None
    if any(len(s) != 3 for s in out):
        raise _error(function, "shapes", "must be a list of (m, n, k)")
    return out


def _triple(function, arg, value, kind):
    value = tuple(value) if not isinstance(value, str) else tuple(value.split(","))
    if len(value) != 3:
        raise _error(function, arg, f"needs three values (a, b, c); got {value!r}")
    return tuple(kind(v) for v in value)


def verify(kernels="*", *, dtype="f32", out_dtype=None, shapes=None, fuzz=0, seed=1, alpha=1.0,
           beta=0.0, layouts=("row", "row", "row"), pads=(0, 0, 0), progress=None):
    """Verify kernels against the fp64 reference, as `tilegemm verify` does.

    kernels: comma-separated globs over the registry's names, and "auto". Without shapes, the
    standard sweep (over 300 cases: sizes 1 to 1025, every layout mix, alpha/beta pairs, padded
    leading dimensions) plus `fuzz` random cases; with shapes, one case per (m, n, k) with the
    given scalars, layouts ("row"/"col" for a, b, c) and leading-dimension pads.
    Returns the report record: passed, per-kernel summaries, failures with replay commands.
    """
    if shapes is not None:
        shapes = _shapes("verify", shapes)
    report = _ext.verify_json(kernels, _lab_dtype("verify", "dtype", dtype),
                              _lab_dtype("verify", "out_dtype", out_dtype), shapes, int(fuzz),
                              int(seed), float(alpha), float(beta),
                              _triple("verify", "layouts", layouts, str),
                              _triple("verify", "pads", pads, int), _progress(progress))
    return json.loads(report)


def bench(kernels="auto", shapes=((4096, 4096, 4096),), *, dtype="f32", out_dtype=None,
          alpha=1.0, beta=0.0, layouts=("row", "row", "row"), pads=(0, 0, 0), warmup=10, reps=50,
          rounds=1, cold=False, block=True, seed=1, progress=None):
    """Verify, then time kernels beside cuBLAS, as `tilegemm bench` does (CUDA events around each
    launch, median of reps after warmup; rounds interleave the kernels; block=False is
    `--no-block`: launches timed as the host enqueues them, without the blocking kernel).

    Returns the report record, the same JSON `tilegemm bench --format json` writes: device,
    settings and "results", one record per (shape, kernel) with median_ms, tflops, cublas_ratio,
    rel_error and status; "passed" is false when any row FAILED verification.
    """
    shapes = _shapes("bench", shapes)
    command = (f"tilegemm.bench(kernels={kernels!r}, shapes={shapes!r}, dtype={dtype!r}, "
               f"out_dtype={out_dtype!r})")
    report = _ext.bench_json(kernels, shapes, _lab_dtype("bench", "dtype", dtype),
                             _lab_dtype("bench", "out_dtype", out_dtype), float(alpha),
                             float(beta), _triple("bench", "layouts", layouts, str),
                             _triple("bench", "pads", pads, int), int(warmup), int(reps),
                             int(rounds), bool(cold), bool(block), int(seed), command,
                             _progress(progress))
    return json.loads(report)


def analyze(m=1024, n=1024, k=1024, *, tile=32, kernel=None, dtype="f32", out_dtype=None,
            layouts=("row", "row", "row"), device="h200", regs=32, format="json"):
    """The library's analysis (`tilegemm analyze`): memory traffic of the naive and tiled models
    against the minimum (seed 004's analyze_tiled_traffic), arithmetic intensity, roofline, and
    the occupancy of tile sizes 8, 16, 32 and of `kernel` (seed 004's analyze_tile_sizes).
    No GPU needed. format="json" returns the record; "table" or "md" the text `analyze` prints.
    tile: T for a square T x T x T tile, or (BM, BN, BK)."""
    if isinstance(tile, int):
        tile = (tile, tile, tile)
    tile = _triple("analyze", "tile", tile, int)
    text = _ext.analyze(int(m), int(n), int(k), tile, kernel or "",
                        _lab_dtype("analyze", "dtype", dtype),
                        _lab_dtype("analyze", "out_dtype", out_dtype),
                        _triple("analyze", "layouts", layouts, str), device, int(regs), format)
    return json.loads(text) if format == "json" else text

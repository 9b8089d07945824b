"""Seed 004's Numba lab beside the C++ library: `python -m tilegemm.numba_lab`.

  analyze_tiled_traffic(M, K, N, tile_size)  the seed's traffic comparison (naive, tiled, minimum)
  analyze_tile_sizes()                       the seed's tile-size table (8, 16, 32, and 32x16x16)
      both answered by the C++ analysis model (tilegemm.analyze): one model, not two.
  verify_host(kernel, m, n, k)               a Numba kernel against an fp64 NumPy product, with
                                             the library's tolerance rule (runs on Numba's CUDA
                                             simulator: NUMBA_ENABLE_CUDASIM=1)
  verify_device(kernel, m, n, k)             a Numba kernel on the GPU in the library's testbed:
                                             the same inputs, NaN-poisoned C and fp64 device
                                             reference as every C++ kernel
  benchmark(sizes)                           each Numba kernel beside its C++ twin and cuBLAS

The kernels themselves are in tilegemm.numba_lab.kernels (importing it imports Numba).
"""

import contextlib
import math
import os
import sys
import warnings

import tilegemm

__all__ = [
    "analyze_tiled_traffic",
    "analyze_tile_sizes",
    "check_result",
    "verify_host",
    "verify_device",
    "benchmark",
    "simulator_enabled",
    "HOST_SIZES",
    "DEVICE_SIZES",
    "main",
]

# Sizes for the simulator (every thread a Python thread: keep the blocks few) and for the GPU;
# most are not multiples of any tile, so the zero-padded edges are exercised.
HOST_SIZES = [(1, 1, 1), (19, 13, 21), (33, 17, 45), (40, 35, 9)]
DEVICE_SIZES = [(1, 1, 1), (33, 17, 45), (100, 75, 130), (256, 256, 256), (257, 255, 1000),
                (1024, 1024, 1024)]


def simulator_enabled():
    return os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")


# ---------------------------------------------------------------------------------------------
# The seed's analysis, answered by the library
# ---------------------------------------------------------------------------------------------


def analyze_tiled_traffic(M, K, N, tile_size, *, file=None):
    """Seed 004's `analyze_tiled_traffic(M, K, N, tile_size)`: prints its comparison and returns
    the library's traffic record (tilegemm.analyze(...)["traffic"])."""
    out = file or sys.stdout
    report = tilegemm.analyze(M, N, K, tile=tile_size)
    t = report["traffic"]
    print(f"Matrix multiply: ({M}×{K}) @ ({K}×{N}), Tile size: {tile_size}", file=out)
    print("\nMemory traffic comparison:", file=out)
    print(f"  Naive:    {t['naive']}", file=out)
    print(f"  Tiled:    {t['tiled']}", file=out)
    print(f"  Minimum:  {t['minimum']}", file=out)
    print(f"\nReduction factor: {t['reduction']:.1f}x", file=out)
    print(f"Theoretical max:  {t['max_reduction']:.0f}x", file=out)
    return t


def analyze_tile_sizes(*, kernel="smem_tiled_rect_32x16x16", device="h200", file=None):
    """Seed 004's `analyze_tile_sizes()`: tiles 8, 16 and 32 (and the rectangular exercise's
    32x16x16), each with its threads, shared memory, reuse and the seed's two block limits, beside
    what the library's occupancy model says for `device`. Returns the library's tile rows."""
    out = file or sys.stdout
    report = tilegemm.analyze(1024, 1024, 1024, kernel=kernel, device=device)
    print("Tile Size Analysis:", file=out)
    print("=" * 60, file=out)
    for row in report["tiles"]:
        label = row["label"]
        title = (f"Tile {row['bm']}×{row['bn']}" if label.startswith("T=")
                 else f"Tile {row['bm']}×{row['bn']}×{row['bk']} ({label})")
        smem = row["smem_bytes"]
        print(f"\n{title}:", file=out)
        print(f"  Threads per block: {row['threads']}", file=out)
        print(f"  Shared memory: {smem} bytes ({smem / 1024:.1f} KB)", file=out)
        print(f"  Data reuse factor: {row['reuse']:g}x", file=out)
        print(f"  Max blocks (shared mem limit): {row['seed_blocks_by_smem_48kb']}", file=out)
        print(f"  Max blocks (thread limit): {row['seed_blocks_by_threads_1024']}", file=out)
        print(f"  On an {device.upper()} SM (library model): {row['blocks_per_sm']} blocks, "
              f"occupancy {row['occupancy']:.2f}, limited by {row['limited_by']}", file=out)
    return report["tiles"]


# ---------------------------------------------------------------------------------------------
# Verification
# ---------------------------------------------------------------------------------------------


def check_result(c, ref, k, dtype="f32", out_dtype=None):
    """The testbed's pass rule on the host: ||C - ref||_F / ||ref||_F within tilegemm.tolerance,
    no element off by more than tilegemm.element_tolerance times rms(ref), no NaN/Inf where the
    reference is finite. The bounds come from the C++ library."""
    import numpy as np

    c64 = np.asarray(c, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    diff = c64 - ref
    finite = np.isfinite(diff)
    nonfinite = int(np.count_nonzero(~np.isfinite(c64) & np.isfinite(ref)))
    diff = np.where(finite, diff, 0.0)
    ref_sq = float(np.sum(ref * ref))
    diff_sq = float(np.sum(diff * diff))
    rel = math.sqrt(diff_sq / ref_sq) if ref_sq > 0 else math.sqrt(diff_sq)
    rms = math.sqrt(ref_sq / ref.size) if ref.size else 0.0
    max_diff = float(np.max(np.abs(diff))) if diff.size else 0.0
    element = max_diff / rms if rms > 0 else max_diff
    tol = tilegemm.tolerance(k, dtype, out_dtype)
    element_tol = tilegemm.element_tolerance(k, dtype, out_dtype)
    why = []
    if not rel <= tol:
        why.append(f"rel_error {rel:.3g} > tolerance {tol:.3g}")
    if not element <= element_tol:
        why.append(f"largest element error {element:.3g} rms(ref) > {element_tol:.3g}")
    if nonfinite:
        why.append(f"{nonfinite} non-finite elements")
    return {"passed": not why, "rel_error": rel, "tolerance": tol, "element_error": element,
            "element_tolerance": element_tol, "nonfinite": nonfinite, "detail": "; ".join(why)}


@contextlib.contextmanager
def _small_grids_expected():
    """Verification launches small problems on purpose: Numba's low-occupancy warning says
    nothing there."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*Grid size \d+ will likely result in GPU "
                                                  r"under-utilization")
        yield


def _uniform(rng, shape):
    """Values in [-1, 1) with 24 random bits, exact in float32 (as the testbed's fills)."""
    import numpy as np

    return (rng.integers(-(1 << 23), 1 << 23, size=shape) / float(1 << 23)).astype(np.float32)


def verify_host(kernel, m, n, k, seed=1):
    """Run a Numba kernel (tilegemm.numba_lab.kernels.KERNELS entry or name) through Numba
    (on the simulator when NUMBA_ENABLE_CUDASIM=1) and check it against an fp64 NumPy product."""
    import numpy as np
    from numba import cuda

    from . import kernels as nk

    if isinstance(kernel, str):
        kernel = nk.find(kernel)
    rng = np.random.default_rng(seed)
    a = _uniform(rng, (m, k))
    b = _uniform(rng, (k, n))
    c = np.full((m, n), np.nan, dtype=np.float32)  # an element nobody writes stays NaN
    d_a, d_b, d_c = cuda.to_device(a), cuda.to_device(b), cuda.to_device(c)
    with _small_grids_expected():
        kernel.launch(d_a, d_b, d_c, m, n, k)
    result = d_c.copy_to_host()
    ref = a.astype(np.float64) @ b.astype(np.float64)
    record = check_result(result, ref, k)
    record.update(kernel=kernel.name, m=m, n=n, k=k, reference="fp64 numpy")
    return record


class _DeviceView:
    """A testbed buffer as a CUDA Array Interface object, for Numba (whose device arrays have
    no DLPack), strides in bytes."""

    _TYPESTR = {"f32": "<f4", "tf32": "<f4", "f16": "<f2"}

    def __init__(self, view):
        typestr = self._TYPESTR[view["dtype"]]
        itemsize = int(typestr[-1])
        self.__cuda_array_interface__ = {
            "shape": tuple(view["shape"]),
            "strides": tuple(s * itemsize for s in view["strides"]),
            "typestr": typestr,
            "data": (view["ptr"], False),
            "version": 3,
            "stream": None,  # the testbed's work is on the default stream, as the launches
        }


def _testbed_arrays(testbed):
    from numba import cuda

    return tuple(cuda.as_cuda_array(_DeviceView(testbed.view(x))) for x in "abc")


def verify_device(kernel, m, n, k, seed=1, testbed=None):
    """A Numba kernel in the library's testbed: seeded inputs exact in fp32, C poisoned with NaN,
    the fp64 device reference and the tolerance every C++ kernel is held to."""
    from . import kernels as nk

    if isinstance(kernel, str):
        kernel = nk.find(kernel)
    tb = testbed or tilegemm.Testbed(m, n, k, seed=seed)
    a, b, c = _testbed_arrays(tb)
    with _small_grids_expected():
        record = tb.run_and_check(lambda stream: kernel.launch(a, b, c, m, n, k, stream), 0)
    record.update(kernel=kernel.name, m=m, n=n, k=k, reference="fp64 device (testbed)")
    return record


# ---------------------------------------------------------------------------------------------
# Benchmark
# ---------------------------------------------------------------------------------------------


def _time_numba(kernel, arrays, m, n, k, warmup, reps, rounds):
    """Median over `rounds` of (CUDA events around `reps` back-to-back launches) / reps: a batch,
    because a Python launch costs tens of microseconds of host time, which an event pair around
    each single launch would add to the kernel's time."""
    from numba import cuda

    a, b, c = arrays
    for _ in range(warmup):
        kernel.launch(a, b, c, m, n, k)
    samples = []
    for _ in range(rounds):
        start, stop = cuda.event(timing=True), cuda.event(timing=True)
        start.record()
        for _ in range(reps):
            kernel.launch(a, b, c, m, n, k)
        stop.record()
        stop.synchronize()
        samples.append(cuda.event_elapsed_time(start, stop) / reps)
    samples.sort()
    mid = len(samples) // 2
    return samples[mid] if len(samples) % 2 else 0.5 * (samples[mid - 1] + samples[mid])


def benchmark(sizes=(256, 512, 1024, 2048), *, warmup=3, reps=20, rounds=5, progress=None):
    """Each Numba kernel beside its C++ twin and cuBLAS, square sizes, fp32, row-major.

    Every kernel is verified first on the same testbed (Numba: verify_device; C++ and cuBLAS:
    tilegemm.bench, which verifies before timing). Numba times are batches of launches between
    CUDA events (see _time_numba); C++ and cuBLAS times are tilegemm.bench's median of per-launch
    events. Returns one record per (size, Numba kernel)."""
    from . import kernels as nk

    records = []
    twins = ",".join(k.twin for k in nk.KERNELS)
    for s in sizes:
        report = tilegemm.bench(twins, [(s, s, s)], warmup=warmup * 2, reps=max(reps, 10),
                                rounds=1, progress=progress)
        rows = {r["kernel"]: r for r in report["results"]}
        cublas = rows.get("cublas", {})
        for kernel in nk.KERNELS:
            tb = tilegemm.Testbed(s, s, s, seed=1)
            check = verify_device(kernel, s, s, s, testbed=tb)
            twin = rows.get(kernel.twin, {})
            rec = {
                "m": s, "n": s, "k": s, "kernel": kernel.name, "twin": kernel.twin,
                "rel_error": check["rel_error"], "tolerance": check["tolerance"],
                "status": "ok" if check["passed"] else "FAILED", "detail": check["detail"],
                "numba_ms": None, "numba_tflops": None,
                "twin_ms": twin.get("median_ms"), "twin_tflops": twin.get("tflops"),
                "twin_status": twin.get("status"),
                "cublas_ms": cublas.get("median_ms"), "cublas_tflops": cublas.get("tflops"),
            }
            if check["passed"]:
                ms = _time_numba(kernel, _testbed_arrays(tb), s, s, s, warmup, reps, rounds)
                rec["numba_ms"] = ms
                rec["numba_tflops"] = 2.0 * s * s * s / (ms * 1e-3) / 1e12
            if progress:
                progress(f"{kernel.name} {s}^3: {rec['status']}")
            records.append(rec)
    return records


def format_benchmark(records):
    """The benchmark as an aligned table."""
    def num(x, fmt):
        return "-" if x is None else format(x, fmt)

    head = ("size", "Numba kernel", "Numba ms", "TFLOP/s", "C++ twin", "twin ms", "TFLOP/s",
            "twin/Numba", "cuBLAS ms", "TFLOP/s", "check")
    rows = []
    for r in records:
        speed = (r["numba_ms"] / r["twin_ms"]) if r["numba_ms"] and r["twin_ms"] else None
        rows.append((f"{r['m']}³", r["kernel"], num(r["numba_ms"], ".3f"),
                     num(r["numba_tflops"], ".2f"), r["twin"], num(r["twin_ms"], ".3f"),
                     num(r["twin_tflops"], ".2f"), "-" if speed is None else f"{speed:.2f}x",
                     num(r["cublas_ms"], ".3f"), num(r["cublas_tflops"], ".2f"),
                     r["status"] + (f" ({r['detail']})" if r["detail"] else "")))
    widths = [max(len(str(x)) for x in col) for col in zip(head, *rows)]
    lines = ["  ".join(str(x).ljust(w) for x, w in zip(head, widths)),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(str(x).ljust(w) for x, w in zip(row, widths)) for row in rows]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# python -m tilegemm.numba_lab
# ---------------------------------------------------------------------------------------------


def _print_checks(records):
    failed = 0
    for r in records:
        mark = "ok" if r["passed"] else "FAILED"
        failed += not r["passed"]
        shape = f"{r['m']}x{r['n']}x{r['k']}"
        print(f"  {r['kernel']:<28} {shape:<16} rel_error {r['rel_error']:.2e} "
              f"(tolerance {r['tolerance']:.2e})  {mark}"
              + (f": {r['detail']}" if r["detail"] else ""))
    return failed


def main(argv=None):
    import argparse
    import json

    parser = argparse.ArgumentParser(
        prog="python -m tilegemm.numba_lab",
        description="Seed 004's Numba kernels beside tilegemm's C++ twins: the analysis (no GPU "
                    "needed), verification against the fp64 reference, and the benchmark table.")
    parser.add_argument("--sizes", default="256,512,1024,2048",
                        help="square sizes of the benchmark (default 256,512,1024,2048)")
    parser.add_argument("--reps", type=int, default=20, help="launches per timed batch")
    parser.add_argument("--rounds", type=int, default=5, help="timed batches (median)")
    parser.add_argument("--no-bench", action="store_true", help="analysis and verification only")
    parser.add_argument("--json", metavar="PATH",
                        help="write the verification and benchmark records here")
    args = parser.parse_args(argv)
    try:
        sizes = [int(s) for s in args.sizes.split(",") if s]
        if not sizes or min(sizes) < 1:
            raise ValueError
    except ValueError:
        parser.error(f"--sizes: want comma-separated positive integers, got {args.sizes!r}")

    print("Part 2: memory traffic (the library's model)\n")
    analyze_tiled_traffic(1024, 1024, 1024, 32)
    print("\nPart 4: tile size selection (the library's model)\n")
    analyze_tile_sizes()
    print()

    try:
        from . import kernels as nk
    except Exception as e:  # numba or numba-cuda missing or broken: say which, keep the analysis
        print(f"numba lab: the Numba kernels cannot be imported ({type(e).__name__}: {e}); "
              "install numba and numba-cuda (pip install 'tilegemm[numba]')")
        return 3

    def write_json(checks, records=()):
        if args.json:
            device = tilegemm.devices()[0] if tilegemm.cuda_available() else None
            with open(args.json, "w", encoding="utf-8") as f:
                json.dump({"device": device, "simulator": simulator_enabled(),
                           "checks": checks, "records": list(records)}, f, indent=2)

    if simulator_enabled():
        print("Verification on Numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1), fp64 NumPy "
              "reference, the library's tolerance:")
        checks = [verify_host(k, *s) for k in nk.KERNELS for s in HOST_SIZES]
        failed = _print_checks(checks)
        write_json(checks)
        return 1 if failed else 0
    if not tilegemm.cuda_available():
        print("numba lab: no CUDA device found; nothing to run. Set NUMBA_ENABLE_CUDASIM=1 to run "
              "the kernels on Numba's CUDA simulator.")
        return 3

    print("Verification on the GPU in the library's testbed (fp64 device reference, the "
          "library's tolerance):")
    checks = [verify_device(k, *s) for k in nk.KERNELS for s in DEVICE_SIZES]
    failed = _print_checks(checks)
    if args.no_bench:
        write_json(checks)
        return 1 if failed else 0
    print("\nBenchmark: Numba kernels beside their C++ twins and cuBLAS (fp32, row-major)\n")
    records = benchmark(sizes, reps=args.reps, rounds=args.rounds)
    print(format_benchmark(records))
    print("\nNumba: median of CUDA-event-timed batches of launches; C++ twin and cuBLAS: "
          "tilegemm.bench (median of per-launch events). twin/Numba > 1: the C++ twin is faster.")
    write_json(checks, records)
    failed += sum(r["status"] != "ok" for r in records)
    return 1 if failed else 0

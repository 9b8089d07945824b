"""The lab on a GPU: verify and bench records from the library, and the seed's Numba kernels on
the device in the library's testbed, beside their C++ twins."""
import pytest

import tilegemm
from tilegemm import numba_lab


def test_kernels_run_here(gpu):
    runs = {r["name"]: r["runs_here"] for r in tilegemm.kernels()}
    assert runs["naive"] is True and runs["smem_tiled_t32"] is True


def test_devices(gpu):
    devices = tilegemm.devices()
    assert devices and devices[0]["sm_count"] > 0


def test_verify_records(gpu):
    report = tilegemm.verify("naive,smem_tiled_t16,auto", shapes=[(33, 17, 45), (128, 64, 200)],
                             beta=0.5, layouts=("col", "row", "col"), pads=(1, 0, 2))
    assert report["passed"] and report["cases"] == 2
    assert {k["kernel"] for k in report["kernels"]} == {"naive", "smem_tiled_t16", "auto"}
    assert all(k["failed"] == 0 and k["passed"] == 2 for k in report["kernels"])


def test_verify_sweep_bf16(gpu):
    report = tilegemm.verify("auto", dtype="bf16", out_dtype="f32")
    assert report["passed"], report["failures"][:3]
    assert report["cases"] > 300


def test_bench_records(gpu):
    report = tilegemm.bench("smem_tiled_t16,auto", [(256, 256, 256)], warmup=2, reps=5)
    assert report["passed"]
    kernels = [r["kernel"] for r in report["results"]]
    assert kernels[0] == "cublas" and "smem_tiled_t16" in kernels
    assert any(k.startswith("auto(") for k in kernels)
    for r in report["results"]:
        assert r["status"] == "ok" and r["median_ms"] > 0 and r["tflops"] > 0


# --- the Numba lab on the device --------------------------------------------------------------

KERNELS = ["numba_naive", "numba_tiled_t8", "numba_tiled_t16", "numba_tiled_t32",
           "numba_tiled_rect_32x16x16"]


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("shape", [(1, 1, 1), (33, 17, 45), (257, 255, 1000)],
                         ids=lambda s: "x".join(map(str, s)))
def test_numba_kernel_in_the_testbed(numba_cuda, kernel, shape):
    check = numba_lab.verify_device(kernel, *shape)
    assert check["passed"], check["detail"]
    assert check["tolerance"] == pytest.approx(tilegemm.tolerance(shape[2]))


def test_testbed_fails_a_wrong_kernel(numba_cuda):
    from tilegemm.numba_lab import kernels as nk

    class HalfGrid(nk.NumbaKernel):
        def grid(self, m, n):  # covers only half of C's rows
            gx, gy = super().grid(m, n)
            return gx, max(1, gy // 2)

    half = HalfGrid("half", nk.matmul_tiled_16, (16, 16), (16, 16), "smem_tiled_t16", "")
    check = numba_lab.verify_device(half, 128, 128, 64)
    assert not check["passed"] and "non-finite" in check["detail"]


def test_numba_benchmark_beside_the_twins(numba_cuda):
    records = numba_lab.benchmark(sizes=(256,), warmup=1, reps=3, rounds=3)
    assert [r["kernel"] for r in records] == KERNELS
    for r in records:
        assert r["status"] == "ok", r["detail"]
        assert r["numba_ms"] > 0 and r["twin_ms"] > 0 and r["cublas_ms"] > 0
        assert r["twin_status"] == "ok"
    print(numba_lab.format_benchmark(records))

"""The package builds, imports, and answers from the C++ library (no GPU needed)."""
import math
import re
from pathlib import Path

import pytest

import tilegemm

ROOT = Path(__file__).resolve().parents[2]


def test_version_is_the_cmake_projects():
    text = (ROOT / "CMakeLists.txt").read_text()
    version = re.search(r"project\(tilegemm VERSION ([0-9.]+)", text).group(1)
    assert tilegemm.__version__ == version


def test_kernels_are_the_registry():
    records = tilegemm.kernels()
    names = [r["name"] for r in records]
    # The C++ twins of the seed's Numba kernels.
    for twin in ("naive", "smem_tiled_t8", "smem_tiled_t16", "smem_tiled_t32",
                 "smem_tiled_rect_32x16x16"):
        assert twin in names
    assert len(names) == len(set(names))
    t16 = records[names.index("smem_tiled_t16")]
    assert (t16["bm"], t16["bn"], t16["bk"], t16["threads"]) == (16, 16, 16, 256)
    assert [(t["dtype"], t["dtype_c"]) for t in t16["types"]] == [("f32", "f32")]


def test_kernels_filter_by_types():
    bf16_f32 = tilegemm.kernels("bf16", "f32")
    assert bf16_f32, "some kernel computes bf16 -> f32"
    assert len(bf16_f32) < len(tilegemm.kernels())
    for r in bf16_f32:
        assert ("bf16", "f32") in [(t["dtype"], t["dtype_c"]) for t in r["types"]]
    assert "smem_tiled_t16" not in [r["name"] for r in bf16_f32]


def test_tolerance_is_the_library_rule():
    # testbed.hpp: 1e-5 sqrt(k), + 2^-23 k for tensor-core types, + 2^-8 for a bf16 C, 2^-11 f16.
    assert tilegemm.tolerance(1024) == pytest.approx(1e-5 * 32)
    assert tilegemm.tolerance(0) == pytest.approx(1e-5)
    assert tilegemm.tolerance(1024, "bf16") == pytest.approx(1e-5 * 32 + 2**-23 * 1024 + 2**-8)
    assert tilegemm.tolerance(1024, "bf16", "f32") == pytest.approx(1e-5 * 32 + 2**-23 * 1024)
    assert tilegemm.tolerance(100, "f16") == pytest.approx(1e-4 + 2**-23 * 100 + 2**-11)
    assert tilegemm.element_tolerance(77, "tf32") == pytest.approx(16 * tilegemm.tolerance(77, "tf32"))


def test_analysis_answers_the_seed():
    m, n, k, t = 1024, 1024, 1024, 32
    traffic = tilegemm.analyze(m, n, k, tile=t)["traffic"]
    blocks = 1024 // 32
    assert traffic["naive_bytes"] == m * n * (k + k) * 4
    assert traffic["tiled_bytes"] == blocks * blocks * 2 * blocks * t * t * 4
    assert traffic["minimum_bytes"] == (m * k + k * n) * 4
    assert (traffic["naive"], traffic["tiled"], traffic["minimum"]) == ("8.59 GB", "0.268 GB",
                                                                       "8.39 MB")
    assert traffic["reduction"] == pytest.approx(32.0)


def test_analysis_rounds_partial_tiles_up():
    m, n, k = 1000, 700, 300
    traffic = tilegemm.analyze(m, n, k, tile=(32, 16, 16))["traffic"]
    bm, bn, bk = math.ceil(m / 32), math.ceil(n / 16), math.ceil(k / 16)
    assert traffic["blocks"] == [bm, bn, bk]
    assert traffic["tiled_bytes"] == bm * bn * bk * (32 * 16 + 16 * 16) * 4


def test_tile_size_table_is_the_seeds():
    tiles = tilegemm.analyze(kernel="smem_tiled_rect_32x16x16")["tiles"]
    by_label = {row["label"]: row for row in tiles}
    for t in (8, 16, 32):
        row = by_label[f"T={t}"]
        smem = 2 * t * t * 4
        assert (row["threads"], row["smem_bytes"], row["reuse"]) == (t * t, smem, t)
        assert row["seed_blocks_by_smem_48kb"] == 48 * 1024 // smem
        assert row["seed_blocks_by_threads_1024"] == 1024 // (t * t)
    rect = by_label["smem_tiled_rect_32x16x16"]
    assert (rect["threads"], rect["smem_bytes"]) == (512, (32 * 16 + 16 * 16) * 4)


def test_analyze_text_is_the_clis():
    text = tilegemm.analyze(1024, 1024, 1024, tile=32, format="table")
    assert "seed 004 analyze_tiled_traffic" in text
    assert "8589934592" in text


@pytest.mark.parametrize("call, arg", [
    (lambda: tilegemm.tolerance(10, "fp8"), "dtype"),
    (lambda: tilegemm.tolerance(10, "bf16", "f16"), "out_dtype"),
    (lambda: tilegemm.tolerance(-1), "k"),
    (lambda: tilegemm.kernels("f32", "bf16"), "out_dtype"),
    (lambda: tilegemm.analyze(0, 4, 4), "m"),
    (lambda: tilegemm.analyze(4, 4, 4, device="h900"), "device"),
    (lambda: tilegemm.analyze(4, 4, 4, kernel="nosuch"), "kernel"),
    (lambda: tilegemm.analyze(4, 4, 4, format="xml"), "format"),
    (lambda: tilegemm.analyze(4, 4, 4, kernel="smem_tiled_t16", dtype="bf16"), "kernel"),
    (lambda: tilegemm.bench("nosuch*", [(4, 4, 4)]), "kernels"),
    (lambda: tilegemm.bench("auto", [(4, 0, 4)]), "shapes"),
    (lambda: tilegemm.bench("auto", [(4, 4)]), "shapes"),
    (lambda: tilegemm.bench("auto", [(4, 4, 4)], layouts=("row", "diag", "row")), "layouts"),
    (lambda: tilegemm.verify("naive", fuzz=-1), "fuzz"),
    (lambda: tilegemm.verify("naive", pads=(0, -1, 0), shapes=[(2, 2, 2)]), "pads"),
    (lambda: tilegemm.set_fp32_math("tf32"), "math"),
])
def test_lab_argument_errors_name_the_argument(call, arg):
    with pytest.raises(ValueError, match=f"argument '{arg}'"):
        call()


def test_lab_says_when_there_is_no_gpu(no_gpu):
    for call in (lambda: tilegemm.verify("naive", shapes=[(8, 8, 8)]),
                 lambda: tilegemm.bench("naive", [(8, 8, 8)]),
                 lambda: tilegemm.Testbed(8, 8, 8)):
        with pytest.raises(RuntimeError, match="no CUDA device found"):
            call()
    assert tilegemm.devices() == []


def test_fp32_math_is_three_tf32_products_by_default_and_settable():
    import os
    if "TILEGEMM_FP32_MATH" not in os.environ:
        assert tilegemm.fp32_math() == "3xtf32"
    before = tilegemm.fp32_math()
    try:
        tilegemm.set_fp32_math("simt")
        assert tilegemm.fp32_math() == "simt"
        tilegemm.set_fp32_math("3xtf32")
        assert tilegemm.fp32_math() == "3xtf32"
    finally:
        tilegemm.set_fp32_math(before)

"""scripts/ab_summary.py, the A/B summary of perf-notes' tables (no GPU needed): medians over the
repeats, and each shape's time over cuBLAS's in the same run, new over old."""
import functools

import pytest

from script_helpers import result, write
from script_helpers import run as run_script

run = functools.partial(run_script, "ab_summary.py")


def test_medians_and_the_ratio_normalised_by_cublas(tmp_path):
    # Old: ours 0.010, 0.012, 0.011 ms beside cuBLAS 0.010 each time. New: ours 0.008 twice and an
    # outlier of 0.050, in runs where cuBLAS took 0.008 (the host was faster): the median drops
    # the outlier, and against cuBLAS the new build is no faster (0.008 / 0.008 vs 0.011 / 0.010).
    files = []
    for rep, (old, new, cub_new) in enumerate([(0.010, 0.008, 0.008), (0.012, 0.050, 0.008),
                                               (0.011, 0.008, 0.008)], start=1):
        files.append(write(tmp_path, f"x_ab_old_{rep}_bf16.json",
                           [result("cublas", 0.010), result("auto(wgmma_64x64x64_s13)", old, 5.0)]))
        files.append(write(tmp_path, f"x_ab_new_{rep}_bf16.json",
                           [result("cublas", cub_new), result("auto(wgmma_64x64x64_s13)", new, 4.0)]))
    rc, out = run(*files)
    assert rc == 0, out
    line = next(l for l in out.splitlines() if "64x64x4096" in l)
    assert "wgmma_64x64x64_s13" in line and "auto(" not in line
    assert "old    11.0 (host   5.0)" in line
    assert "new     8.0 (host   4.0)" in line
    assert "cublas 10.0/8.0" in line
    assert "new/old 0.73" in line
    # norm: median(new / cuBLAS) = 1.0 over median(old / cuBLAS) = 1.1
    assert "norm 0.91" in line
    assert "1 shapes; new/old geometric mean 0.727; normalised by cuBLAS 0.909" in out


def test_a_kernel_that_could_not_run_is_left_out(tmp_path):
    files = [write(tmp_path, f"ab_{b}_1_bf16.json",
                   [result("cublas", 0.01), result("narrow_n4", None), result("narrow_n8", 0.02)])
             for b in ("old", "new")]
    rc, out = run(*files)
    assert rc == 0, out
    assert "narrow_n4" not in out and "narrow_n8" in out


def test_a_file_that_is_not_an_ab_result_is_refused(tmp_path):
    path = write(tmp_path, "random-bf16-s7.json", [result("cublas", 0.01)])
    rc, out = run(path)
    assert rc != 0
    assert "not an A/B result" in out


def test_auto_is_compared_per_shape_when_its_choice_changes(tmp_path):
    # A rule change: the new build's auto takes another kernel on this shape. The row still
    # pairs the two builds (a key with the kernel in it would drop it from the summary).
    files = [write(tmp_path, f"rs_{b}_1_f32_s7.json",
                   [result("cublas", 0.006),
                    result("auto(small_32x32x32)" if b == "old" else "auto(smem_tiled_t16)",
                           0.008 if b == "old" else 0.006)])
             for b in ("old", "new")]
    rc, out = run(*files)
    assert rc == 0, out
    line = next(l for l in out.splitlines() if "64x64x4096" in l)
    assert "small_32x32x32 -> smem_tiled_t16" in line
    assert "new/old 0.75" in line
    assert "1 shapes;" in out and "auto chose another kernel on 1" in out


@pytest.mark.parametrize("prefix", ["ab", "rs"])
def test_both_name_forms_are_read(tmp_path, prefix):
    files = [write(tmp_path, f"{prefix}_{b}_1_bf16_s7.json",
                   [result("cublas", 0.01), result("auto(gemv)", 0.02 if b == "old" else 0.01)])
             for b in ("old", "new")]
    rc, out = run(*files)
    assert rc == 0, out
    assert "new/old 0.50" in out


def test_one_extent_at_two_pitches_is_two_rows(tmp_path):
    # The same m x n x k at pads of A of 1 and 4 (two pitch classes, two kernels' rows): each its
    # own row with its pads, not one median of both.
    def row(ms, pad):
        r = result("gemv", ms)
        r["pad_a"] = pad
        return r
    files = [write(tmp_path, f"ab_{b}_1_bf16.json",
                   [dict(result("cublas", 0.010), pad_a=1), row(0.020 if b == "old" else 0.010, 1),
                    dict(result("cublas", 0.010), pad_a=4), row(0.012, 4)])
             for b in ("old", "new")]
    rc, out = run(*files)
    assert rc == 0, out
    one = next(l for l in out.splitlines() if "pad 1,0,0" in l)
    four = next(l for l in out.splitlines() if "pad 4,0,0" in l)
    assert "new/old 0.50" in one
    assert "new/old 1.00" in four
    assert "2 shapes;" in out

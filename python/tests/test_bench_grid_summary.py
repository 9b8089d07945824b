"""scripts/bench_grid_summary.py, auto against one kernel over a grid (no GPU needed): the cells,
the geometric mean and range of auto's time over the focus kernel's, and auto's lowest ratio to
cuBLAS."""
import functools

from script_helpers import result, write
from script_helpers import run as run_script

run = functools.partial(run_script, "bench_grid_summary.py")


def test_cells_ratios_and_auto_against_cublas(tmp_path):
    # Two shapes in the cell (narrow 20, long 4096, K 66): auto 2x and 1x the focus kernel's
    # time, so the geometric mean is sqrt(2); auto's best against cuBLAS is 0.005 / 0.010.
    rows = []
    for m, n, auto_ms in ((4096, 20, 0.010), (20, 4096, 0.005)):
        rows += [result("cublas", 0.005, m=m, n=n, k=66),
                 result("auto(wgmma_64x64x64_s13_pad)", auto_ms, m=m, n=n, k=66),
                 result("small_mma_64x64", 0.005, m=m, n=n, k=66)]
    # A shape the focus kernel could not run is left out.
    rows += [result("cublas", 0.005, m=7, n=7, k=7), result("auto(naive)", 0.005, m=7, n=7, k=7),
             result("small_mma_64x64", None, m=7, n=7, k=7)]
    rc, out = run("--focus", "small_mma_64x64", write(tmp_path, "grid.json", rows))
    assert rc == 0, out
    line = next(l for l in out.splitlines() if "20 4096 66" in l)
    assert "n=  2" in line
    assert "1.41 (1.00-2.00)" in line
    assert "auto 0.50x" in line
    assert "wgmma_64x64x64_s13_pad 2" in line
    assert "7 7 7" not in out


def test_rows_and_layouts_cells(tmp_path):
    # A row-major C of 20 x 4096 has rows along its long side; 4096 x 20 along its short one.
    rows = []
    for m, n in ((20, 4096), (4096, 20)):
        rows += [result("cublas", 0.005, m=m, n=n, k=66),
                 result("auto(tiny_mma_32x32)", 0.005, m=m, n=n, k=66),
                 result("small_mma_64x64", 0.005, m=m, n=n, k=66)]
    rc, out = run("--focus", "small_mma_64x64", "--by", "rows,layouts",
                  write(tmp_path, "grid.json", rows))
    assert rc == 0, out
    assert "rows long rcr" in out and "rows short rcr" in out

"""scripts/ab_seed_counts.py, the issue's random bars per seed on each side of an A/B (no GPU
needed): shapes below 1.0x and 0.8x of cuBLAS and the geometric mean over >= 1 GFLOP."""
import functools

from script_helpers import result, write
from script_helpers import run as run_script

run = functools.partial(run_script, "ab_seed_counts.py")


def write_ratios(tmp_path, name, ratios):
    """A result file with one shape per ratio (cuBLAS's time over auto's); the last shape is
    1024^3 (2.1 GFLOP), the others under 1 GFLOP."""
    rows = []
    for i, ratio in enumerate(ratios):
        m, n, k = (1024, 1024, 1024) if i == len(ratios) - 1 else (10 + i, 64, 64)
        rows += [result("cublas", ratio * 0.01, m=m, n=n, k=k),
                 result("auto(small_32x32x32)", 0.01, m=m, n=n, k=k)]
    return write(tmp_path, name, rows)


def test_counts_and_geometric_mean_per_seed_and_side(tmp_path):
    files = [write_ratios(tmp_path, "x_rs_old_1_bf16_s7.json", [0.5, 0.9, 1.2]),
             write_ratios(tmp_path, "x_rs_new_1_bf16_s7.json", [1.1, 0.95, 1.3]),
             write_ratios(tmp_path, "x_rs_old_2_bf16_s7.json", [0.7, 0.79, 1.2]),
             write_ratios(tmp_path, "x_rs_new_2_bf16_s7.json", [1.0, 0.81, 1.3])]
    rc, out = run(*files)
    assert rc == 0, out
    line = next(l for l in out.splitlines() if l.strip().startswith("7 |"))
    # below 1.0x: old 2 and 2, new 1 and 1; below 0.8x: old 1 and 2, new 0 and 0; the one shape
    # of >= 1 GFLOP sets the geometric mean
    assert "2,2 -> 1,1" in line
    assert "1,2 -> 0,0" in line
    assert "1.20,1.20 -> 1.30,1.30" in line


def test_a_file_that_is_not_an_ab_random_result_is_refused(tmp_path):
    path = write_ratios(tmp_path, "random-bf16-s7.json", [1.0])
    rc, out = run(path)
    assert rc != 0
    assert "not an ab-random result" in out

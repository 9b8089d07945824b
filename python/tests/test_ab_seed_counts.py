"""scripts/ab_seed_counts.py, the issue's random bars per seed on each side of an A/B (no GPU
needed): shapes below 1.0x and 0.8x of cuBLAS and the geometric mean over >= 1 GFLOP."""
import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "ab_seed_counts.py"


def result(kernel, ms, m, n=64, k=64):
    return {"kernel": kernel, "dtype": "bf16", "layout_a": "row", "layout_b": "col",
            "layout_c": "row", "m": m, "n": n, "k": k, "median_ms": ms, "status": "ok"}


def write(tmp_path, name, ratios):
    # ratios: cuBLAS's time over auto's per shape; the last shape is 1024^3 (2.1 GFLOP), the
    # others under 1 GFLOP
    rows = []
    for i, ratio in enumerate(ratios):
        big = i == len(ratios) - 1
        m, n, k = (1024, 1024, 1024) if big else (10 + i, 64, 64)
        rows.append({**result("cublas", ratio * 0.01, m), "n": n, "k": k})
        rows.append({**result("auto(small_32x32x32)", 0.01, m), "n": n, "k": k})
    path = tmp_path / name
    path.write_text(json.dumps({"results": rows}))
    return str(path)


def run(*args):
    out = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True)
    return out.returncode, out.stdout + out.stderr


def test_counts_and_geometric_mean_per_seed_and_side(tmp_path):
    files = [write(tmp_path, "x_rs_old_1_bf16_s7.json", [0.5, 0.9, 1.2]),
             write(tmp_path, "x_rs_new_1_bf16_s7.json", [1.1, 0.95, 1.3]),
             write(tmp_path, "x_rs_old_2_bf16_s7.json", [0.7, 0.79, 1.2]),
             write(tmp_path, "x_rs_new_2_bf16_s7.json", [1.0, 0.81, 1.3])]
    rc, out = run(*files)
    assert rc == 0, out
    line = next(l for l in out.splitlines() if l.strip().startswith("7 |"))
    # below 1.0x: old 2 and 2, new 1 and 1; below 0.8x: old 1 and 2, new 0 and 0; the one shape
    # of >= 1 GFLOP sets the geometric mean
    assert "2,2 -> 1,1" in line
    assert "1,2 -> 0,0" in line
    assert "1.20,1.20 -> 1.30,1.30" in line


def test_a_file_that_is_not_an_ab_random_result_is_refused(tmp_path):
    path = write(tmp_path, "random-bf16-s7.json", [1.0])
    rc, out = run(path)
    assert rc != 0
    assert "not an ab-random result" in out

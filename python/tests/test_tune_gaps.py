"""scripts/tune_gaps.py, where auto's rules leave time on the table (no GPU needed): shapes below
the bar by the rules, how many the fastest tuned candidate brings to it, and the (rules' kernel,
fastest candidate) classes."""
import functools
import json

from script_helpers import result, write
from script_helpers import run as run_script

run = functools.partial(run_script, "tune_gaps.py")


def write_tune(tmp_path, name, shapes):
    """A tune result: per (m, candidates as {kernel: ms}) one shape m x 64 x 4096."""
    rows = [{"m": m, "n": 64, "k": 4096, "layout_a": "row", "layout_b": "col", "layout_c": "row",
             "candidates": [{"kernel": k, "median_ms": ms} for k, ms in cands.items()]
             + [{"kernel": "naive", "median_ms": None, "status": "screened out"}]}
            for m, cands in shapes]
    path = tmp_path / name
    path.write_text(json.dumps({"results": rows}))
    return str(path)


def write_rules(tmp_path, name, shapes):
    """A bench --random result of auto by the rules: per (m, auto's kernel, its ms, cuBLAS's ms)."""
    rows = []
    for m, kernel, ms, cublas_ms in shapes:
        rows += [result("cublas", cublas_ms, m=m), result(f"auto({kernel})", ms, m=m)]
    return write(tmp_path, name, rows)


def test_bar_counts_and_classes(tmp_path):
    # Shape 1: the rules run 0.5x cuBLAS, the fastest candidate 1.0x (brought to the bar).
    # Shape 2: 0.6x, the fastest candidate 0.7x (still below). Shape 3: above the bar, a candidate
    # faster by 2% only (under the margin). Shapes 1 and 2 form one class (a -> b).
    tune = write_tune(tmp_path, "x_tune-random-bf16-s7.json",
                      [(1, {"a": 0.02, "b": 0.01}), (2, {"a": 0.01, "b": 0.6 / 0.7 * 0.01}),
                       (3, {"a": 0.01, "c": 0.0098})])
    rules = write_rules(tmp_path, "x_random-rules-bf16-s7.json",
                        [(1, "a", 0.02, 0.01), (2, "a", 0.01, 0.006), (3, "a", 0.01, 0.02)])
    rc, out = run("--rows", tune, rules)
    assert rc == 0, out
    assert "bf16    7 |   2 |   1" in out
    assert "bf16 a -> b: 2, " in out
    assert " -> c" not in out
    assert "s7 1x64x4096 row,col,row  0.50 of the time, 0.50x -> 1.00x cuBLAS" in out


def test_unpaired_or_unknown_files_are_refused(tmp_path):
    tune = write_tune(tmp_path, "x_tune-random-bf16-s7.json", [(1, {"a": 0.01})])
    rc, out = run(tune)
    assert rc != 0
    assert "no tune-random and random-rules results" in out
    other = write_rules(tmp_path, "x_something-s7.json", [(1, "a", 0.01, 0.01)])
    rc, out = run(tune, other)
    assert rc != 0
    assert "neither a tune-random nor a random-rules result" in out

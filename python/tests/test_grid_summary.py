"""scripts/grid_summary.py, where auto's rules leave time on narrow products (no GPU needed): the
classes of narrow shapes, the rules against cuBLAS, the fastest candidate over each class and the
shapes below the bar."""
import functools
import json

from script_helpers import run as run_script

run = functools.partial(run_script, "grid_summary.py")


def shape(m, n, k, la, lb, rules, times, cublas_ms, align=16, screened=()):
    """One tune result row: times as {kernel: ms}, screened kernels timed in the screen only."""
    cands = [{"kernel": c, "median_ms": ms, "status": "ok"} for c, ms in times.items()]
    cands += [{"kernel": c, "median_ms": None, "status": "screened out"} for c in screened]
    return {"dtype": "bf16", "m": m, "n": n, "k": k, "layout_a": la, "layout_b": lb,
            "layout_c": "row", "align_a": align, "align_b": align, "cublas_ms": cublas_ms,
            "rules_choice": rules, "winner_ms": min(times.values()), "candidates": cands}


def write(tmp_path, rows):
    path = tmp_path / "x_tune-grid-bf16-crc-000-n.json"
    path.write_text(json.dumps({"results": rows}))
    return str(path)


def test_classes_fastest_candidate_and_bar(tmp_path):
    # Two shapes of one class (16-byte pitches, A column-major under a narrow N: the wide operand
    # M/N-major; B row-major: the narrow one M/N-major; 5..8 columns; K 65..512): "b" is twice as
    # fast as the rules' "a" on the first and as fast on the second; the first is below 0.8x by
    # the rules, at 1.0x by "b". A K-major shape lands in another class; a shape wider than 64
    # and a vector product in none.
    rows = [shape(4096, 8, 256, "col", "row", "a", {"a": 0.02, "b": 0.01}, 0.01),
            shape(2048, 8, 128, "col", "row", "a", {"a": 0.01, "b": 0.01}, 0.02),
            shape(4096, 8, 256, "row", "col", "a", {"a": 0.01, "b": 0.02}, 0.01),
            shape(4096, 65, 256, "col", "row", "a", {"a": 0.01}, 0.01),
            shape(4096, 1, 256, "col", "row", "a", {"a": 0.01}, 0.01)]
    rc, out = run(write(tmp_path, rows))
    assert rc == 0, out
    mn = [l for l in out.splitlines() if "wide M/N-major, narrow M/N-major, 5..8, K 65..512" in l]
    assert len(mn) == 1, out
    assert "|   2 |" in mn[0] and "b 1.41, 1, 0, 1.41 | 1 -> 0" in mn[0], mn[0]
    k_major = [l for l in out.splitlines() if "wide K-major, narrow K-major, 5..8" in l]
    assert len(k_major) == 1 and "a 1.00, 0, 0" in k_major[0], k_major
    assert len([l for l in out.splitlines() if l.startswith("16-byte")]) == 2, out


def test_screened_candidates_count_twice_the_fastest(tmp_path):
    # The rules' "a" left out by the screen: twice the fastest ("b", 0.01 ms), a gain of 2.00.
    rows = [shape(4096, 8, 256, "col", "row", "a", {"b": 0.01}, 0.01, align=2, screened=("a",))]
    rc, out = run(write(tmp_path, rows))
    assert rc == 0, out
    assert "other, wide M/N-major, narrow M/N-major, 5..8, K 65..512" in out
    assert "b 2.00, 1, 0, 1.00 | 1 -> 0" in out, out

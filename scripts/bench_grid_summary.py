#!/usr/bin/env python3
"""How `auto` compares with one kernel over a grid (no GPU needed): reads `tilegemm bench` results
in which `auto` and --focus were timed per shape beside cuBLAS (scripts/gpu_session.sh's
`bench-grid` step) and, per cell of the grid, prints the geometric mean and range of auto's time
over the focus kernel's (above 1: the focus kernel is faster), the lowest of auto against cuBLAS,
and the kernels auto took. The cells group shapes by --by, a comma-separated list of:
  narrow, long, k      min(M, N), max(M, N), K
  c                    M x N (elements of C)
  layouts              A, B and C's layouts, as in rcr
  rows                 whether C's rows (as a row-major C) run along its long or its short side
  pad                  the leading-dimension padding of A
perf-notes.md's grid entries were read this way (for example --focus small_mma_64x64 --by
narrow,long,k for "Rung 27 for a K of 65..128 under a long thin C").

Usage: scripts/bench_grid_summary.py --focus KERNEL [--by narrow,long,k] RESULT.json [...]
"""
import argparse
import collections
import json

from random_summary import geomean


def rows_of(paths):
    """Per shape (M, N, K, layouts, pad of A): cuBLAS's, auto's and every named kernel's median
    time (ms), and the kernel auto took."""
    shapes = collections.defaultdict(dict)
    for path in paths:
        for r in json.load(open(path))["results"]:
            if r.get("median_ms") is None:
                continue
            key = (r["m"], r["n"], r["k"], r["layout_a"], r["layout_b"], r["layout_c"],
                   r.get("pad_a", 0))
            name = r["kernel"]
            if name.startswith("auto("):
                shapes[key]["auto"] = r["median_ms"]
                shapes[key]["auto_kernel"] = name[len("auto("):-1]
            else:
                shapes[key][name] = r["median_ms"]
    return shapes


def cell(key, by):
    m, n, k, la, lb, lc, pad = key
    rows_long = (n >= m) if lc == "row" else (m >= n)
    parts = {
        "narrow": min(m, n), "long": max(m, n), "k": k, "c": m * n,
        "layouts": la[0] + lb[0] + lc[0], "rows": "rows long" if rows_long else "rows short",
        "pad": pad,
    }
    return tuple(parts[b] for b in by)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--focus", required=True, help="the kernel auto is compared with")
    ap.add_argument("--by", default="narrow,long,k", help="the grid's cells (see above)")
    ap.add_argument("results", nargs="+")
    args = ap.parse_args()
    by = [b.strip() for b in args.by.split(",") if b.strip()]
    cells = collections.defaultdict(list)
    for key, t in rows_of(args.results).items():
        if args.focus in t and "auto" in t and "cublas" in t:
            cells[cell(key, by)].append(t)
    print(f"auto's time over {args.focus}'s by {', '.join(by)}: geometric mean (range), "
          "auto against cuBLAS (lowest), the kernels auto took")
    for c in sorted(cells):
        ts = cells[c]
        ratio = [t["auto"] / t[args.focus] for t in ts]
        vs_cublas = min(t["cublas"] / t["auto"] for t in ts)
        took = collections.Counter(t["auto_kernel"] for t in ts).most_common(2)
        print(f"{' '.join(str(x) for x in c):>24}  n={len(ts):3}  {geomean(ratio):.2f} "
              f"({min(ratio):.2f}-{max(ratio):.2f})  auto {vs_cublas:.2f}x  "
              + ", ".join(f"{k} {n}" for k, n in took))


if __name__ == "__main__":
    main()

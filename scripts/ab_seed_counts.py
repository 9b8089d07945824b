#!/usr/bin/env python3
"""Per element type and seed, the issue's random bars on each side of an A/B of `bench --random`
runs (scripts/gpu_session.sh's `ab-random` step: files named `..._rs_<old|new>_<repeat>_<dtype>_s
<seed>.json`): how many shapes `auto` ran slower than cuBLAS (below 1.0x) and below 0.8x, and the
geometric mean of cuBLAS's time over `auto`'s on the shapes of at least 1 GFLOP, one column per
repeat.

Usage: scripts/ab_seed_counts.py RESULT.json [...]
"""
import argparse
import collections
import json
import math
import re
import sys

NAME = re.compile(r"rs_(old|new)_(\d+)_([a-z0-9]+)_s(\d+)\.json$")


def bars(path):
    """(below 1.0x, below 0.8x, geometric mean over >= 1 GFLOP) of one result file."""
    pairs = collections.defaultdict(dict)
    for r in json.load(open(path))["results"]:
        if r.get("status", "ok") != "ok" or r.get("median_ms") is None:
            continue
        key = (r["m"], r["n"], r["k"], r["layout_a"], r["layout_b"], r["layout_c"])
        pairs[key]["cublas" if r["kernel"] == "cublas" else "auto"] = r["median_ms"]
    ratios = [(p["cublas"] / p["auto"], key) for key, p in pairs.items() if len(p) == 2]
    big = [ratio for ratio, key in ratios if 2.0 * key[0] * key[1] * key[2] >= 1e9]
    geo = math.exp(sum(map(math.log, big)) / len(big)) if big else float("nan")
    return (sum(ratio < 1.0 for ratio, _ in ratios), sum(ratio < 0.8 for ratio, _ in ratios), geo)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    table = collections.defaultdict(lambda: collections.defaultdict(dict))
    for path in args.files:
        m = NAME.search(path)
        if not m:
            sys.exit(f"{path}: not an ab-random result (rs_<old|new>_<repeat>_<dtype>_s<seed>.json)")
        side, rep, dtype, seed = m.groups()
        table[(dtype, int(seed))][side][int(rep)] = bars(path)
    for dtype in sorted({d for d, _ in table}):
        print(f"{dtype}: seed | below 1.0x old -> new | below 0.8x old -> new | "
              "geomean >= 1 GFLOP old -> new (one value per repeat)")
        for (d, seed), sides in sorted(table.items()):
            if d != dtype:
                continue

            def col(side, i, fmt):
                runs = sides.get(side, {})
                return ",".join(fmt(runs[r][i]) for r in sorted(runs)) or "-"

            count = str
            mean = "{:.2f}".format
            print(f"  {seed:>4} | {col('old', 0, count)} -> {col('new', 0, count)} | "
                  f"{col('old', 1, count)} -> {col('new', 1, count)} | "
                  f"{col('old', 2, mean)} -> {col('new', 2, mean)}")


if __name__ == "__main__":
    main()

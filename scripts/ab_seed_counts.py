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
import re
import sys

from random_summary import bars, load, ratios_of

NAME = re.compile(r"rs_(old|new)_(\d+)_([a-z0-9]+)_s(\d+)\.json$")


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
        table[(dtype, int(seed))][side][int(rep)] = bars(ratios_of(load(path)))[:3]
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

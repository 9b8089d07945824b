#!/usr/bin/env python3
"""Summarises `tilegemm bench --random` result files (JSON): per file, auto against cuBLAS over
every shape, the geometric mean over all shapes and over those of at least 1 GFLOP, how many
shapes fall below 0.8x and 1.0x, the median host time per call on each side (launch-bound rows
move with it, so counts from runs on different hosts compare only beside it), and the worst
shapes with the kernel auto took.

Usage: scripts/random_summary.py [--worst N] RESULT.json [...]
"""
import argparse
import json
import math


def load(path):
    """Per shape (m, n, k and the three layouts) of a result file, its cuBLAS row and its tilegemm
    row (rows that did not run are left out)."""
    shapes = {}
    for r in json.load(open(path))["results"]:
        if r.get("median_ms") is None:
            continue
        key = (r["m"], r["n"], r["k"], r["layout_a"], r["layout_b"], r["layout_c"])
        side = "cublas" if r["kernel"] == "cublas" else "tilegemm"
        shapes.setdefault(key, {})[side] = r
    return shapes


def ratios_of(shapes):
    """(cuBLAS's time over tilegemm's, shape, tilegemm's kernel) of every shape timed on both."""
    return [(pair["cublas"]["median_ms"] / pair["tilegemm"]["median_ms"], key,
             pair["tilegemm"]["kernel"])
            for key, pair in shapes.items() if "cublas" in pair and "tilegemm" in pair]


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def bars(ratios):
    """The issue's random bars: shapes below 1.0x and below 0.8x of cuBLAS, and the geometric mean
    over the shapes of at least 1 GFLOP."""
    big = [r for r, key, _ in ratios if 2.0 * key[0] * key[1] * key[2] >= 1e9]
    return (sum(r < 1.0 for r, _, _ in ratios), sum(r < 0.8 for r, _, _ in ratios), geomean(big),
            len(big))


def summarise(path, worst):
    shapes = load(path)
    ratios = ratios_of(shapes)

    def median_host(side):
        hosts = sorted(p[side]["host_us"] for p in shapes.values()
                       if side in p and p[side].get("host_us") is not None)
        return f"{hosts[len(hosts) // 2]:.1f}" if hosts else "-"

    below_1, below_08, big_mean, big = bars(ratios)
    print(f"{path}: {len(ratios)} shapes, geometric mean {geomean([r for r, _, _ in ratios]):.2f}, "
          f"over the {big} of >= 1 GFLOP {big_mean:.2f}; "
          f"below 0.8x: {below_08}, "
          f"below 1.0x: {below_1}; median host us per call: "
          f"tilegemm {median_host('tilegemm')}, cublas {median_host('cublas')}")
    for ratio, key, kernel in sorted(ratios)[:worst]:
        m, n, k, la, lb, lc = key
        pair = shapes[key]
        # Median event-timed times, and the host's time to enqueue one call where recorded:
        # a host time near the event time means the row measured the launch path.
        def timed(side):
            row = pair[side]
            host = row.get("host_us")
            return f"{side} {row['median_ms'] * 1e3:.1f} us" + (
                f" (host {host:.1f})" if host is not None else "")

        times = "  ".join(timed(side) for side in ("tilegemm", "cublas"))
        print(f"  {ratio:5.2f}  {m}x{n}x{k} {la},{lb},{lc}  {kernel}  {times}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worst", type=int, default=8, help="worst shapes listed per file")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    for path in args.files:
        summarise(path, args.worst)


if __name__ == "__main__":
    main()

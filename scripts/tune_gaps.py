#!/usr/bin/env python3
"""Where `auto`'s rules leave time on the table (no GPU needed): per element type and seed, a
`tilegemm tune --random` result (every candidate timed per shape) beside a `bench --random` result
of `auto` by its rules on the same shapes (scripts/gpu_session.sh's `tune-seeds` step writes
both). It prints how many shapes the rules run below --below of cuBLAS and how many of them the
fastest candidate brings to it, then the pairs (the rules' kernel, the fastest candidate) over the
shapes where that candidate beats the rules by more than --margin, with their count and the
geometric mean of the candidate's time over the rules', largest classes first: the data a new
rule is cut from (and, with a class of few shapes, the reason not to cut one).

Files pair by name: `...tune-random-<dtype>-s<seed>.json` with `...random-rules-<dtype>-s<seed>.json`.

Usage: scripts/tune_gaps.py [--below X] [--margin F] [--rows] RESULT.json [...]
"""
import argparse
import collections
import json
import re
import sys

from random_summary import geomean, load

TUNE = re.compile(r"tune-random-([a-z0-9]+)-s(\d+)\.json$")
RULES = re.compile(r"random-rules-([a-z0-9]+)-s(\d+)\.json$")


def fastest(path):
    """Per shape of a tune result, its fastest timed candidate: (median ms, kernel)."""
    best = {}
    for r in json.load(open(path))["results"]:
        key = (r["m"], r["n"], r["k"], r["layout_a"], r["layout_b"], r["layout_c"])
        timed = [(c["median_ms"], c["kernel"]) for c in r.get("candidates", [])
                 if c.get("median_ms") is not None]
        if timed:
            best[key] = min(timed)
    return best


def plain(kernel):
    """A kernel name without bench's `auto(...)` wrapper."""
    return kernel[5:-1] if kernel.startswith("auto(") and kernel.endswith(")") else kernel


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--below", type=float, default=0.8, help="the bar, x cuBLAS (default 0.8)")
    ap.add_argument("--margin", type=float, default=0.05,
                    help="a candidate counts where it is this much faster than the rules' kernel")
    ap.add_argument("--rows", action="store_true", help="list every shape of the pair table")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    tunes, rules = {}, {}
    for path in args.files:
        for pattern, into in ((TUNE, tunes), (RULES, rules)):
            m = pattern.search(path)
            if m:
                into[(m.group(1), int(m.group(2)))] = path
                break
        else:
            sys.exit(f"{path}: neither a tune-random nor a random-rules result")
    pairs = sorted(set(tunes) & set(rules))
    if not pairs:
        sys.exit("no tune-random and random-rules results of the same type and seed")
    print(f"type seed | below {args.below}x by the rules | brought to it by the fastest candidate")
    classes = collections.defaultdict(list)
    for dtype, seed in pairs:
        best = fastest(tunes[(dtype, seed)])
        below = reached = 0
        for key, pair in load(rules[(dtype, seed)]).items():
            if "cublas" not in pair or "tilegemm" not in pair or key not in best:
                continue
            cublas = pair["cublas"]["median_ms"]
            ours = pair["tilegemm"]["median_ms"]
            best_ms, best_kernel = best[key]
            if cublas / ours < args.below:
                below += 1
                reached += cublas / best_ms >= args.below
            chosen = plain(pair["tilegemm"]["kernel"])
            if best_kernel != chosen and best_ms < (1.0 - args.margin) * ours:
                classes[(dtype, chosen, best_kernel)].append(
                    (best_ms / ours, seed, key, cublas / ours, cublas / best_ms))
        print(f"{dtype:4} {seed:4} | {below:3} | {reached:3}")
    print(f"\ncandidate faster than the rules' kernel by more than {args.margin:.0%}: "
          "type, rules' kernel -> fastest, shapes, geometric mean of the time")
    for (dtype, chosen, best_kernel), rows in sorted(classes.items(),
                                                     key=lambda c: (-len(c[1]), c[0])):
        print(f"{dtype:4} {chosen} -> {best_kernel}: {len(rows)}, "
              f"{geomean([r[0] for r in rows]):.3f}")
        if args.rows:
            for ratio, seed, key, before, after in sorted(rows):
                m, n, k, la, lb, lc = key
                print(f"    s{seed} {m}x{n}x{k} {la},{lb},{lc}  {ratio:.2f} of the time, "
                      f"{before:.2f}x -> {after:.2f}x cuBLAS")


if __name__ == "__main__":
    main()

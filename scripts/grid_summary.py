#!/usr/bin/env python3
"""Where `auto`'s rules leave time on narrow products (no GPU needed): reads `tilegemm tune`
results in which every candidate was timed per shape beside cuBLAS (scripts/gpu_session.sh's
`tune-grid` step writes `...tune-grid-<dtype>-<layouts>-<pad>-<m|n>.json`; `tune-seeds`'s
`...tune-random-<dtype>-s<seed>.json` mix in the same way) and groups the shapes with M or N of
2..64 into classes: alignment (A and B at 16-byte pitches or not), whether the wide operand and
the narrow one are K-major, width and K. Per class it prints the rules' time against cuBLAS's, the
one candidate that is fastest over the class in geometric mean against the rules' choice, how many
shapes it wins or loses by more than --margin, and the shapes below --below of cuBLAS by the rules
and by that candidate. A candidate that the screening round left out (more than twice the
fastest) counts as twice the fastest: the gains are lower bounds there.

Usage: scripts/grid_summary.py [--dtype bf16] [--below 0.8] [--margin 0.05] RESULT.json [...]
"""
import argparse
import collections
import json
import math


def geomean(xs):
    xs = list(xs)
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def shapes(paths, dtype):
    """Per narrow shape of the files in `dtype`: its class key, cuBLAS's time, the rules' kernel
    and every candidate's time (ms)."""
    for path in paths:
        for r in json.load(open(path))["results"]:
            if r["dtype"] != dtype or not r.get("candidates"):
                continue
            m, n, k = r["m"], r["n"], r["k"]
            narrow = min(m, n)
            if narrow < 2 or narrow > 64 or k < 13:
                continue
            times = {c["kernel"]: c["median_ms"] for c in r["candidates"] if c.get("median_ms")}
            for c in r["candidates"]:
                if c["status"] == "screened out":
                    times[c["kernel"]] = 2.0 * r["winner_ms"]
            if r.get("rules_choice") not in times:
                continue
            n_narrow = n <= m
            wide_k = r["layout_a" if n_narrow else "layout_b"] == ("row" if n_narrow else "col")
            narrow_k = r["layout_b" if n_narrow else "layout_a"] == ("col" if n_narrow else "row")
            aligned = r["align_a"] == 16 and r["align_b"] == 16
            width = next(f"{lo}..{hi}" for lo, hi in ((2, 4), (5, 8), (9, 16), (17, 32), (33, 64))
                         if narrow <= hi)
            kc = next((f"K {lo}..{hi}" for lo, hi in ((13, 64), (65, 512), (513, 2048)) if k <= hi),
                      "K 2049..")
            key = ("16-byte" if aligned else "other", "wide K-major" if wide_k else "wide M/N-major",
                   "narrow K-major" if narrow_k else "narrow M/N-major", width, kc)
            yield key, r["cublas_ms"], r["rules_choice"], times


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dtype", default="bf16")
    ap.add_argument("--below", type=float, default=0.8, help="the bar, x cuBLAS (default 0.8)")
    ap.add_argument("--margin", type=float, default=0.05, help="a win or loss past this share")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    classes = collections.defaultdict(list)
    for key, cublas, rules, times in shapes(a.files, a.dtype):
        classes[key].append((cublas, rules, times))
    print(f"{a.dtype}: class | shapes | rules x cuBLAS | fastest candidate over the class: time of "
          f"the rules / its, wins, losses, x cuBLAS | below {a.below}x: rules -> it")
    for key in sorted(classes):
        rows = classes[key]
        common = set.intersection(*(set(t) for _, _, t in rows))
        gain, best = max((geomean(t[r] / t[c] for _, r, t in rows), c) for c in common)
        wins = sum(t[r] / t[best] > 1 + a.margin for _, r, t in rows)
        losses = sum(t[r] / t[best] < 1 - a.margin for _, r, t in rows)
        below_rules = sum(cb / t[r] < a.below for cb, r, t in rows)
        below_best = sum(cb / t[best] < a.below for cb, _, t in rows)
        print(f"{', '.join(key):70} | {len(rows):3} | {geomean(cb / t[r] for cb, r, t in rows):.2f} | "
              f"{best} {gain:.2f}, {wins}, {losses}, "
              f"{geomean(cb / t[best] for cb, _, t in rows):.2f} | {below_rules} -> {below_best}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Summarises an A/B of two builds timed by `tilegemm bench` beside cuBLAS (the loop of
scripts/gpu_session.sh's `ab` step): result files named `<anything>ab_<old|new>_<repeat>_...json`
(or `rs_<old|new>_<repeat>_...json` for `bench --random` runs), every shape timed on both builds in
several alternating repeats.

Per shape (its extents and pads) it prints the median time of each build over its repeats (and
the median host time per call), cuBLAS's median in each build's runs, and new / old. Because a
host's launch times drift between repeats, it also prints the shape's time over cuBLAS's in the
same run, new over old (`norm`): a change shows there even where both sides moved together, and
the geometric mean of `norm` over the shapes is the A/B's summary line. `auto` rows are one row
per shape whichever kernel each build chose (printed as old -> new where they differ): a rule
change is compared on the shapes it moves.

Usage: scripts/ab_summary.py [--worst N] RESULT.json [...]
"""
import argparse
import collections
import json
import math
import re
import statistics

NAME = re.compile(r"(?:^|[_/])(?:ab|rs)_(old|new)_(\d+)_")


def load(paths):
    """Per result file, per shape: tilegemm's (kernel, ms, host us) and cuBLAS's ms, keyed by
    (build, repeat, file)."""
    runs = {}
    for path in paths:
        m = NAME.search(path)
        if not m:
            raise SystemExit(f"{path}: not an A/B result (no ab_<old|new>_<repeat>_ in its name)")
        shapes = collections.defaultdict(dict)
        for r in json.load(open(path))["results"]:
            if r.get("median_ms") is None:
                continue  # a kernel that could not run the shape (N/A)
            # The pads are part of the shape: one extent at two pitches is two rows (the same
            # shape at ld 8193 and ld 8196 are two kernels' rows, not one median of both).
            shape = (r.get("dtype", "f32"), r["layout_a"], r["layout_b"], r["layout_c"],
                     r["m"], r["n"], r["k"],
                     (r.get("pad_a", 0), r.get("pad_b", 0), r.get("pad_c", 0)))
            if r["kernel"] == "cublas":
                shapes[shape]["c"] = r["median_ms"]
            else:
                chosen = re.match(r"^auto\((.*)\)$", r["kernel"])
                kernel = "auto" if chosen else r["kernel"]
                shapes[shape].setdefault("t", []).append(
                    (kernel, r["median_ms"], r.get("host_us"), chosen.group(1) if chosen else None))
        runs[(m.group(1), int(m.group(2)), path)] = shapes
    return runs


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def median_or_none(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def summarise(paths, worst):
    # (shape, kernel) -> build -> lists of ms, host us, cuBLAS ms and ms / cuBLAS ms (same run)
    rows = collections.defaultdict(lambda: collections.defaultdict(lambda: collections.defaultdict(list)))
    for (build, _, _), shapes in load(paths).items():
        for shape, sides in shapes.items():
            for kernel, ms, host, chosen in sides.get("t", []):
                e = rows[shape + (kernel,)][build]
                if chosen and chosen not in e["chosen"]:
                    e["chosen"].append(chosen)
                e["ms"].append(ms)
                e["host"].append(host)
                if "c" in sides:
                    e["cublas"].append(sides["c"])
                    e["norm"].append(ms / sides["c"])
    table = []
    for key in sorted(rows):
        old, new = rows[key]["old"], rows[key]["new"]
        if not old["ms"] or not new["ms"]:
            continue
        o, n = statistics.median(old["ms"]), statistics.median(new["ms"])
        no, nn = median_or_none(old["norm"]), median_or_none(new["norm"])
        table.append((key, old, new, n / o, nn / no if no and nn else None))
    def label(key, old, new):
        """The row's kernel: for auto, the kernel it chose (old -> new where the builds differ)."""
        if key[-1] != "auto":
            return key[-1]
        o_k, n_k = "/".join(old["chosen"]), "/".join(new["chosen"])
        return o_k if o_k == n_k else f"{o_k} -> {n_k}"

    def shape_name(key):
        """m x n x k, and the pads where any is set."""
        m, n, k, pads = key[4:8]
        return f"{m}x{n}x{k}" + (f" pad {','.join(map(str, pads))}" if any(pads) else "")

    for key, old, new, ratio, norm in table:
        dtype, la, lb, lc = key[:4]
        kernel = label(key, old, new)

        def us(values):
            v = median_or_none(values)
            return "-" if v is None else f"{v * 1e3:.1f}"

        def host(values):
            v = median_or_none(values)
            return "-" if v is None else f"{v:.1f}"

        print(f"{dtype:4s} {la},{lb},{lc} {shape_name(key):13s} {kernel:34s} "
              f"old {us(old['ms']):>7s} (host {host(old['host']):>5s}) "
              f"new {us(new['ms']):>7s} (host {host(new['host']):>5s})  "
              f"cublas {us(old['cublas'])}/{us(new['cublas'])}  new/old {ratio:.2f}"
              + (f"  norm {norm:.2f}" if norm else ""))
    normed = [norm for *_, norm in table if norm]
    moved = sum(t[1]["chosen"] != t[2]["chosen"] for t in table)
    print(f"{len(table)} shapes; new/old geometric mean {geomean([t[3] for t in table]):.3f}; "
          f"normalised by cuBLAS {geomean(normed):.3f} "
          f"({sum(x < 0.95 for x in normed)} below 0.95, {sum(x > 1.05 for x in normed)} above 1.05)"
          + (f"; auto chose another kernel on {moved}" if moved else ""))
    if worst:
        ranked = sorted((t[4], t[0], label(t[0], t[1], t[2])) for t in table if t[4])
        for norm, key, kernel in ranked[:worst] + ranked[-worst:]:
            print(f"  norm {norm:.2f}  {' '.join(map(str, key[:4]))} {shape_name(key)} {kernel}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--worst", type=int, default=0,
                    help="also list the N shapes that moved most each way (normalised)")
    ap.add_argument("results", nargs="+")
    args = ap.parse_args()
    summarise(args.results, args.worst)


if __name__ == "__main__":
    main()

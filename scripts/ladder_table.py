#!/usr/bin/env python3
"""The ladder table of docs/ladder.md, from measured `tilegemm bench --format json` results.

Reads one or more bench JSON files (a `device` object and `results` rows carrying kernel, dtype,
dtype_c, m, n, k, layout_a/b/c, median_ms, tflops, cublas_ratio, status; files from before the
dtype_c key are f32 -> f32) and prints, per element types and layout mix found, a markdown table of every kernel in ladder order at the chosen sizes (default 4096^3 and 1024^3):
TFLOP/s and the ratio to cuBLAS measured in the same run. With --geomean, a last column gives
each kernel's geometric mean of the cuBLAS ratio over every shape of that types and layout mix in
the files.

Usage:
  scripts/ladder_table.py bench/results/<gpu>_<date>_ladder.json [more.json ...]
      [--kernels kernels.json] [--size 4096 --size 1024] [--geomean]

--kernels takes `tilegemm list --format json` (name, family, rung) for the ladder order; without
it the rung is inferred from the name's family prefix. Prints to stdout; writes nothing else.
"""
import argparse
import json
import math
import sys

# Family prefixes in ladder order, longest first where one prefix contains another.
RUNG_BY_PREFIX = [
    ("naive", 1),
    ("smem_tiled_rect", 3),
    ("smem_tiled", 2),
    ("blocktile", 4),
    ("vectorized", 5),
    ("bankfree", 6),
    ("warptile", 7),
    ("cp_async", 8),
    ("tuned", 9),
    ("mma_sync", 13),
]


def rung_of(name, rungs):
    if name in rungs:
        return rungs[name]
    if name == "cublas":
        return -1
    if name == "auto":
        return 1000
    for prefix, rung in RUNG_BY_PREFIX:
        if name.startswith(prefix):
            return rung
    return 999  # other families (CuTe): after the ladder


def types_of(row):
    """The row's (A/B, C) element types; a row without dtype_c has C's default for A/B's type."""
    ab = row.get("dtype", "f32")
    c = row.get("dtype_c") or ("f32" if ab in ("f32", "tf32") else ab)
    return ab, c


def types_name(ab, c):
    """As the library's gemm_types_name: "bf16" when C has A/B's type (tf32 -> f32 is "tf32")."""
    return ab if c == ab or (ab == "tf32" and c == "f32") else "%s->%s" % (ab, c)


def mix_of(row):
    return types_of(row) + (row["layout_a"], row["layout_b"], row["layout_c"])


def load_rungs(path):
    if not path:
        return {}
    with open(path) as f:
        data = json.load(f)
    entries = data.get("kernels", data) if isinstance(data, dict) else data
    return {e["name"]: e.get("rung", 999) for e in entries}


def fmt_tflops(row):
    if row is None:
        return "-"
    if row.get("status") != "ok" or row.get("tflops") is None:
        return row.get("status") or "-"
    return "%.2f" % row["tflops"]


def fmt_ratio(row):
    if row is None or row.get("status") != "ok" or row.get("cublas_ratio") is None:
        return "-"
    return "%.3f" % row["cublas_ratio"]


def geomean(values):
    values = [v for v in values if v is not None and v > 0]
    if not values:
        return None
    return math.exp(sum(math.log(v) for v in values) / len(values))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("results", nargs="+", help="bench JSON files")
    ap.add_argument("--kernels", help="`tilegemm list --format json` output, for rung order")
    ap.add_argument("--size", type=int, action="append",
                    help="square size to tabulate (repeatable; default 4096 and 1024)")
    ap.add_argument("--geomean", action="store_true",
                    help="add the geometric mean of the cuBLAS ratio over all shapes of the mix")
    args = ap.parse_args()
    sizes = args.size or [4096, 1024]
    rungs = load_rungs(args.kernels)

    devices = []
    rows = []
    for path in args.results:
        with open(path) as f:
            data = json.load(f)
        dev = data.get("device", {})
        devices.append((path, dev, data.get("command", ""), data.get("timestamp", "")))
        rows.extend(data.get("results", []))
    if not rows:
        print("no results in %s" % ", ".join(args.results), file=sys.stderr)
        return 1

    for path, dev, command, stamp in devices:
        clock = dev.get("sm_clock_mhz")
        print("- %s: %s%s, %s; `%s`" % (
            path, dev.get("name", "unknown device"),
            " (SM clock %s MHz)" % clock if clock else "", stamp, command))
    print()

    # f32 first (the SIMT ladder), then the other types, each by layout mix.
    mixes = sorted({mix_of(r) for r in rows}, key=lambda m: (m[:2] != ("f32", "f32"), m))
    for mix in mixes:
        in_mix = [r for r in rows if mix_of(r) == mix]
        by_key = {}
        for r in in_mix:
            by_key[(r["kernel"], r["m"], r["n"], r["k"])] = r
        kernels = sorted({r["kernel"] for r in in_mix}, key=lambda n: (rung_of(n, rungs), n))

        print("### %s: A %s, B %s, C %s\n" % ((types_name(*mix[:2]),) + mix[2:]))
        header = ["rung", "kernel"]
        for s in sizes:
            header += ["%d^3 TFLOP/s" % s, "%d^3 vs cuBLAS" % s]
        if args.geomean:
            header.append("geomean vs cuBLAS (%d shapes)" %
                          len({(r["m"], r["n"], r["k"]) for r in in_mix}))
        print("| " + " | ".join(header) + " |")
        print("|" + "|".join(["---"] * 2 + ["---:"] * (len(header) - 2)) + "|")
        for name in kernels:
            rung = rung_of(name, rungs)
            cells = ["" if rung < 0 or rung >= 999 else str(rung), "`%s`" % name]
            for s in sizes:
                row = by_key.get((name, s, s, s))
                cells += [fmt_tflops(row), fmt_ratio(row)]
            if args.geomean:
                ratios = [r.get("cublas_ratio") for r in in_mix
                          if r["kernel"] == name and r.get("status") == "ok"]
                g = geomean(ratios)
                cells.append("-" if g is None else "%.3f" % g)
            print("| " + " | ".join(cells) + " |")
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())

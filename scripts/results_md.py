#!/usr/bin/env python3
"""Markdown view of a `tilegemm bench --format json` result file, for bench/results/.

The JSON is what was measured; this prints the same rows as a markdown table under a header that
names the device, the command and the settings, so a result needs one benchmark run, not two.

Usage: scripts/results_md.py RESULT.json > RESULT.md
"""
import json
import sys


def fmt(value, spec):
    return "-" if value is None else format(value, spec)


def types_of(row):
    """The row's (A/B, C) element types; files from before the dtype_c key are f32 -> f32."""
    ab = row.get("dtype", "f32")
    c = row.get("dtype_c") or ("f32" if ab in ("f32", "tf32") else ab)
    return ab, c


def types_name(ab, c):
    """As the library's gemm_types_name: "bf16" when C has A/B's type (tf32 -> f32 is "tf32")."""
    return ab if c == ab or (ab == "tf32" and c == "f32") else f"{ab}->{c}"


def main(path):
    with open(path) as f:
        data = json.load(f)
    dev = data["device"]
    settings = data.get("settings", {})
    print(f"# tilegemm bench on {dev['name']}")
    print()
    print(f"- device: {dev['name']}, cc {dev.get('cuda_cc', '?')}, {dev.get('sm_count', '?')} SMs, "
          f"SM clock max {dev.get('sm_clock_mhz', '?')} MHz, memory clock {dev.get('mem_clock_mhz', '?')} MHz, "
          f"L2 {dev.get('l2_bytes', 0) // (1 << 20)} MiB, driver {dev.get('driver_version', '?')}, "
          f"runtime {dev.get('runtime_version', '?')}")
    print(f"- when: {data.get('timestamp', '?')}")
    print(f"- command: `{data.get('command', '?')}`")
    types = sorted({types_of(r) for r in data["results"]})
    print("- types: " + "; ".join(f"A/B {ab}, C {c}" for ab, c in types)
          + " (fp32 accumulation, alpha and beta fp32)")
    rounds = settings.get('rounds', 1)
    per_round = f" in each of {rounds} interleaved rounds (every kernel in turn, each round " \
        "starting one kernel later)" \
        if rounds > 1 else ""
    min_time, max_noise = settings.get('min_time_s', 0), settings.get('max_noise_pct', 0)
    if min_time or max_noise:
        rule = " and ".join(([f">= {min_time:g} s of kernel time"] if min_time else []) +
                            ([f"noise <= {max_noise:g}%"] if max_noise else []))
        per_round += (f", batches of them until {rule} (at most {settings.get('max_time_s', 10):g} s;"
                      " samples and noise per row in the JSON)")
    print(f"- timing: {settings.get('warmup', '?')} warm-up launches, median of "
          f"{settings.get('reps', '?')} timed launches{per_round} (one CUDA event pair each), "
          f"L2 {'flushed' if settings.get('cold') else 'warm'}, seed {settings.get('seed', '?')}; "
          "cuBLAS timed in the same process, in the same types, on the same buffers")
    print()
    print("| kernel | M | N | K | layout A,B,C | types | median ms | min ms | max ms | TFLOP/s "
          "| x cuBLAS | rel error | status |")
    print("|---|--:|--:|--:|---|---|--:|--:|--:|--:|--:|--:|---|")
    for r in data["results"]:
        layout = f"{r.get('layout_a', '?')},{r.get('layout_b', '?')},{r.get('layout_c', '?')}"
        print(f"| {r['kernel']} | {r['m']} | {r['n']} | {r['k']} | {layout} "
              f"| {types_name(*types_of(r))} "
              f"| {fmt(r.get('median_ms'), '.4f')} | {fmt(r.get('min_ms'), '.4f')} "
              f"| {fmt(r.get('max_ms'), '.4f')} | {fmt(r.get('tflops'), '.2f')} "
              f"| {fmt(r.get('cublas_ratio'), '.3f')} | {fmt(r.get('rel_error'), '.2e')} "
              f"| {r['status']} |")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])

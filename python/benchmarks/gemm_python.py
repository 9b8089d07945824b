"""The Python package's two targets, measured on a GPU:

  1. throughput: tilegemm.gemm at 4096^3 (bf16 and fp32) against the C++ library's own benchmark
     at the same shape (the CLI `tilegemm bench` when --cli names it, and tilegemm.bench, the same
     runner in this process) and torch.matmul. Target: within 2% of the C++ bench.
  2. call overhead: tilegemm.gemm on 64^3 against torch.matmul, CUDA events around 1000
     back-to-back calls. Target: at most 1.5x torch.matmul's time per call.

Throughput is timed as the C++ bench times (an event pair around each back-to-back call, median),
and also as batches (events around 20 back-to-back calls). Call overhead is timed as batches of
1000 calls: the GPU finishes each 64^3 product faster than the host issues the next, so the time
per call is the host's issue rate, which is what call overhead means. The contenders alternate in
rounds, so all run under the same clocks.

    python python/benchmarks/gemm_python.py --out DIR [--cli build/tools/tilegemm/tilegemm]

writes DIR/<GPU>_<date>_python.json and .md and prints the markdown.
"""

import argparse
import datetime
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import torch

import tilegemm

DTYPES = {"bf16": torch.bfloat16, "f32": torch.float32}


def testbed_like(rows, cols, dtype_name, seed):
    """Values as the testbed's fills draws them (uniform in [-1, 1), exact in the type: 24 random
    bits for fp32, 8 for bf16), so that tilegemm.gemm and torch.matmul multiply numbers like the
    ones the C++ bench times on: a tensor core's power draw, and so its clock under the power
    cap, depends on the bits it multiplies."""
    bits = {"f32": 23, "bf16": 7}[dtype_name]
    g = torch.Generator(device="cuda").manual_seed(seed)
    x = torch.randint(-(1 << bits), 1 << bits, (rows, cols), device="cuda", generator=g)
    return (x.double() / (1 << bits)).to(DTYPES[dtype_name])


def batch_ms(fn, calls, rounds, warmup=3):
    """Per-call milliseconds of `calls` back-to-back calls between two CUDA events, one sample per
    round."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(rounds):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(calls):
            fn()
        stop.record()
        stop.synchronize()
        samples.append(start.elapsed_time(stop) / calls)
    return samples


def per_call_ms(fn, reps=20, warmup=5):
    """As the C++ bench times (src/bench/timer.cpp): an event pair around each of `reps`
    back-to-back calls after `warmup`, one synchronisation at the end."""
    for _ in range(warmup):
        fn()
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
              for _ in range(reps)]
    for start, stop in events:
        start.record()
        fn()
        stop.record()
    torch.cuda.synchronize()
    return [start.elapsed_time(stop) for start, stop in events]


def interleaved(fns, calls, rounds):
    """Each fn's per-call samples, the fns taking turns in every round."""
    out = {name: [] for name in fns}
    for name, fn in fns.items():
        batch_ms(fn, calls, 1)  # warm-up: workspaces, attributes, allocator
    for _ in range(rounds):
        for name, fn in fns.items():
            out[name] += batch_ms(fn, calls, 1, warmup=0)
    return out


def host_us(fn, calls):
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    t1 = time.perf_counter()
    torch.cuda.synchronize()
    return (t1 - t0) / calls * 1e6


def cli_row(cli, dtype, size):
    """The auto row of one `tilegemm bench` run of the CLI (warm-up 5, 20 timed launches)."""
    cmd = [cli, "bench", "--kernels", "auto", "--shape", f"{size}x{size}x{size}", "--dtype", dtype,
           "--reps", "20", "--warmup", "5", "--format", "json"]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[1:])}: exit {proc.returncode}: {proc.stderr.strip()}")
    return next(r for r in json.loads(proc.stdout)["results"] if r["kernel"].startswith("auto("))


def throughput(dtype_name, size, rounds, cli):
    """tilegemm.gemm, torch.matmul, the C++ runner (tilegemm.bench) and the CLI, taking turns in
    every round: the GPU is power-capped, and numbers taken minutes apart differ more than 2%."""
    dtype = DTYPES[dtype_name]
    a = testbed_like(size, size, dtype_name, seed=1)
    b = testbed_like(size, size, dtype_name, seed=2)
    c = torch.empty(size, size, device="cuda", dtype=dtype)
    c_torch = torch.empty_like(c)
    flop = 2.0 * size**3
    # Verified first: the package's result against an fp64 product.
    tilegemm.gemm(a, b, c)
    ref = a.double() @ b.double()
    rel = (torch.linalg.norm(c.double() - ref) / torch.linalg.norm(ref)).item()
    tol = tilegemm.tolerance(size, dtype_name)
    del ref
    samples = {"python": [], "torch": [], "runner": [], "cublas": [], "cli": [],
               "python_batch": [], "torch_batch": []}
    kernel = cli_kernel = None
    run_gemm = lambda: tilegemm.gemm(a, b, c)  # noqa: E731
    run_torch = lambda: torch.matmul(a, b, out=c_torch)  # noqa: E731
    for _ in range(rounds):
        samples["python"] += per_call_ms(run_gemm)
        samples["torch"] += per_call_ms(run_torch)
        samples["python_batch"] += batch_ms(run_gemm, 20, 1, warmup=2)
        samples["torch_batch"] += batch_ms(run_torch, 20, 1, warmup=2)
        report = tilegemm.bench("auto", [(size, size, size)], dtype=dtype_name, warmup=5, reps=20)
        row = next(r for r in report["results"] if r["kernel"].startswith("auto("))
        kernel = row["kernel"]
        samples["runner"].append(row["median_ms"])
        samples["cublas"].append(next(r for r in report["results"]
                                      if r["kernel"] == "cublas")["median_ms"])
        if cli:
            row = cli_row(cli, dtype_name, size)
            cli_kernel = row["kernel"]
            samples["cli"].append(row["median_ms"])
    med = {k: statistics.median(v) if v else None for k, v in samples.items()}
    tf = {k: (flop / v / 1e9 if v else None) for k, v in med.items()}
    rec = {
        "dtype": dtype_name, "m": size, "n": size, "k": size, "rounds": rounds,
        "rel_error": rel, "tolerance": tol, "verified": rel <= tol,
        "python_tflops": tf["python"], "torch_tflops": tf["torch"],
        "python_batch_tflops": tf["python_batch"], "torch_batch_tflops": tf["torch_batch"],
        "bench_kernel": kernel, "bench_tflops": tf["runner"], "bench_cublas_tflops": tf["cublas"],
        "cli_tflops": tf["cli"], "cli_kernel": cli_kernel, "samples_ms": samples,
    }
    cpp = rec["cli_tflops"] or rec["bench_tflops"]
    rec["python_over_cpp"] = rec["python_tflops"] / cpp
    rec["target_met"] = rec["verified"] and rec["python_over_cpp"] >= 0.98
    return rec


def overhead(dtype_name, size, calls, rounds):
    dtype = DTYPES[dtype_name]
    a = (torch.rand(size, size, device="cuda") * 2 - 1).to(dtype)
    b = (torch.rand(size, size, device="cuda") * 2 - 1).to(dtype)
    c = torch.empty(size, size, device="cuda", dtype=dtype)
    c_torch = torch.empty_like(c)
    fns = {
        "tilegemm.gemm(a, b)": lambda: tilegemm.gemm(a, b),
        "torch.matmul(a, b)": lambda: torch.matmul(a, b),
        "tilegemm.gemm(a, b, c)": lambda: tilegemm.gemm(a, b, c),
        "torch.matmul(a, b, out=c)": lambda: torch.matmul(a, b, out=c_torch),
    }
    samples = interleaved(fns, calls=calls, rounds=rounds)
    per_call_us = {k: statistics.median(v) * 1e3 for k, v in samples.items()}
    host = {k: host_us(fn, calls) for k, fn in fns.items()}
    rec = {"dtype": dtype_name, "m": size, "n": size, "k": size, "calls": calls,
           "rounds": rounds, "per_call_us": per_call_us, "host_issue_us": host,
           "ratio_new": per_call_us["tilegemm.gemm(a, b)"] / per_call_us["torch.matmul(a, b)"],
           "ratio_out": (per_call_us["tilegemm.gemm(a, b, c)"]
                         / per_call_us["torch.matmul(a, b, out=c)"])}
    rec["target_met"] = rec["ratio_new"] <= 1.5 and rec["ratio_out"] <= 1.5
    return rec


def markdown(report):
    d = report["device"]
    lines = [f"# tilegemm Python package on {d['name']} ({report['date']})", "",
             f"{d['name']}, {d['sm_count']} SMs, driver {d['driver_version']}, runtime "
             f"{d['runtime_version']}; torch {report['torch']}; tilegemm {report['tilegemm']}.",
             f"Command: `{report['command']}`", "",
             "## Throughput at 4096³ (target: tilegemm.gemm within 2% of the C++ bench)", "",
             "| dtype | tilegemm.gemm TFLOP/s | C++ bench (CLI) | C++ bench (runner) | "
             "torch.matmul | cuBLAS (bench) | gemm / C++ | verified | target | "
             "gemm, batch | torch.matmul, batch |",
             "|---|--:|--:|--:|--:|--:|--:|---|---|--:|--:|"]
    for r in report["throughput"]:
        cli = f"{r['cli_tflops']:.1f}" if r["cli_tflops"] else "-"
        lines.append(f"| {r['dtype']} | {r['python_tflops']:.1f} | {cli} | "
                     f"{r['bench_tflops']:.1f} | {r['torch_tflops']:.1f} | "
                     f"{r['bench_cublas_tflops']:.1f} | {r['python_over_cpp']:.3f} | "
                     f"{'yes' if r['verified'] else 'NO'} ({r['rel_error']:.1e}) | "
                     f"{'met' if r['target_met'] else 'NOT met'} | "
                     f"{r['python_batch_tflops']:.1f} | {r['torch_batch_tflops']:.1f} |")
    lines += ["", "Every column but the last two is timed as the C++ bench times: an event pair "
              "around each of 20 back-to-back launches (calls) after 5 warm-up, the median over "
              f"all rounds ({report['throughput'][0]['rounds']}, in each of which tilegemm.gemm, "
              "torch.matmul, tilegemm.bench (the C++ runner, in this process) and the CLI "
              "`tilegemm bench` take turns; the C++ rows are verified first; "
              f"`{report['throughput'][0]['bench_kernel']}` chose the kernel). gemm / C++ divides "
              "by the CLI's number. The batch columns: events around 20 back-to-back calls, "
              "which also count the gaps between kernels.", "",
              "## Call overhead at 64³ (target: at most 1.5× torch.matmul)", "",
              "| dtype | call | µs per call (events, 1000 calls) | host issue µs | ratio |",
              "|---|---|--:|--:|--:|"]
    for r in report["overhead"]:
        for call, us in r["per_call_us"].items():
            if call.startswith("tilegemm.gemm(a, b)"):
                ratio = f"{r['ratio_new']:.2f}"
            elif call.startswith("tilegemm.gemm(a, b, c)"):
                ratio = f"{r['ratio_out']:.2f}"
            else:
                ratio = ""
            lines.append(f"| {r['dtype']} | `{call}` | {us:.2f} | "
                         f"{r['host_issue_us'][call]:.2f} | {ratio} |")
        lines.append(f"| {r['dtype']} | target | | | {'met' if r['target_met'] else 'NOT met'} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="directory for the result files")
    parser.add_argument("--cli", help="the tilegemm CLI binary, for its bench number")
    parser.add_argument("--size", type=int, default=4096)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=1000)
    args = parser.parse_args(argv)
    if not torch.cuda.is_available() or not tilegemm.cuda_available():
        print("gemm_python: no CUDA device found; nothing to time", file=sys.stderr)
        return 3
    device = tilegemm.devices()[torch.cuda.current_device()]
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    report = {"device": device, "date": date, "torch": torch.__version__,
              "tilegemm": tilegemm.__version__,
              "command": "python python/benchmarks/gemm_python.py " + " ".join(
                  a for a in (argv if argv is not None else sys.argv[1:]) if not a.startswith("/")),
              "throughput": [throughput(dt, args.size, args.rounds, args.cli)
                             for dt in ("bf16", "f32")],
              "overhead": [overhead(dt, 64, args.calls, args.rounds) for dt in ("f32", "bf16")]}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stem = f"{device['name'].replace(' ', '-')}_{date}_python"
    (out / f"{stem}.json").write_text(json.dumps(report, indent=2) + "\n")
    text = markdown(report)
    (out / f"{stem}.md").write_text(text)
    print(text)
    met = all(r["target_met"] for r in report["throughput"] + report["overhead"])
    print("targets: " + ("met" if met else "NOT met"))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Result files and a runner for the tests of scripts/ (the summaries of `tilegemm bench` runs)."""
import json
import subprocess
import sys
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


def result(kernel, ms, host=None, m=64, n=64, k=4096):
    """One row of a `tilegemm bench` JSON result (bf16, A row-major, B column-major)."""
    return {"kernel": kernel, "dtype": "bf16", "layout_a": "row", "layout_b": "col",
            "layout_c": "row", "m": m, "n": n, "k": k, "median_ms": ms, "host_us": host}


def write(tmp_path, name, rows):
    """A result file of `rows` under tmp_path; its path."""
    path = tmp_path / name
    path.write_text(json.dumps({"results": rows}))
    return str(path)


def run(script, *args):
    """scripts/`script` on `args`: its exit code and its output (stdout then stderr)."""
    out = subprocess.run([sys.executable, str(SCRIPTS / script), *args], capture_output=True,
                         text=True)
    return out.returncode, out.stdout + out.stderr

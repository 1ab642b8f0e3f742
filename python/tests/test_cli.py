"""python -m clforge: info, explain, bench gemm|overhead, plot from a bench's JSON."""
import json
import os
import subprocess
import sys

import pytest

from clforge.cli import command_path

needs_command = pytest.mark.skipif(command_path() is None, reason="the clforge command was not built "
                                   "(CLFORGE_BUILD_TOOLS=OFF)")


def run(*args, timeout=300):
    p = subprocess.run([sys.executable, "-m", "clforge"] + list(args), capture_output=True, text=True,
                       timeout=timeout, env=dict(os.environ))
    return p.returncode, p.stdout, p.stderr


def test_help_and_usage_errors():
    rc, out, _ = run("--help")
    assert rc == 0 and "python -m clforge" in out and "plot" in out
    rc, _, err = run("frobnicate")
    assert rc == 2 and "unknown command" in err


@needs_command
def test_info_and_explain():
    rc, out, err = run("info")
    assert rc == 0, err
    assert "clforge (Python)" in out and "library" in out and "Default device" in out
    rc, out, err = run("explain", "gemm", "64", "64", "64")
    assert rc == 0 and "gemm 64x64x64" in out, err


def test_bench_overhead_json():
    pytest.importorskip("pyopencl", reason="pyopencl is not installed")
    rc, out, err = run("bench", "overhead", "--calls", "50", "--rounds", "2", "--json")
    assert rc == 0, err
    row = json.loads(out)
    assert row["op"] == "overhead" and row["python_call_us"] > row["c_call_us"] > 0


def test_bench_gemm_then_plot(tmp_path):
    pytest.importorskip("pyopencl", reason="pyopencl is not installed")
    pytest.importorskip("matplotlib", reason="matplotlib is not installed (Debian: python3-matplotlib)")
    rc, out, err = run("bench", "gemm", "--sizes", "64", "--runs", "3", "--warmup", "1", "--no-peak", "--json")
    assert rc == 0, err
    rows = [json.loads(line) for line in out.splitlines()]
    assert rows and rows[0]["op"] == "gemm" and rows[0]["gflops"] > 0 and rows[0]["max_rel_err"] < 1e-4
    assert "vs_numpy" in rows[0]
    results = tmp_path / "results.jsonl"
    results.write_text(out + json.dumps({"op": "peak", "device": rows[0]["device"], "peak_gflops": 100.0,
                                         "peak_gbps": 20.0}) + "\n")
    png = tmp_path / "roofline.png"
    rc, _, err = run("plot", str(results), "-o", str(png))
    assert rc == 0, err
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10000

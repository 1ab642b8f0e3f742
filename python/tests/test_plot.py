"""Tests of clforge.plot: bench JSON lines in, a roofline + peer-ratio PNG out.

plot.py is loaded by its path, not through the package: the package's
__init__ loads libclforge, which the charts do not need.
"""

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("matplotlib")

_PLOT_PY = Path(__file__).resolve().parents[1] / "src" / "clforge" / "plot.py"
_spec = importlib.util.spec_from_file_location("clforge_plot_under_test", _PLOT_PY)
plot = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(plot)

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
DEVICE = "pthread-skylake-avx512-AMD EPYC"

# Rows in the formats 'clforge bench <op> --json' prints (trimmed to the
# fields that matter here, values from a real run).
PEAK = {"op": "peak", "device": DEVICE, "f32_gflops": 230.7, "f16_gflops": None, "read_gbps": 32.08,
        "copy_gbps": 31.96, "peak_gflops": 230.7, "peak_gbps": 32.08, "runs": 10, "timer": "events"}


def gemm(m, n, k, gflops, vs_clblast, vs_openblas, dtype="f32"):
    return {"op": "gemm", "m": m, "n": n, "k": k, "batch": 1, "dtype": dtype, "trans": "NN", "path": "auto",
            "params": "device-default", "provider": "clforge", "median_ms": 0.43, "gflops": gflops,
            "gbps": gflops / 40.0, "peak_gflops": 212.4, "peak_gbps": 30.55, "frac_peak_flops": 0.33,
            "device": DEVICE, "clblast_gflops": gflops / vs_clblast, "vs_clblast": vs_clblast,
            "openblas_gflops": gflops / vs_openblas, "vs_openblas": vs_openblas}


CONV = {"op": "conv", "layer": "r50_3x3_28", "n": 1, "c": 128, "h": 28, "w": 28, "k": 128, "r": 3, "s": 3,
        "stride": 1, "pad": 1, "groups": 1, "dilation": 1, "p": 28, "q": 28, "dtype": "f32", "layout": "nchw",
        "algo": "auto", "algo_chosen": "im2col", "provider": "clforge", "status": "ok", "median_ms": 3.34,
        "gflops": 69.13, "gbps": 0.416, "peak_gflops": 224.35, "peak_gbps": 46.05, "device": DEVICE,
        "clblast_gflops": None, "vs_clblast": None, "onednn_gflops": 212.63, "vs_onednn": 0.325}
SOFTMAX = {"op": "softmax", "kind": "softmax", "rows": 64, "n": 100, "dtype": "f32", "inplace": False,
           "status": "ok", "median_ms": 0.0297, "gbps": 1.72, "bytes": 51200, "peak_gbps": None,
           "frac_peak_bw": None, "device": DEVICE}


def write(path, lines):
    path.write_text("".join((json.dumps(x) if isinstance(x, dict) else x) + "\n" for x in lines))
    return path


@pytest.fixture
def results(tmp_path):
    return write(tmp_path / "results.jsonl", [
        PEAK,
        gemm(256, 256, 256, 77.8, 8.77, 0.74),
        gemm(1024, 1024, 1024, 180.0, 12.5, 1.10),
        "clforge: warning: this line is not JSON {",
        CONV,
        SOFTMAX,
    ])


def is_png(path):
    data = Path(path).read_bytes()
    return len(data) > 1000 and data.startswith(PNG_SIGNATURE)


def test_plot_file_draws_roofline_and_bars(results, tmp_path, capsys):
    out = tmp_path / "roofline.png"
    s = plot.plot_file([results], out)
    assert "not JSON" in capsys.readouterr().err  # the garbage line: warned, skipped
    assert is_png(out)
    assert s["output"] == str(out) and s["outputs"] == [str(out)]
    assert s["points"] == 3  # two gemm rows and the conv row; the peak and softmax rows are none
    assert s["bars"] == 5  # 2 gemm rows x 2 peers, conv's onednn (its vs_clblast is null)
    assert s["groups"] == 3
    assert s["bandwidth_only"] == 1  # softmax: GB/s only
    assert s["peers"] == ["clblast", "openblas", "onednn"]
    # The peak row's numbers win over the rows' own peak fields.
    assert s["peaks"][DEVICE]["gflops"] == 230.7 and s["peaks"][DEVICE]["gbps"] == 32.08
    roof, ratios, bw = s["axes"]
    assert roof["xlabel"] == "arithmetic intensity (FLOP/byte)" and roof["ylabel"] == "GFLOP/s"
    assert DEVICE in roof["title"] and "no peak" not in roof["title"]
    assert ratios["xlabel"] == "clforge / peer (higher is better)" and ratios["ylabel"]
    assert bw["xlabel"] == "GB/s" and bw["ylabel"]


def test_main_writes_png_and_split_bars(results, tmp_path, capsys):
    out, bars = tmp_path / "r.png", tmp_path / "bars.png"
    assert plot.main([str(results), "-o", str(out), "--bars", str(bars), "--title", "t"]) == 0
    assert is_png(out) and is_png(bars)
    assert "3 points" in capsys.readouterr().out


def test_without_peak_the_title_says_so(tmp_path):
    rows = [gemm(256, 256, 256, 77.8, 8.77, 0.74)]
    for r in rows:
        r.pop("peak_gflops"), r.pop("peak_gbps")
    s = plot.plot_rows(rows, tmp_path / "p.png")
    assert is_png(tmp_path / "p.png")
    assert s["peaks"] == {} and "no peak" in s["axes"][0]["title"]


def test_attention_peer_rows_join_the_case(tmp_path):
    case = {"op": "attention", "kind": "prefill", "b": 1, "hq": 2, "hkv": 2, "sq": 48, "sk": 48, "d": 16,
            "causal": False, "q_dtype": "f32", "kv_dtype": "f32", "device": DEVICE}
    rows = [dict(case, provider="clforge:fused", gflops=22.4, gbps=1.87, vs_clforge=None),
            dict(case, provider="unfused-clforge", gflops=6.4, gbps=0.53, vs_clforge=3.49),
            dict(case, provider="unfused-clblast", gflops=1.1, gbps=0.09, vs_clforge=20.1),
            dict(case, provider="read K+V", gflops=0, gbps=19.2, vs_clforge=0.017)]
    s = plot.plot_rows(rows, tmp_path / "a.png")
    assert s["points"] == 3 and s["bandwidth_only"] == 1
    assert s["groups"] == 1 and s["bars"] == 3
    assert s["peers"] == ["unfused-clforge", "unfused-clblast", "read K+V"]


def test_many_rows_are_numbered(tmp_path):
    rows = [gemm(64 * (i % 16 + 1), 64 * (i // 16 + 1), 256, 20.0 + i, 2.0 + i % 7, 0.5 + 0.01 * i)
            for i in range(120)]
    s = plot.plot_rows(rows, tmp_path / "many.png", max_labels=30)
    assert is_png(tmp_path / "many.png")
    assert s["numbered"] and s["points"] == 120 and s["bars"] == 240


def test_no_usable_rows_is_a_usage_error(tmp_path, capsys):
    empty = write(tmp_path / "table.txt", ["op    m    n    k   GFLOP/s", "gemm 256 256 256 77.8", PEAK])
    assert plot.main([str(empty), "-o", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err
    assert "nothing to plot" in err and "--json" in err
    assert not (tmp_path / "x.png").exists()
    with pytest.raises(ValueError):
        plot.plot_rows([], tmp_path / "y.png")


def test_missing_file_is_a_usage_error(tmp_path, capsys):
    assert plot.main([str(tmp_path / "absent.jsonl")]) == 2
    assert "cannot read" in capsys.readouterr().err


class _BrokenFinder:
    """Makes one module fail to import as a C extension built for another numpy does."""

    def __init__(self, name):
        self.name = name

    def find_spec(self, name, path=None, target=None):
        if name == self.name:
            raise ImportError("numpy.core.multiarray failed to import")
        return None


def test_matplotlib_failing_to_import_says_why(results, tmp_path, capsys, monkeypatch):
    # Installed but broken: the real exception, not "needs matplotlib".
    monkeypatch.delitem(sys.modules, "matplotlib.figure", raising=False)
    monkeypatch.setattr(sys, "meta_path", [_BrokenFinder("matplotlib.figure")] + sys.meta_path)
    assert plot.main([str(results), "-o", str(tmp_path / "b.png")]) == 1
    err = capsys.readouterr().err
    assert "needs matplotlib, which is installed but failed to import" in err
    assert "numpy.core.multiarray failed to import" in err and "numpy %s" % np.__version__ in err
    assert "python3-matplotlib" not in err
    # Not installed: the hint on how to install it.
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    assert plot.main([str(results), "-o", str(tmp_path / "m.png")]) == 1
    assert "needs matplotlib (Debian: python3-matplotlib" in capsys.readouterr().err


def test_help_exits_zero(capsys):
    try:
        rc = plot.main(["--help"])
    except SystemExit as e:
        rc = e.code
    assert rc == 0
    text = capsys.readouterr().out
    assert "--bars" in text and "-o" in text


def test_bad_option_is_a_usage_error(capsys):
    assert plot.main(["--no-such-option", "x.jsonl"]) == 2
    assert "error" in capsys.readouterr().err


def test_load_rows_skips_non_objects(tmp_path, capsys):
    p = write(tmp_path / "r.jsonl", ["", "[1, 2]", "not json", SOFTMAX, "NaN"])
    rows = plot.load_rows(p)
    assert rows == [SOFTMAX]
    assert capsys.readouterr().err.count("skipped") == 3


def test_row_labels():
    assert plot.row_label(gemm(1024, 1024, 1024, 1, 1, 1)) == "gemm 1024x1024x1024 f32"
    assert plot.row_label(dict(CONV, n=8)) == "conv r50_3x3_28 N=8 f32 auto/im2col"
    assert plot.row_label(SOFTMAX) == "softmax 64x100 f32"

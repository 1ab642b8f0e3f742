"""Roofline and peer-ratio charts from ``clforge bench <op> --json`` output.

``python -m clforge plot results.jsonl [more.jsonl ...] -o roofline.png``

The input is JSON lines as every ``clforge bench <op> --json`` prints them (one
object per line; ``-`` reads standard input). Lines that are not JSON objects
are skipped with a warning on standard error. The output is one PNG (or any
format matplotlib knows, by the file's suffix) holding, side by side:

1. a **roofline**: x = arithmetic intensity (FLOP/byte, the row's ``gflops``
   over its ``gbps``), y = GFLOP/s, both log scale. The roof is the device's
   measured peak: the horizontal line at ``peak_gflops``, the bandwidth line
   y = ``peak_gbps`` * x and the ridge point where they meet. The peak comes
   from a ``{"op": "peak", ...}`` row when there is one (the last one per
   device), otherwise from the rows' own ``peak_gflops``/``peak_gbps`` fields
   (the highest seen: the peak is an upper bound, and runs measure it anew).
   Without any, the roof is left out and the title says so. Each row with both
   numbers is a point, labelled by op and shape; beyond ``--max-labels`` points
   they are numbered instead and a key below the chart names each number.
   Filled markers are clforge's own rows, hollow ones a peer's or a yardstick's
   (e.g. attention's unfused composites).
2. the **ratios against each peer**: every ``vs_<peer>`` key (found
   generically: ``vs_clblast``, ``vs_openblas``, ``vs_onednn``, ...) is clforge
   over that peer. One group of horizontal bars per case, one bar per peer, on
   a log axis centred on the line at 1.0 (parity), so 2x and 0.5x lie equally
   far from it. Attention's peer rows carry ``vs_clforge`` (clforge_attention
   over that row); their bars join the case's group under the row's provider's
   name. ``vs_base`` (f16 over f32, causal over non-causal) is named after its
   ``base``; ``conv_network``'s ``auto_vs_onednn`` becomes ``onednn (auto)``.
3. only when some rows have GB/s but no GFLOP/s (softmax, attention's
   "read K+V" yardstick): a bar chart of their GB/s with the peak bandwidth as
   a line, since they have no place on a FLOP/s roofline.

With ``--bars OUT2`` panels 2 and 3 go to OUT2 and OUT holds the roofline only.

Programmatic use: ``load_rows(paths)``, ``plot_rows(rows, output)`` and
``plot_file(paths, output)``; the last two return a summary dict. matplotlib is
imported only when a chart is drawn, so importing this module stays cheap.
"""

import argparse
import json
import math
import re
import sys
from pathlib import Path

__all__ = ["load_rows", "plot_rows", "plot_file", "main", "row_label", "NeedsMatplotlib"]

MATPLOTLIB_HINT = "python -m clforge plot needs matplotlib (Debian: python3-matplotlib; pip install matplotlib)"

ROOF_XLABEL = "arithmetic intensity (FLOP/byte)"
ROOF_YLABEL = "GFLOP/s"
RATIO_XLABEL = "clforge / peer (higher is better)"
BW_XLABEL = "GB/s"

DEFAULT_MAX_LABELS = 30
_WARN_PER_FILE = 5  # bad lines reported one by one per file; the rest counted

# "vs_clblast" -> (None, "clblast"); "auto_vs_onednn" -> ("auto", "onednn").
_RATIO_KEY = re.compile(r"^(?:(?P<series>.+?)_)?vs_(?P<peer>.+)$")


class NeedsMatplotlib(RuntimeError):
    """matplotlib is not installed, or fails to import; the message says which, and why."""


# ------------------------------------------------------------------ loading


def _as_paths(paths):
    # One path or many: a lone str/Path is the common programmatic call.
    if isinstance(paths, (str, Path)):
        return [paths]
    return list(paths)


def load_rows(paths, warn=None):
    """Read JSON-lines files into a list of dicts, in file order.

    ``paths``: one path or a list of them; ``"-"`` is standard input. Blank
    lines are ignored; a line that is not a JSON object is skipped with a
    warning (``warn``, default: print to stderr). A missing file raises
    OSError, as opening it does.
    """
    if warn is None:
        warn = _stderr
    rows = []
    for path in _as_paths(paths):
        name = str(path)
        if name == "-":
            rows.extend(_parse_lines(sys.stdin, "<stdin>", warn))
            continue
        # errors="replace": a stray byte costs one line, not the file.
        with open(path, encoding="utf-8", errors="replace") as f:
            rows.extend(_parse_lines(f, name, warn))
    return rows


def _parse_lines(lines, name, warn):
    out, bad = [], 0
    for lineno, line in enumerate(lines, 1):
        text = line.strip()
        if not text:
            continue
        why = None
        try:
            obj = json.loads(text)
        except ValueError:
            why = "not JSON"
        else:
            if not isinstance(obj, dict):
                why = "JSON but not an object"
        if why is None:
            out.append(obj)
            continue
        bad += 1
        if bad <= _WARN_PER_FILE:
            shown = text if len(text) <= 60 else text[:57] + "..."
            warn("%s:%d: %s, skipped: %s" % (name, lineno, why, shown))
    if bad > _WARN_PER_FILE:
        warn("%s: %d more lines that are not JSON objects skipped" % (name, bad - _WARN_PER_FILE))
    return out


def _stderr(msg):
    print("clforge plot: warning: " + msg, file=sys.stderr)


# ------------------------------------------------------------------ rows -> what to draw


def _num(v):
    """A finite number or None (JSON null, strings, bools, NaN are no number)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    v = float(v)
    return v if math.isfinite(v) else None


def _pos(v):
    v = _num(v)
    return v if v is not None and v > 0 else None


def _fmt_dims(*vals):
    return "x".join(str(_intish(v)) for v in vals)


def _intish(v):
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return v


def _is_peer_provider(row):
    # clforge's own rows say "clforge", "clforge-tiled", "clforge:fused", ...
    p = row.get("provider")
    return isinstance(p, str) and p != "" and not p.startswith("clforge")


def row_label(row, provider=True):
    """A short human name for a bench row, built from the fields it has.

    e.g. "gemm 1024x1024x1024 f32", "conv r50_3x3_56 N=8 f32 auto/im2col",
    "attention prefill B1 H8/8 S512x512 D64 causal f32 unfused-clforge".
    ``provider=False`` leaves out who ran it (for grouping peers' rows).
    """
    op = row.get("op")
    op = op if isinstance(op, str) and op else "row"
    g = row.get
    parts = [op]
    if op == "gemm" and all(k in row for k in ("m", "n", "k")):
        parts.append(_fmt_dims(g("m"), g("n"), g("k")))
        if _num(g("batch")) not in (None, 1.0):
            parts.append("b=%s" % _intish(g("batch")))
        if g("trans") not in (None, "NN"):
            parts.append(str(g("trans")))
        parts.append(str(g("dtype", "")))
    elif op == "conv":
        if g("layer"):
            parts.append(str(g("layer")))
        elif all(k in row for k in ("c", "k", "h", "r")):
            stride = _intish(g("stride", 1))
            parts.append("%s->%s %sx%s%s @%sx%s" % (
                _intish(g("c")), _intish(g("k")), _intish(g("r")), _intish(g("s", g("r"))),
                "/%s" % stride if stride not in (1, None) else "", _intish(g("h")), _intish(g("w", g("h")))))
            if _num(g("groups")) not in (None, 1.0):
                parts.append("g=%s" % _intish(g("groups")))
        if "n" in row:
            parts.append("N=%s" % _intish(g("n")))
        parts.append(str(g("dtype", "")))
        if g("layout") not in (None, "nchw"):
            parts.append(str(g("layout")))
        algo, chosen = g("algo"), g("algo_chosen")
        if algo == "auto" and chosen:
            parts.append("auto/%s" % chosen)
        elif algo:
            parts.append(str(algo))
    elif op == "attention":
        if g("kind"):
            parts.append(str(g("kind")))
        if "b" in row:
            parts.append("B%s" % _intish(g("b")))
        if "hq" in row:
            parts.append("H%s/%s" % (_intish(g("hq")), _intish(g("hkv", g("hq")))))
        if "sq" in row:
            parts.append("S%sx%s" % (_intish(g("sq")), _intish(g("sk", g("sq")))))
        if "d" in row:
            parts.append("D%s" % _intish(g("d")))
        if g("causal") is True:
            parts.append("causal")
        q, kv = g("q_dtype", g("dtype")), g("kv_dtype")
        if q:
            parts.append(str(q))
        if kv and kv != q:
            parts.append("kv %s" % kv)
    elif op == "softmax":
        if g("kind") not in (None, "softmax"):
            parts[0] = str(g("kind"))
        if "rows" in row and "n" in row:
            parts.append(_fmt_dims(g("rows"), g("n")))
        parts.append(str(g("dtype", "")))
        if g("inplace") is True:
            parts.append("in place")
    elif op == "conv_network":
        parts = [str(g("network") or g("network_key") or "network")]
        if "n" in row:
            parts.append("N=%s" % _intish(g("n")))
        parts.append(str(g("dtype", "")))
        if g("layout"):
            parts.append(str(g("layout")))
    else:
        # An op this module does not know: its short scalar fields, in order.
        skip = {"op", "device", "provider", "status", "timer", "params", "runs", "warmup"}
        for k, v in row.items():
            if len(parts) >= 6:
                break
            if k in skip or k.endswith(("_ms", "_gflops", "_gbps", "_note", "_timer")) or k.startswith(("vs_", "frac_")):
                continue
            if k in ("gflops", "gbps", "bytes", "flops"):
                continue
            if isinstance(v, bool) or v is None or isinstance(v, (dict, list)):
                continue
            s = str(_intish(v))
            if len(s) <= 16:
                parts.append("%s=%s" % (k, s))
    # Who ran it, unless plain "clforge": a peer, a yardstick or clforge's
    # path or algorithm ("clforge-tiled", "clforge:fused").
    prov = g("provider")
    if provider and isinstance(prov, str) and prov and prov != "clforge":
        parts.append(prov)
    return " ".join(p for p in parts if p)


def _peaks(rows):
    """{device: {"gflops": x|None, "gbps": y|None, "f16_gflops": z|None, "source": ...}}"""
    from_peak, from_rows = {}, {}
    for r in rows:
        dev = str(r.get("device") or "")
        if r.get("op") == "peak":
            # The last peak row per device wins: the freshest measurement.
            from_peak[dev] = {
                "gflops": _pos(r.get("peak_gflops")) or _pos(r.get("f32_gflops")),
                "gbps": _pos(r.get("peak_gbps")) or _pos(r.get("read_gbps")) or _pos(r.get("copy_gbps")),
                "f16_gflops": _pos(r.get("f16_gflops")),
                "source": "peak row",
            }
            continue
        p = from_rows.setdefault(dev, {"gflops": None, "gbps": None, "f16_gflops": None, "source": "rows"})
        for key, field in (("gflops", "peak_gflops"), ("gbps", "peak_gbps")):
            v = _pos(r.get(field))
            if v is not None and (p[key] is None or v > p[key]):
                p[key] = v
    out = {}
    for dev in list(from_rows) + [d for d in from_peak if d not in from_rows]:
        p = dict(from_rows.get(dev, {"gflops": None, "gbps": None, "f16_gflops": None, "source": "rows"}))
        q = from_peak.get(dev)
        if q:
            for key in ("gflops", "gbps", "f16_gflops"):
                if q[key] is not None:
                    p[key] = q[key]
            p["source"] = "peak row"
        if p["gflops"] is not None or p["gbps"] is not None:
            out[dev] = p
    return out


def _ratios(row):
    """[(peer display name, value, is_group_peer)] for the row's vs_ keys."""
    out = []
    for key, val in row.items():
        m = _RATIO_KEY.match(key)
        if not m:
            continue
        v = _pos(val)
        if v is None:
            continue
        series, peer = m.group("series"), m.group("peer")
        regroup = False
        if series is None and peer == "clforge" and _is_peer_provider(row):
            # Attention's peer rows: vs_clforge = clforge over this row, so the
            # peer is this row's provider and the bar joins the case's group.
            peer, regroup = str(row["provider"]), True
        elif series is None and peer == "base":
            peer = "%s (same shape)" % (row.get("base") or "base")
        elif series is not None:
            peer = "%s (%s)" % (peer, series)
        out.append((peer, v, regroup))
    return out


def _collect(rows):
    """Sort the rows into roofline points, ratio groups and bandwidth-only rows."""
    points, bw, groups, peers = [], [], [], []
    skipped = 0
    last_group = {}  # group label -> index of its latest group (for regrouping)
    case_row = {}  # provider-less label -> clforge's own row of that case
    for r in rows:
        if r.get("op") == "peak":
            continue
        used = False
        gf, gb = _pos(r.get("gflops")), _pos(r.get("gbps"))
        dev = str(r.get("device") or "")
        if not _is_peer_provider(r):
            case_row[row_label(r, provider=False)] = r
        if gf is not None and gb is not None:
            points.append({"label": row_label(r), "x": gf / gb, "y": gf, "op": str(r.get("op") or "row"),
                           "peer": _is_peer_provider(r), "device": dev, "row": r})
            used = True
        elif gb is not None:
            bw.append({"label": row_label(r), "gbps": gb, "device": dev, "row": r})
            used = True
        own = None  # this row's own group: its vs_<peer> bars side by side
        for peer, v, regroup in _ratios(r):
            if peer not in peers:
                peers.append(peer)
            key = row_label(r, provider=False)
            if regroup:
                # Join the case's latest group unless that would overwrite a
                # bar (the same case measured twice stays two groups).
                gi = last_group.get(key)
                if gi is None or peer in groups[gi]["bars"]:
                    groups.append({"key": key, "bars": {}, "row": case_row.get(key, r)})
                    gi = last_group[key] = len(groups) - 1
            else:
                if own is None:
                    groups.append({"key": key, "bars": {}, "row": r})
                    own = last_group[key] = len(groups) - 1
                gi = own
            groups[gi]["bars"][peer] = v
            used = True
        if not used:
            skipped += 1
    return points, bw, groups, peers, skipped


# ------------------------------------------------------------------ drawing


def _mpl():
    # Self-contained (no package imports: this module also runs alone).
    # "Not installed" only when matplotlib itself is missing; any other
    # failure (built for another numpy, a missing dependency) says what it was.
    try:
        import matplotlib
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except Exception as e:  # noqa: BLE001 - reported with its reason
        if isinstance(e, ModuleNotFoundError) and e.name == "matplotlib":
            raise NeedsMatplotlib(MATPLOTLIB_HINT) from e
        why = "%s: %s" % (type(e).__name__, e)
        numpy = sys.modules.get("numpy")
        if numpy is not None:
            why += " (numpy %s from %s is loaded)" % (getattr(numpy, "__version__", "?"), numpy.__file__)
        raise NeedsMatplotlib("clforge plot needs matplotlib, which is installed but failed to import: " + why) from e
    # A Figure on an Agg canvas directly, never pyplot: no display needed, and
    # no global backend is switched under a caller who uses pyplot himself.
    return matplotlib, Figure, FigureCanvasAgg


_OP_COLORS = {"gemm": "tab:blue", "conv": "tab:orange", "attention": "tab:green", "softmax": "tab:purple",
              "conv_network": "tab:brown"}
_MORE_COLORS = ["tab:red", "tab:pink", "tab:olive", "tab:cyan", "tab:gray"]
_PEER_COLORS = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown", "tab:pink",
                "tab:olive", "tab:cyan", "tab:gray"]


def _op_color(op, extra):
    if op in _OP_COLORS:
        return _OP_COLORS[op]
    if op not in extra:
        extra[op] = _MORE_COLORS[len(extra) % len(_MORE_COLORS)]
    return extra[op]


def _short(s, n):
    return s if len(s) <= n else s[: n - 1] + "\u2026"


def _devices_text(devs):
    devs = [d for d in devs if d]
    if not devs:
        return "unknown device"
    text = "; ".join(devs[:3]) + (" (+%d more)" % (len(devs) - 3) if len(devs) > 3 else "")
    return _short(text, 110)


def _draw_roofline(ax, points, peaks, numbered, devices):
    extra = {}
    xs = [p["x"] for p in points]
    ys = [p["y"] for p in points]
    ridges = [p["gflops"] / p["gbps"] for p in peaks.values() if p["gflops"] and p["gbps"]]
    lo = min(xs + ridges) / 4 if xs or ridges else 0.1
    hi = max(xs + ridges) * 4 if xs or ridges else 100.0
    ax.set_xscale("log")
    ax.set_yscale("log")
    import numpy as np

    grid = np.geomspace(lo, hi, 256)
    many_dev = len(peaks) > 1
    for i, (dev, p) in enumerate(peaks.items()):
        col = "black" if not many_dev else _PEER_COLORS[(i + 3) % len(_PEER_COLORS)]
        tag = " (%s)" % _short(dev, 30) if many_dev else ""
        pf, pb = p["gflops"], p["gbps"]
        if pf and pb:
            ridge = pf / pb
            # The roof itself solid; each bound's continuation dotted.
            ax.plot(grid, np.minimum(pf, pb * grid), color=col, lw=1.6, label="roof%s" % tag)
            ax.plot(grid[grid > ridge], pb * grid[grid > ridge], color=col, lw=0.8, ls=":")
            ax.plot(grid[grid < ridge], np.full((grid < ridge).sum(), pf), color=col, lw=0.8, ls=":")
            ax.plot([ridge], [pf], marker="D", color=col, ms=6, ls="none")
            ax.annotate("ridge %.3g FLOP/B" % ridge, (ridge, pf), xytext=(6, -12), textcoords="offset points",
                        fontsize=7, color=col)
        if pf:
            ax.annotate("peak %.4g GFLOP/s" % pf, (hi, pf), xytext=(-4, 3), textcoords="offset points",
                        ha="right", fontsize=7, color=col)
            if not pb:
                ax.plot(grid, np.full(len(grid), pf), color=col, lw=1.4, label="peak%s" % tag)
        if pb:
            x_lab = min(hi, (pf / pb) / 8 if pf else lo * 4)
            x_lab = max(x_lab, lo * 1.5)
            # Left of and above its point: clear of the rising line.
            ax.annotate("%.4g GB/s" % pb, (x_lab, pb * x_lab), xytext=(-3, 3), textcoords="offset points",
                        ha="right", va="bottom", fontsize=7, color=col)
            if not pf:
                ax.plot(grid, pb * grid, color=col, lw=1.4, label="bandwidth%s" % tag)
        if p.get("f16_gflops"):
            ax.axhline(p["f16_gflops"], color=col, lw=0.9, ls="--", label="f16 peak%s" % tag)
    ax.set_xlim(lo, hi)
    ytop = max(ys + [p["gflops"] for p in peaks.values() if p["gflops"]] + [1e-9])
    ybot = min(ys) if ys else ytop / 1e3
    ax.set_ylim(ybot / 4, ytop * 2.5)
    # Colour by op; by dtype when all rows are one op (a gemm sweep, say).
    ops = {p["op"] for p in points}
    def cat(p):
        if len(ops) > 1:
            return p["op"]
        d = p["row"].get("dtype", p["row"].get("q_dtype"))
        return "%s %s" % (p["op"], d) if d else p["op"]
    cats = []
    for p in points:
        if cat(p) not in cats:
            cats.append(cat(p))
    by_dtype = len(ops) == 1 and len(cats) > 1
    for ci, c in enumerate(cats):
        for peer in (False, True):
            sel = [p for p in points if cat(p) == c and p["peer"] == peer]
            if not sel:
                continue
            col = _PEER_COLORS[ci % len(_PEER_COLORS)] if by_dtype else _op_color(sel[0]["op"], extra)
            ax.plot([p["x"] for p in sel], [p["y"] for p in sel], ls="none", marker="s" if peer else "o",
                    ms=5 if peer else 6, mfc="none" if peer else col, mec=col, mew=1.2, alpha=0.85,
                    label=c + (" (peer/yardstick)" if peer else ""))
    if numbered:
        hidden = _place_labels(ax, [(p["x"], p["y"], str(p["num"])) for p in points], 6, drop_crowded=True)
    else:
        hidden = _place_labels(ax, [(p["x"], p["y"], _short(p["label"], 64)) for p in points], 6.5)
    ax.grid(True, which="major", lw=0.4, alpha=0.5)
    ax.grid(True, which="minor", lw=0.2, alpha=0.3)
    ax.set_xlabel(ROOF_XLABEL)
    ax.set_ylabel(ROOF_YLABEL)
    title = "roofline: " + _devices_text(devices)
    if not peaks:
        title += "\n(no peak known: no roof; run 'clforge bench peak --json' with these rows)"
    elif not any(p["gflops"] and p["gbps"] for p in peaks.values()):
        title += "\n(only part of the peak known)"
    if hidden:
        title += "\n(%d crowded numbers not shown; the key and the bars name every row)" % hidden
    ax.set_title(title, fontsize=9)
    # Above the bandwidth line nothing can be: the legend's place.
    ax.legend(fontsize=7, loc="upper left", framealpha=0.85)


# Offsets (points) tried for a label, nearest first: right, left, above, below.
_CANDIDATES = [(5, 0, "left"), (-5, 0, "right"), (4, 7, "left"), (4, -7, "left"), (-4, 7, "right"),
               (-4, -7, "right"), (0, 11, "center"), (0, -11, "center"), (8, 14, "left"), (8, -14, "left"),
               (-8, 14, "right"), (-8, -14, "right")]


def _place_labels(ax, items, fs, drop_crowded=False):
    """Annotate (x, y, text) items, each where it overlaps the others least.

    Greedy, on estimated text boxes in pixels: good enough to keep labels apart
    without a layout library. ``drop_crowded``: leave out a label that would
    still be mostly hidden (a dense cluster of numbers helps nobody).
    Returns how many were left out.
    """
    import numpy as np

    if not items:
        return 0
    px = ax.figure.dpi / 72.0
    bb = ax.get_window_extent()
    marks = ax.transData.transform(np.array([(x, y) for x, y, _ in items], dtype=float))
    r = 4 * px
    boxes = np.empty((len(items) * 2 + 1, 4))
    n = len(marks)
    boxes[:n] = np.column_stack([marks[:, 0] - r, marks[:, 1] - r, marks[:, 0] + r, marks[:, 1] + r])
    # Roughly where the legend goes (upper left).
    boxes[n] = (bb.x0, bb.y1 - 0.25 * bb.height, bb.x0 + 0.3 * bb.width, bb.y1)
    used = n + 1
    cand = np.array([(dx, dy, {"left": 0.0, "right": -1.0, "center": -0.5}[ha]) for dx, dy, ha in _CANDIDATES])
    dropped = 0
    for (x, y, text), (mx, my) in zip(items, marks):
        w, h = len(text) * fs * 0.55 * px, fs * 1.25 * px
        x0 = mx + cand[:, 0] * px + cand[:, 2] * w
        y0 = my + cand[:, 1] * px - h / 2
        c = np.column_stack([x0, y0, x0 + w, y0 + h])  # one box per candidate
        t = boxes[:used]
        ow = np.clip(np.minimum(c[:, None, 2], t[None, :, 2]) - np.maximum(c[:, None, 0], t[None, :, 0]), 0, None)
        oh = np.clip(np.minimum(c[:, None, 3], t[None, :, 3]) - np.maximum(c[:, None, 1], t[None, :, 1]), 0, None)
        cost = (ow * oh).sum(axis=1)
        iw = np.clip(np.minimum(c[:, 2], bb.x1) - np.maximum(c[:, 0], bb.x0), 0, None)
        ih = np.clip(np.minimum(c[:, 3], bb.y1) - np.maximum(c[:, 1], bb.y0), 0, None)
        # Outside the axes costs as much as the hidden area, and a bit more.
        cost += 1.5 * np.maximum(w * h - iw * ih, 0.0)
        # Round off float dust, then the first of equals: the nearest offset.
        k = int(np.argmin(np.round(cost, 3) + np.arange(len(cost)) * 1e-6))
        if drop_crowded and cost[k] > 0.6 * w * h:
            dropped += 1
            continue
        boxes[used] = c[k]
        used += 1
        dx, dy = cand[k, 0], cand[k, 1]
        ha = {0.0: "left", -1.0: "right", -0.5: "center"}[cand[k, 2]]
        ax.annotate(text, (x, y), xytext=(dx, dy), textcoords="offset points", fontsize=fs, ha=ha, va="center",
                    color="0.15", annotation_clip=False)
    return dropped


def _draw_ratios(ax, groups, peers, label_of):
    nslots = max(len(g["bars"]) for g in groups)
    height = 0.8 / nslots
    show_values = sum(len(g["bars"]) for g in groups) <= 80
    by_peer = {peer: ([], []) for peer in peers}
    for i, g in enumerate(groups):
        # Only the peers the case has get a slot, centred on its row.
        present = [peer for peer in peers if peer in g["bars"]]
        start = i - height * len(present) / 2
        for j, peer in enumerate(present):
            by_peer[peer][0].append(start + height * (j + 0.5))
            by_peer[peer][1].append(g["bars"][peer])
    vals = []
    for j, peer in enumerate(peers):
        ys, ws = by_peer[peer]
        if not ys:
            continue
        vals.extend(ws)
        col = _PEER_COLORS[j % len(_PEER_COLORS)]
        # Bars grow from parity (1.0): to the left of it the peer is faster.
        ax.barh(ys, [w - 1.0 for w in ws], left=1.0, height=height * 0.9, color=col, label=peer)
        if show_values:
            for y, w in zip(ys, ws):
                ax.annotate("%.2fx" % w, (w, y), xytext=(3 if w >= 1 else -3, 0), textcoords="offset points",
                            va="center", ha="left" if w >= 1 else "right", fontsize=6)
    ax.set_xscale("log")
    span = max(abs(math.log10(v)) for v in vals) if vals else 1.0
    span = max(span * 1.3 + 0.15, 0.3)  # room for the values; centred on 1.0
    ax.set_xlim(10 ** -span, 10 ** span)
    ax.axvline(1.0, color="black", lw=1.0)
    ax.annotate("parity", (1.0, 1.0), xycoords=("data", "axes fraction"), xytext=(0, 3),
                textcoords="offset points", ha="center", fontsize=7)
    ax.set_yticks(range(len(groups)))
    fs = 7 if len(groups) <= 40 else 6 if len(groups) <= 120 else 5
    ax.set_yticklabels([label_of(g) for g in groups], fontsize=fs)
    ax.set_ylim(len(groups) - 0.5, -0.5)  # first row on top, as in the file
    ax.grid(True, axis="x", which="both", lw=0.3, alpha=0.5)
    ax.set_xlabel(RATIO_XLABEL)
    ax.set_ylabel("case")
    ax.set_title("clforge against each peer", fontsize=9, pad=12)
    # Outside, right of the axes: bars go both ways from parity, so no
    # corner inside is sure to be free.
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0, title="peer",
              title_fontsize=7)


def _draw_bandwidth(ax, bw, peaks, label_of):
    col_ops = {}
    ys = list(range(len(bw)))
    ax.barh(ys, [b["gbps"] for b in bw], height=0.7,
            color=[_op_color(str(b["row"].get("op") or "row"), col_ops) for b in bw])
    for y, b in zip(ys, bw):
        pk = peaks.get(b["device"], {}).get("gbps")
        txt = "%.3g" % b["gbps"] + (" (%.0f%%)" % (100 * b["gbps"] / pk) if pk else "")
        ax.annotate(txt, (b["gbps"], y), xytext=(3, 0), textcoords="offset points", va="center", fontsize=6)
    pbs = sorted({p["gbps"] for p in peaks.values() if p["gbps"]})
    for pb in pbs:
        ax.axvline(pb, color="black", lw=1.0, ls="--")
    if pbs:
        ax.annotate("peak bandwidth %.4g GB/s" % pbs[-1], (pbs[-1], 1.0), xycoords=("data", "axes fraction"),
                    xytext=(-3, -10), textcoords="offset points", ha="right", fontsize=7)
    top = max([b["gbps"] for b in bw] + pbs)
    ax.set_xlim(0, top * 1.25)
    ax.set_yticks(ys)
    fs = 7 if len(bw) <= 40 else 6 if len(bw) <= 120 else 5
    ax.set_yticklabels([label_of(b) for b in bw], fontsize=fs)
    ax.set_ylim(len(bw) - 0.5, -0.5)
    ax.grid(True, axis="x", lw=0.3, alpha=0.5)
    ax.set_xlabel(BW_XLABEL)
    ax.set_ylabel("case")
    ax.set_title("rows with GB/s only (not on the roofline)" + ("" if pbs else ": no peak bandwidth known"),
                 fontsize=9)


def _draw_key(ax, points, ncols):
    # The numbered points' names, column by column, read top to bottom.
    ax.set_axis_off()
    lines = ["%3d  %s" % (p["num"], _short(p["label"], 58)) for p in points]
    per = max(1, math.ceil(len(lines) / ncols))
    for c in range(ncols):
        chunk = lines[c * per:(c + 1) * per]
        if chunk:
            ax.text(c / ncols, 1.0, "\n".join(chunk), va="top", ha="left", fontsize=6, family="monospace",
                    transform=ax.transAxes)


# Layout in inches: each panel is placed by hand, so that a tall bar chart (a
# few hundred cases) does not squash the roofline next to it.
_PT = 1 / 72.0


def _label_width(labels, fs):
    longest = max((len(s) for s in labels), default=10)
    return min(5.2, 0.3 + longest * fs * 0.56 * _PT)


def _render(mpl_parts, output, dpi, panels, suptitle):
    """panels: columns of [(height_in, width_in, left_pad_in, draw(ax)[, right_pad_in])], top down."""
    _, Figure, FigureCanvasAgg = mpl_parts
    top, bottom, gap_v, gap_h, left0 = 0.75, 0.15, 0.85, 0.35, 0.15
    col_w = [max(p[2] + p[1] + (p[4] if len(p) > 4 else 0) for p in col) for col in panels]
    col_h = [sum(p[0] for p in col) + gap_v * len(col) for col in panels]
    fw = left0 + sum(col_w) + gap_h * len(panels) + 0.3
    fh = top + max(col_h) + bottom
    # Agg's limit is 2**16 pixels a side; keep far below it for huge inputs.
    dpi = min(dpi, 30000.0 / max(fw, fh))
    fig = Figure(figsize=(fw, fh), dpi=dpi)
    FigureCanvasAgg(fig)
    axes = []
    x = left0
    for col, cw in zip(panels, col_w):
        y = fh - top
        for h, w, pad, draw, *_ in col:
            rect = [(x + pad) / fw, (y - h) / fh, w / fw, h / fh]
            ax = fig.add_axes(rect)
            draw(ax)
            axes.append(ax)
            y -= h + gap_v
        x += cw + gap_h
    if suptitle:
        fig.suptitle(suptitle, fontsize=11, y=1 - 0.2 / fh)
    fmt = Path(str(output)).suffix.lstrip(".").lower() or "png"
    fig.savefig(str(output), format=fmt, dpi=dpi)
    return [{"xlabel": a.get_xlabel(), "ylabel": a.get_ylabel(), "title": a.get_title()}
            for a in axes if a.axison]


def plot_rows(rows, output, title=None, bars_output=None, max_labels=DEFAULT_MAX_LABELS, dpi=110):
    """Draw the charts of ``rows`` (dicts as ``load_rows`` gives) into ``output``.

    ``bars_output``: put the peer ratios (and GB/s-only rows) in this second
    file instead of beside the roofline. ``title``: the figure's heading
    (default: the ops and how many rows; each chart's
    title names the device). Beyond ``max_labels`` points the
    roofline's points are numbered and a key names them.

    Returns {"points", "bars", "groups", "bandwidth_only", "skipped", "peers",
    "devices", "peaks", "output", "outputs", "axes"}; "axes" lists each chart's
    {"xlabel", "ylabel", "title"}. Raises ValueError when no row has anything
    to draw, NeedsMatplotlib when matplotlib is missing.
    """
    rows = [r for r in rows if isinstance(r, dict)]
    points, bw, groups, peers, skipped = _collect(rows)
    if not points and not groups and not bw:
        what = "only peak rows" if rows and all(r.get("op") == "peak" for r in rows) else \
            "no row has gflops, gbps or a vs_<peer> ratio" if rows else "no rows"
        raise ValueError("nothing to plot: %s (is it 'clforge bench <op> --json' output?)" % what)
    mpl_parts = _mpl()
    peaks = _peaks(rows)
    devices = []
    for r in rows:
        d = str(r.get("device") or "")
        if d and d not in devices:
            devices.append(d)

    numbered = len(points) > max_labels
    num_of = {}
    for i, p in enumerate(points, 1):
        p["num"] = i
        num_of[id(p["row"])] = i

    def group_label(g):
        n = num_of.get(id(g["row"]))
        lab = _short(row_label(g["row"]), 70)
        return "#%d %s" % (n, lab) if numbered and n else lab

    def bw_label(b):
        return _short(b["label"], 70)

    # Panel sizes: the roofline fixed, bars and the key as tall as they need.
    roof = []
    if points:
        roof.append((5.6, 7.2, 0.55, lambda ax: _draw_roofline(ax, points, peaks, numbered, devices)))
        if numbered:
            ncols = 2
            key_h = max(1.0, math.ceil(len(points) / ncols) * 8.0 * _PT)
            roof.append((key_h, 7.2, 0.55, lambda ax: _draw_key(ax, points, ncols)))
    side = []
    if groups:
        fs = 7 if len(groups) <= 40 else 6 if len(groups) <= 120 else 5
        nslots = max(len(g["bars"]) for g in groups)
        per = max(0.26, 0.13 * nslots) if len(groups) <= 40 else max(fs * 1.5 * _PT, 0.08 * nslots)
        lw = _label_width([group_label(g) for g in groups], fs)
        legend_w = 0.5 + max(len(p) for p in peers) * 7 * 0.55 * _PT
        side.append((max(2.4, per * len(groups)), 5.0, lw,
                     lambda ax: _draw_ratios(ax, groups, peers, group_label), legend_w))
    if bw:
        fs = 7 if len(bw) <= 40 else 6 if len(bw) <= 120 else 5
        lw = _label_width([bw_label(b) for b in bw], fs)
        side.append((max(1.4, max(0.22, fs * 1.5 * _PT) * len(bw)), 5.0, lw,
                     lambda ax: _draw_bandwidth(ax, bw, peaks, bw_label)))

    ops = []
    for r in rows:
        op = str(r.get("op") or "row")
        if op != "peak" and op not in ops:
            ops.append(op)
    heading = title if title is not None else "clforge bench: %s (%d rows)" % (", ".join(ops), len(rows))
    outputs = [str(output)]
    if bars_output is None:
        axes = _render(mpl_parts, output, dpi, [c for c in (roof, side) if c], heading)
    else:
        outputs.append(str(bars_output))
        axes = []
        for out, col, why in ((output, roof, "no rows with both GFLOP/s and GB/s"),
                              (bars_output, side, "no vs_<peer> ratios and no GB/s-only rows")):
            if not col:  # write the file anyway, saying why it is empty
                col = [(2.0, 6.0, 0.2, _empty_panel(why))]
            axes += _render(mpl_parts, out, dpi, [col], heading)
    return {
        "points": len(points),
        "bars": sum(len(g["bars"]) for g in groups),
        "groups": len(groups),
        "bandwidth_only": len(bw),
        "skipped": skipped,
        "peers": list(peers),
        "devices": devices,
        "peaks": {d: {"gflops": p["gflops"], "gbps": p["gbps"], "source": p["source"]} for d, p in peaks.items()},
        "numbered": numbered,
        "output": str(output),
        "outputs": outputs,
        "axes": axes,
    }


def _empty_panel(msg):
    def draw(ax):
        ax.set_axis_off()
        ax.text(0.5, 0.5, msg, ha="center", va="center", fontsize=10, transform=ax.transAxes)
    return draw


def plot_file(paths, output, title=None, bars_output=None, max_labels=DEFAULT_MAX_LABELS, dpi=110):
    """``load_rows(paths)`` then ``plot_rows``: the summary dict it returns."""
    return plot_rows(load_rows(paths), output, title=title, bars_output=bars_output, max_labels=max_labels,
                     dpi=dpi)


# ------------------------------------------------------------------ command line


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # return 2 from main instead of exiting
        raise _UsageError(message)


def _parser():
    p = _Parser(
        prog="python -m clforge plot",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Draw a roofline and clforge-vs-peer ratio bars from 'clforge bench <op> --json' output.",
        epilog=(
            "One PNG holds, side by side: the roofline (x: FLOP/byte = gflops/gbps of a row,\n"
            "y: GFLOP/s, log-log; the roof from a {\"op\":\"peak\"} row, else the rows'\n"
            "peak_gflops/peak_gbps), and one group of bars per case with one bar per vs_<peer>\n"
            "ratio (clforge / peer, log axis, parity at 1.0). Rows with GB/s only (softmax)\n"
            "get a third chart of their GB/s against the peak bandwidth. --bars puts the\n"
            "bars in a second file. Lines that are not JSON are skipped with a warning.\n"
            "\n"
            "example:\n"
            "  clforge bench peak --json > r.jsonl; clforge bench gemm --json >> r.jsonl\n"
            "  python -m clforge plot r.jsonl -o roofline.png\n"
            "\n"
            "Exit status: 0 written, 1 matplotlib missing or the file could not be written,\n"
            "2 usage error (a missing input, nothing to plot)."
        ),
    )
    p.add_argument("inputs", nargs="+", metavar="RESULTS.jsonl", help="bench JSON lines; '-' reads stdin")
    p.add_argument("-o", "--output", default="roofline.png", metavar="OUT",
                   help="the image to write (default roofline.png; the suffix picks the format)")
    p.add_argument("--bars", metavar="OUT2", default=None,
                   help="write the peer-ratio bars (and GB/s-only rows) here, the roofline alone to OUT")
    p.add_argument("--title", default=None, help="the figure's heading (default: the ops and how many rows)")
    p.add_argument("--max-labels", type=int, default=DEFAULT_MAX_LABELS, metavar="N",
                   help="name up to N points on the roofline; more are numbered with a key "
                        "(default %d)" % DEFAULT_MAX_LABELS)
    p.add_argument("--dpi", type=float, default=110, help="resolution (default 110)")
    return p


def main(argv=None):
    """The ``python -m clforge plot`` command; returns the exit status."""
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except _UsageError as e:
        parser.print_usage(sys.stderr)
        print("clforge plot: error: %s" % e, file=sys.stderr)
        return 2
    except SystemExit as e:  # --help
        return e.code if isinstance(e.code, int) else 0
    if args.max_labels < 0 or args.dpi <= 0:
        print("clforge plot: error: --max-labels must be >= 0 and --dpi > 0", file=sys.stderr)
        return 2
    try:
        rows = load_rows(args.inputs)
    except OSError as e:
        print("clforge plot: error: cannot read %s: %s" % (e.filename or "input", e.strerror or e),
              file=sys.stderr)
        return 2
    try:
        s = plot_rows(rows, args.output, title=args.title, bars_output=args.bars, max_labels=args.max_labels,
                      dpi=args.dpi)
    except ValueError as e:
        print("clforge plot: error: %s" % e, file=sys.stderr)
        return 2
    except NeedsMatplotlib as e:
        print("clforge plot: error: %s" % e, file=sys.stderr)
        return 1
    except OSError as e:
        print("clforge plot: error: cannot write %s: %s" % (e.filename or args.output, e.strerror or e),
              file=sys.stderr)
        return 1
    peers = ", ".join(s["peers"]) if s["peers"] else "no peers"
    print("wrote %s: %d points, %d bars (%s), %d GB/s-only rows" % (
        " and ".join(s["outputs"]), s["points"], s["bars"], peers, s["bandwidth_only"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""tune: the C tuner, writing the same tuning file as `clforge tune`."""
import ctypes
import signal
import threading
from ctypes import byref

from ._capi import TUNE_PROGRESS, TuneOptions, lib, text
from .context import Context, default_context
from .errors import check

_STRATEGIES = {"auto": 0, "exhaustive": 1, "random": 2, "anneal": 3}
_KINDS = {1: "problem_start", 2: "candidate", 3: "problem_done", 4: "baseline", 5: "not_reached"}
_OUTCOMES = {0: "ok", 1: "slow", 2: "build_failed", 3: "run_failed", 4: "wrong"}


def _event(e):
    d = {"kind": _KINDS.get(e.kind, e.kind), "op": text(e.op), "family": text(e.family),
         "shape_class": text(e.shape_class), "dtypes": text(e.dtypes), "layout": text(e.layout),
         "shape": list(e.shape[:e.ndims]), "problem": e.problem, "problems": e.problems,
         "elapsed_s": e.elapsed_s, "left_s": e.left_s}
    if e.kind == 2:
        d.update(outcome=_OUTCOMES.get(e.outcome, e.outcome), params=text(e.params), message=text(e.message),
                 gflops=e.gflops, best_gflops=e.best_gflops)
    if e.kind in (3, 4, 5):
        d.update(default_gflops=e.default_gflops, tuned_gflops=e.tuned_gflops, clblast_gflops=e.clblast_gflops,
                 provider=text(e.provider), params=text(e.params), rank=e.rank)
    return d


def _csv(v):
    if v is None:
        return None
    return (v if isinstance(v, str) else ",".join(v)).encode()


def tune(budget=120.0, ops=None, *, shapes=None, dtypes=None, layouts=None, strategy="auto", max_evals=0, seed=0,
         space=None, file=None, dry_run=False, peers=True, progress=None, compute_type=None, ctx=None):
    """Tune the context's device (clforge_tune): every candidate checked against
    the CPU reference, winners saved to the tuning file (``file``, else the
    user's, the one `clforge tune` writes). ``progress(event_dict)`` sees each
    event; returns the list of problem results (problem_done / not_reached).
    Ctrl-C stops after the current candidate, keeping what was measured.
    ``compute_type="32f_fast_16f"`` or ``"16f"`` tunes the half variants for
    calls of that compute type (a device with cl_khr_fp16 only)."""
    ctx = ctx or default_context()
    results = []
    errors = []
    stop = ctypes.c_int(0)  # sig_atomic_t is an int on the platforms clforge supports

    def on_event(ev, _user):
        try:
            d = _event(ev.contents)
            if d["kind"] in ("problem_done", "not_reached"):
                results.append(d)
            if progress is not None:
                progress(d)
        except BaseException as e:  # an exception must not cross the C frames
            errors.append(e)
            stop.value = 1

    cb = TUNE_PROGRESS(on_event)
    o = TuneOptions()
    o.ops = _csv(ops)
    o.shapes, o.dtypes, o.layouts = _csv(shapes), _csv(dtypes), _csv(layouts)
    if strategy not in _STRATEGIES:
        raise ValueError("tune: strategy must be one of %s" % ", ".join(_STRATEGIES))
    o.strategy, o.budget_s, o.max_evals, o.seed = _STRATEGIES[strategy], float(budget), int(max_evals), int(seed)
    o.space = space.encode() if space else None
    o.file = str(file).encode() if file else None
    o.dry_run, o.skip_peers = int(bool(dry_run)), int(not peers)
    if compute_type is not None:
        if compute_type not in Context._COMPUTE:
            raise ValueError("tune: compute_type must be one of %s, got %r" % (", ".join(Context._COMPUTE), compute_type))
        o.compute_type = Context._COMPUTE[compute_type]
    o.progress = cb
    o.stop = ctypes.cast(byref(stop), ctypes.c_void_p)
    old = None
    if threading.current_thread() is threading.main_thread():
        def on_sigint(_sig, _frame):
            stop.value = 1
        old = signal.signal(signal.SIGINT, on_sigint)
    try:
        with ctx.lock:
            check(lib.clforge_tune(ctx.handle, byref(o)), ctx.handle)
    finally:
        if old is not None:
            signal.signal(signal.SIGINT, old)
    if errors:
        raise errors[0]
    return results

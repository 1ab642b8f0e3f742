#!/usr/bin/python3
# What one kernel variant costs a driver to compile, cold: clBuildProgram of
# cl/common.cl + the given sources with the given options, then one launch
# (PoCL generates a kernel's work-group code at its first launch with a
# shape). Pointer arguments get one 1 MiB buffer; scalars get the NAME=VALUE
# given, else $DEF (default 0): choose values that keep the launch in range
# (the kernels return early on empty problems). Needs Debian's pyopencl.
# Run with a fresh cache, e.g.:
#   rm -rf /tmp/pc && PYOPENCL_NO_CACHE=1 POCL_CACHE_DIR=/tmp/pc OCL_ICD_VENDORS=/etc/OpenCL/vendors \
#     bench/kernel_compile_time.py gemm_base,gemm_operands,gemm_common,gemm_packed clforge_gemm_packed 1,2,1 \
#     "-DMR=12 -DNR=32 -DVW=16 -DMC=24 -DNC=32 -DKC=384 -DKU=2 -DORD=0 -DA_T=1 -DB_T=1 -DC_T=1 -DBIAS=0 \
#      -DBIAS_T=1 -DACT=0 -DTA=0 -DTB=0 -DIDX64=0" rows=1 cols=1 band=1 ldc=1
# (the options of a variant are in `CLFORGE_LOG=debug` output: "first launch: ... [options]";
# ROOT=DIR reads DIR/cl instead of this checkout's, for a before/after pair).
import pyopencl as cl, numpy as np, sys, time, os
srcs, kname, lws, opts = sys.argv[1].split(","), sys.argv[2], tuple(int(x) for x in sys.argv[3].split(",")), sys.argv[4]
vals = dict(a.split("=") for a in sys.argv[5:])
root = os.environ.get("ROOT", os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
src = "".join(open(f"{root}/cl/{s}.cl").read() + "\n" for s in ["common"] + srcs)
ctx = cl.Context([cl.get_platforms()[0].get_devices()[0]])
q = cl.CommandQueue(ctx)
t0 = time.time()
p = cl.Program(ctx, src).build(options="-cl-std=CL1.2 -w -cl-kernel-arg-info " + opts)
t1 = time.time()
k = getattr(p, kname)
buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 1 << 20)
for i in range(k.get_info(cl.kernel_info.NUM_ARGS)):
    tn = k.get_arg_info(i, cl.kernel_arg_info.TYPE_NAME).rstrip("\0")
    nm = k.get_arg_info(i, cl.kernel_arg_info.NAME).rstrip("\0")
    v = float(vals.get(nm, os.environ.get("DEF", 0)))
    if "*" in tn: k.set_arg(i, buf)
    elif tn.startswith("ulong"): k.set_arg(i, np.uint64(v))
    elif tn.startswith("uint"): k.set_arg(i, np.uint32(v))
    elif tn.startswith("int"): k.set_arg(i, np.int32(v))
    elif tn.startswith("float"): k.set_arg(i, np.float32(v))
    else: raise SystemExit("arg type " + tn)
cl.enqueue_nd_range_kernel(q, k, lws, lws)
q.finish()
t2 = time.time()
print("build %.2f s  first launch %.2f s" % (t1 - t0, t2 - t1))

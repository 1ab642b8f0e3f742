/* The unfused attention composite (clforge_gemm or CLBlast + clforge_softmax)
 * and a plain streaming read: see attention_peers.h. */
#include "attention_peers.h"

#include <clblast_c.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_sources.h"

/* ------------------------------------------------------- unfused composite */

static size_t s_elems(const clforge_bench_attn_problem *p) { return p->b * p->hq * p->sq * p->sk; }

size_t clforge_bench_unfused_bytes(const clforge_bench_attn_problem *p) {
  size_t bytes = s_elems(p) * clforge_dtype_size(p->q_type);
  if (p->causal) bytes += p->sq * p->sk * sizeof(float);
  return bytes;
}

int clforge_bench_unfused_supported(clforge_bench_unfused_gemm gemm, const clforge_bench_attn_problem *p, unsigned caps,
                                    const char **why) {
  (void)caps;
  if (p->kv_type == CLFORGE_Q8_0) {
    *why = "the composite's GEMMs take no q8_0 K/V (clforge_attention's own f16-KV row is the comparison)";
    return 0;
  }
  if (gemm == CLFORGE_BENCH_UNFUSED_CLFORGE) return 1;
  /* CLBlast's f16 GEMM accumulates in f16 and it has no bf16 or mixed-type
   * GEMM: the f32 composite is the comparison it can make. */
  if (p->q_type != CLFORGE_F32 || p->kv_type != CLFORGE_F32 || p->o_type != CLFORGE_F32) {
    *why = "the CLBlast composite runs f32 only (its Hgemm accumulates in f16; no bf16 or mixed types)";
    return 0;
  }
  return 1;
}

static double mib(size_t bytes) { return (double)bytes / (1024.0 * 1024.0); }

int clforge_bench_unfused_create(clforge_context ctx, clforge_bench_unfused_gemm gemm,
                                 const clforge_bench_attn_problem *p, size_t limit_bytes, clforge_bench_unfused *u,
                                 char *why, size_t cap) {
  memset(u, 0, sizeof *u);
  u->ctx = ctx;
  u->p = *p;
  u->gemm = gemm;
  u->s_type = p->q_type;
  clforge_device_info info;
  cl_context cl;
  if (clforge_context_queue(ctx, &u->queue) != CLFORGE_SUCCESS || clforge_context_cl_context(ctx, &cl) != CLFORGE_SUCCESS ||
      clforge_context_device_info(ctx, &info) != CLFORGE_SUCCESS) {
    snprintf(why, cap, "%s", clforge_last_error(ctx));
    return -1;
  }
  const size_t s_bytes = s_elems(p) * clforge_dtype_size(u->s_type);
  u->extra_bytes = clforge_bench_unfused_bytes(p);
  if (info.max_alloc_bytes && s_bytes > info.max_alloc_bytes) {
    snprintf(why, cap, "cannot fit its S buffer: %.0f MiB, more than the device's largest allocation (%.0f MiB)",
             mib(s_bytes), mib(info.max_alloc_bytes));
    return -1;
  }
  if (info.global_mem_bytes && u->extra_bytes > info.global_mem_bytes / 2) {
    snprintf(why, cap, "cannot fit its S buffer: %.0f MiB, more than half the device's memory (%.0f MiB)",
             mib(u->extra_bytes), mib(info.global_mem_bytes));
    return -1;
  }
  if (limit_bytes && u->extra_bytes > limit_bytes) {
    snprintf(why, cap, "not run: its S buffer needs %.0f MiB, more than --peer-mem %.0f MiB", mib(u->extra_bytes),
             mib(limit_bytes));
    return -1;
  }
  cl_int err;
  u->s = clCreateBuffer(cl, CL_MEM_READ_WRITE, s_bytes, NULL, &err);
  if (err != CL_SUCCESS) {
    snprintf(why, cap, "cannot fit its S buffer: clCreateBuffer of %.0f MiB failed (%s)", mib(s_bytes),
             clforge_status_name(err));
    return -1;
  }
  if (p->causal) {
    /* 0 where key j is visible to query i (j <= i + Sk - Sq), -inf above. */
    float *m = malloc(p->sq * p->sk * sizeof *m);
    if (!m) {
      snprintf(why, cap, "out of host memory for the causal mask");
      clforge_bench_unfused_destroy(u);
      return -1;
    }
    for (size_t i = 0; i < p->sq; ++i)
      for (size_t j = 0; j < p->sk; ++j) m[i * p->sk + j] = (double)j <= (double)i + (double)p->sk - (double)p->sq ? 0.0f : -INFINITY;
    u->mask = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, p->sq * p->sk * sizeof *m, m, &err);
    free(m);
    if (err != CL_SUCCESS) {
      snprintf(why, cap, "clCreateBuffer of the causal mask failed (%s)", clforge_status_name(err));
      clforge_bench_unfused_destroy(u);
      return -1;
    }
  }
  const size_t group = p->hq / p->hkv, rows = group * p->sq;
  u->qk = (clforge_gemm_desc){.layout = CLFORGE_ROW_MAJOR,
                              .trans_a = CLFORGE_NO_TRANS,
                              .trans_b = CLFORGE_TRANS,
                              .m = rows,
                              .n = p->sk,
                              .k = p->d,
                              .alpha = p->scale,
                              .a_type = p->q_type,
                              .b_type = p->kv_type,
                              .c_type = u->s_type,
                              .lda = p->d,
                              .ldb = p->d,
                              .ldc = p->sk,
                              .batch = p->b * p->hkv,
                              .stride_a = rows * p->d,
                              .stride_b = p->sk * p->d,
                              .stride_c = rows * p->sk};
  u->pv = (clforge_gemm_desc){.layout = CLFORGE_ROW_MAJOR,
                              .trans_a = CLFORGE_NO_TRANS,
                              .trans_b = CLFORGE_NO_TRANS,
                              .m = rows,
                              .n = p->dv,
                              .k = p->sk,
                              .alpha = 1.0f,
                              .a_type = u->s_type,
                              .b_type = p->kv_type,
                              .c_type = p->o_type,
                              .lda = p->sk,
                              .ldb = p->dv,
                              .ldc = p->dv,
                              .batch = p->b * p->hkv,
                              .stride_a = rows * p->sk,
                              .stride_b = p->sk * p->dv,
                              .stride_c = rows * p->dv};
  /* Without a mask one call covers every row; the causal mask is one
   * [Sq, Sk] matrix, so one call per (b, h) applies it (rows Sq, mask row i). */
  u->sm = (clforge_softmax_desc){.kind = CLFORGE_SOFTMAX,
                                 .rows = p->causal ? p->sq : s_elems(p) / p->sk,
                                 .n = p->sk,
                                 .x_type = u->s_type,
                                 .y_type = u->s_type,
                                 .mask_type = CLFORGE_F32,
                                 .mask_stride = p->causal ? p->sk : 0};
  return 0;
}

static int enqueue_softmax(clforge_bench_unfused *u) {
  const size_t calls = u->p.causal ? u->p.b * u->p.hq : 1;
  for (size_t c = 0; c < calls; ++c) {
    clforge_softmax_desc d = u->sm;
    d.x_offset = d.y_offset = c * u->p.sq * u->p.sk;
    clforge_status st = clforge_softmax(u->ctx, &d, u->s, u->mask, u->s, 0, NULL, NULL);
    if (st != CLFORGE_SUCCESS) {
      u->failed_in = "clforge_softmax";
      return st;
    }
  }
  return 0;
}

static int clblast_gemm(clforge_bench_unfused *u, const clforge_gemm_desc *g, cl_mem a, cl_mem b, cl_mem c) {
  u->failed_in = "CLBlastSgemmStridedBatched";
  return CLBlastSgemmStridedBatched(CLBlastLayoutRowMajor, CLBlastTransposeNo,
                                    g->trans_b == CLFORGE_TRANS ? CLBlastTransposeYes : CLBlastTransposeNo, g->m, g->n,
                                    g->k, g->alpha, a, 0, g->lda, g->stride_a, b, 0, g->ldb, g->stride_b, 0.0f, c, 0,
                                    g->ldc, g->stride_c, g->batch, &u->queue, NULL);
}

int clforge_bench_unfused_enqueue_qk(clforge_bench_unfused *u, cl_mem q, cl_mem k) {
  clforge_status st = clforge_gemm(u->ctx, &u->qk, q, k, u->s, NULL, 0, NULL, NULL);
  if (st != CLFORGE_SUCCESS) u->failed_in = "clforge_gemm";
  return st;
}

int clforge_bench_unfused_enqueue(clforge_bench_unfused *u, cl_mem q, cl_mem k, cl_mem v, cl_mem o) {
  int rc;
  if (u->gemm == CLFORGE_BENCH_UNFUSED_CLBLAST) {
    if ((rc = clblast_gemm(u, &u->qk, q, k, u->s)) != 0) return rc;
    if ((rc = enqueue_softmax(u)) != 0) return rc;
    return clblast_gemm(u, &u->pv, u->s, v, o);
  }
  if ((rc = clforge_bench_unfused_enqueue_qk(u, q, k)) != 0) return rc;
  if ((rc = enqueue_softmax(u)) != 0) return rc;
  clforge_status st = clforge_gemm(u->ctx, &u->pv, u->s, v, o, NULL, 0, NULL, NULL);
  if (st != CLFORGE_SUCCESS) u->failed_in = "clforge_gemm";
  return st;
}

void clforge_bench_unfused_destroy(clforge_bench_unfused *u) {
  if (u->s) clReleaseMemObject(u->s);
  if (u->mask) clReleaseMemObject(u->mask);
  u->s = u->mask = NULL;
}

/* ------------------------------------------------------------ plain read */

int clforge_bench_plain_read_create(clforge_context ctx, size_t bytes, clforge_bench_plain_read *r, char *why,
                                    size_t cap) {
  memset(r, 0, sizeof *r);
  cl_context cl;
  cl_device_id dev;
  cl_command_queue queue;
  clforge_device_info info;
  if (clforge_context_cl_context(ctx, &cl) != CLFORGE_SUCCESS || clforge_context_device(ctx, &dev) != CLFORGE_SUCCESS ||
      clforge_context_queue(ctx, &queue) != CLFORGE_SUCCESS ||
      clforge_context_device_info(ctx, &info) != CLFORGE_SUCCESS) {
    snprintf(why, cap, "%s", clforge_last_error(ctx));
    return -1;
  }
  /* The shape `clforge bench peak` streams with (bench/peak.c): on a CPU
   * each work-item reads one contiguous 16 KiB block (float16 loads,
   * work-groups of 1), elsewhere coalesced float4 loads in groups of 256. */
  const int cpu = (info.type & CL_DEVICE_TYPE_CPU) != 0;
  const int mvw = cpu ? 16 : 4, items = cpu ? 256 : 16;
  size_t local = cpu ? 1 : 256;
  if (!cpu && info.max_work_group_size && local > info.max_work_group_size) local = info.max_work_group_size;
  const size_t block = (size_t)mvw * sizeof(float) * (size_t)items * local;
  r->global = bytes / block * local;
  r->local = local;
  r->bytes = r->global / local * block;
  if (r->bytes == 0) {
    snprintf(why, cap, "%zu bytes are less than one block of the read kernel (%zu bytes)", bytes, block);
    return -1;
  }
  const clforge_bench_embedded_source *src = clforge_bench_embedded_source_find("peak");
  if (!src) {
    snprintf(why, cap, "the peak kernels are not embedded (build error)");
    return -1;
  }
  cl_int err;
  const char *text = src->text;
  r->program = clCreateProgramWithSource(cl, 1, &text, &src->length, &err);
  char options[96];
  snprintf(options, sizeof options, "-cl-std=CL1.2 -DVW=4 -DCHAINS=1 -DMVW=%d", mvw);
  if (err == CL_SUCCESS) err = clBuildProgram(r->program, 1, &dev, options, NULL, NULL);
  if (err == CL_SUCCESS) r->kernel = clCreateKernel(r->program, "peak_read", &err);
  const cl_int items_arg = items;
  if (err == CL_SUCCESS) r->src = clCreateBuffer(cl, CL_MEM_READ_ONLY, r->bytes, NULL, &err);
  if (err == CL_SUCCESS) r->sums = clCreateBuffer(cl, CL_MEM_WRITE_ONLY, r->global * sizeof(float), NULL, &err);
  const float one = 1.0f; /* every page touched before timing; no denormals */
  if (err == CL_SUCCESS) err = clEnqueueFillBuffer(queue, r->src, &one, sizeof one, 0, r->bytes, 0, NULL, NULL);
  if (err == CL_SUCCESS) err = clFinish(queue);
  if (err == CL_SUCCESS) err = clSetKernelArg(r->kernel, 0, sizeof r->src, &r->src);
  if (err == CL_SUCCESS) err = clSetKernelArg(r->kernel, 1, sizeof r->sums, &r->sums);
  if (err == CL_SUCCESS) err = clSetKernelArg(r->kernel, 2, sizeof items_arg, &items_arg);
  if (err != CL_SUCCESS) {
    snprintf(why, cap, "setting up the plain read of %zu bytes failed (%s)", r->bytes, clforge_status_name(err));
    clforge_bench_plain_read_destroy(r);
    return -1;
  }
  return 0;
}

int clforge_bench_plain_read_enqueue(void *user, cl_command_queue queue) {
  const clforge_bench_plain_read *r = user;
  return clEnqueueNDRangeKernel(queue, r->kernel, 1, NULL, &r->global, r->local ? &r->local : NULL, 0, NULL, NULL);
}

void clforge_bench_plain_read_destroy(clforge_bench_plain_read *r) {
  if (r->kernel) clReleaseKernel(r->kernel);
  if (r->program) clReleaseProgram(r->program);
  if (r->src) clReleaseMemObject(r->src);
  if (r->sums) clReleaseMemObject(r->sums);
  memset(r, 0, sizeof *r);
}

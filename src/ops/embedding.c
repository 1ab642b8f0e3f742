/* clforge_embedding: argument and buffer checks, the ids read back and
 * refused outside the vocabulary before anything runs, one launch
 * (cl/embedding.cl), validation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/context.h"
#include "../core/error.h"
#include "../core/program.h"
#include "../core/validate.h"
#include "../desc/embedding_desc.h"
#include "../families/families.h"
#include "buffer_check.h"
#include "op_call.h"

#define OP "embedding"

clforge_status clforge_embedding_explain(clforge_context ctx, const clforge_embedding_desc *desc,
                                         clforge_kernel_choice *choice) {
  clforge_status st = clforge__query_begin(ctx, OP "_explain", choice, "choice");
  clforge__emb d;
  if (st == CLFORGE_SUCCESS) st = clforge__emb_resolve(ctx, OP "_explain", desc, &d);
  return clforge__explain_plain(ctx, &clforge__family_embedding, st, choice);
}

static size_t unit(clforge_dtype t) { return t == CLFORGE_Q8_0 ? 1 : clforge_dtype_size(t); }

/* Every buffer's size; y apart from the table and the ids. */
static clforge_status check_buffers(clforge_context ctx, const clforge__emb *d, cl_mem table, cl_mem ids, cl_mem y) {
  const size_t tu = unit(d->table_type), ys = clforge_dtype_size(d->y_type);
  clforge_status st = clforge__check_buffer(ctx, OP, "table", table, d->table_offset, d->table_extent - d->table_offset,
                                            tu, CLFORGE_ACCESS_READ);
  if (st == CLFORGE_SUCCESS)
    st = clforge__check_buffer(ctx, OP, "ids", ids, d->ids_offset, d->tokens, 4, CLFORGE_ACCESS_READ | CLFORGE_ACCESS_HOST_READ);
  if (st == CLFORGE_SUCCESS)
    st = clforge__check_buffer(ctx, OP, "y", y, d->y_offset, d->y_extent - d->y_offset, ys, CLFORGE_ACCESS_WRITE);
  clforge__byte_range ry, rt, ri;
  if (st == CLFORGE_SUCCESS) st = clforge__buffer_range(ctx, y, d->y_offset * ys, (d->y_extent - d->y_offset) * ys, &ry);
  if (st == CLFORGE_SUCCESS)
    st = clforge__buffer_range(ctx, table, d->table_offset * tu, (d->table_extent - d->table_offset) * tu, &rt);
  if (st == CLFORGE_SUCCESS) st = clforge__buffer_range(ctx, ids, d->ids_offset * 4, d->tokens * 4, &ri);
  if (st == CLFORGE_SUCCESS && (clforge__ranges_alias(&ry, &rt) || clforge__ranges_alias(&ry, &ri)))
    st = clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, OP ": y overlaps the table or the ids");
  return st;
}

static clforge_status launch(clforge_context ctx, const clforge__emb *d, int wg, cl_mem table, cl_mem ids, cl_mem y,
                             cl_uint nwait, const cl_event *wait, cl_event *done) {
  char more[32];
  snprintf(more, sizeof more, "-DT_T=%d -DY_T=%d", (int)d->table_type, (int)d->y_type);
  int v[CLFORGE_MAX_PARAMS] = {wg};
  cl_kernel k;
  clforge_status st = clforge__family_kernel(ctx, OP, &clforge__family_embedding, clforge__family_embedding.kernel, v,
                                             more, (size_t)wg, &k);
  if (st != CLFORGE_SUCCESS) return st;
  const cl_ulong to = d->table_offset, row = d->row, io = d->ids_offset, yo = d->y_offset, ys = d->y_stride;
  const cl_uint tokens = (cl_uint)d->tokens, dim = (cl_uint)d->dim, vocab = (cl_uint)d->vocab;
  const void *vals[] = {&table, &to, &row, &ids, &io, &y, &yo, &ys, &tokens, &dim, &vocab};
  const size_t sizes[] = {sizeof table, 8, 8, sizeof ids, 8, sizeof y, 8, 8, 4, 4, 4};
  cl_int err = CL_SUCCESS;
  for (cl_uint i = 0; i < 11; ++i) err |= clSetKernelArg(k, i, sizes[i], vals[i]);
  if (err != CL_SUCCESS) return clforge__fail_cl(ctx, err, "clSetKernelArg (" OP ")");
  const size_t local = (size_t)wg, n = d->tokens * d->dim, global = (n + local - 1) / local * local;
  return clforge__launch(ctx, k, 1, &global, &local, nwait, wait, done, "clEnqueueNDRangeKernel (" OP ")");
}

/* Validation mode's inputs: the rows the ids name, read before the launch,
 * as a table of their own (row t for token t). */
static clforge_status read_rows(clforge_context ctx, const clforge__emb *d, cl_mem table, const int32_t *ids,
                                void **rows) {
  const size_t rb = d->row * unit(d->table_type);
  *rows = malloc(d->tokens * rb + 1);
  if (!*rows) return clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, OP " validation: no memory");
  clforge_status st = CLFORGE_SUCCESS;
  for (size_t t = 0; t < d->tokens && st == CLFORGE_SUCCESS; ++t)
    st = clforge__read_buffer(ctx, table, (d->table_offset + (size_t)ids[t] * d->row) * unit(d->table_type), rb,
                              (char *)*rows + t * rb);
  return st;
}

/* Validation mode: the reference on those rows (ids 0, 1, ...). */
static clforge_status validate(clforge_context ctx, const clforge_embedding_desc *desc, const clforge__emb *d,
                               const void *rows, cl_mem y, cl_event done) {
  const size_t ny = d->y_extent - d->y_offset;
  void *got = NULL, *want = NULL;
  int32_t *seq = malloc(d->tokens * sizeof *seq);
  clforge_status st = seq ? clforge__call_await_done(ctx, OP, done)
                          : clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, OP " validation: no memory");
  if (st == CLFORGE_SUCCESS) st = clforge__test_fault_apply(ctx, OP, y, d->y_offset, d->y_type); /* tests only */
  if (st == CLFORGE_SUCCESS) st = clforge__call_read_elements(ctx, OP, y, d->y_type, d->y_offset, ny, &got);
  if (st == CLFORGE_SUCCESS) st = clforge__call_read_elements(ctx, OP, y, d->y_type, d->y_offset, ny, &want);
  clforge_embedding_desc at0 = *desc;
  at0.table_offset = at0.ids_offset = at0.y_offset = 0, at0.vocab = d->tokens;
  for (size_t t = 0; seq && t < d->tokens; ++t) seq[t] = (int32_t)t;
  if (st == CLFORGE_SUCCESS) st = clforge_ref_embedding(&at0, rows, seq, want); /* y's gaps: as on the device */
  if (st == CLFORGE_SUCCESS) st = clforge__validate(ctx, OP, d->y_type, ny, got, want, clforge__tolerance_for(d->y_type));
  free(seq), free(got), free(want);
  return st;
}

clforge_status clforge_embedding(clforge_context ctx, const clforge_embedding_desc *desc, cl_mem table, cl_mem ids,
                                 cl_mem y, cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                 cl_event *event) {
  clforge_status st = clforge__call_begin(ctx, OP, event);
  if (st != CLFORGE_SUCCESS) return st;
  clforge__emb d;
  st = clforge__emb_resolve(ctx, OP, desc, &d);
  if (st == CLFORGE_SUCCESS) st = clforge__check_wait_list(ctx, OP, num_events_in_wait_list, event_wait_list);
  if (st != CLFORGE_SUCCESS) return st;
  if (!d.tokens) return clforge__call_marker(ctx, OP, num_events_in_wait_list, event_wait_list, event);
  st = check_buffers(ctx, &d, table, ids, y);
  int v[CLFORGE_MAX_PARAMS];
  if (st == CLFORGE_SUCCESS) st = clforge__family_select(ctx, &clforge__family_embedding, 0, NULL, v, NULL);
  /* the ids as the kernel will read them: refused outside the vocabulary */
  void *hids = NULL;
  if (st == CLFORGE_SUCCESS) st = clforge__call_await_inputs(ctx, OP, num_events_in_wait_list, event_wait_list);
  if (st == CLFORGE_SUCCESS) st = clforge__call_read_elements(ctx, OP, ids, CLFORGE_S32, d.ids_offset, d.tokens, &hids);
  size_t at;
  if (st == CLFORGE_SUCCESS && clforge__emb_bad_id(&d, hids, d.tokens, &at))
    st = clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, OP ": token %zu's id (ids element %zu) = %d is outside the "
                       "vocabulary [0, %zu)", at, d.ids_offset + at, (int)((int32_t *)hids)[at], d.vocab);
  void *rows = NULL;
  if (st == CLFORGE_SUCCESS && ctx->validate) st = read_rows(ctx, &d, table, hids, &rows);
  cl_event done = NULL;
  if (st == CLFORGE_SUCCESS) st = launch(ctx, &d, v[0], table, ids, y, num_events_in_wait_list, event_wait_list, &done);
  if (st == CLFORGE_SUCCESS && ctx->validate) st = validate(ctx, desc, &d, rows, y, done);
  free(hids), free(rows);
  return clforge__call_end(st, done, event);
}

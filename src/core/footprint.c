#include "footprint.h"

#include <stdint.h>

/* Work in int64 on byte positions below 2^62 (beyond that: conservative). */
#define POS_LIMIT ((size_t)1 << 62)
#define MAX_ITEM_STEPS ((int64_t)1 << 20)

static size_t end_of(const clforge__footprint *f) {
  if (!f->items || !f->rows || !f->width) return f->begin;
  return f->begin + (f->items - 1) * f->stride + (f->rows - 1) * f->pitch + f->width;
}

static int empty(const clforge__footprint *f) { return !f->items || !f->rows || !f->width; }

static int64_t floor_div(int64_t a, int64_t b) { /* b > 0 */
  int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

/* Rows r of a (at r*p) and rows r' of b (at d + r'*p) with r < ra, r' < rb:
 * does some pair of rows, wa and wb bytes wide, share a byte? The rows meet
 * where -wb < d + k*p < wa for k = r' - r in [-(ra-1), rb-1]; d + k*p grows
 * with k, so the first k above -wb decides. */
static int rows_meet(int64_t d, int64_t p, int64_t ra, int64_t wa, int64_t rb, int64_t wb) {
  if (ra == 1 && rb == 1) return d < wa && d > -wb;
  int64_t kmin = -(ra - 1), kmax = rb - 1;
  int64_t k = floor_div(-wb - d, p) + 1;
  if (k < kmin) k = kmin;
  return k <= kmax && d + k * p < wa;
}

int clforge__footprint_items_overlap(const clforge__footprint *f) {
  if (empty(f) || f->items < 2) return 0;
  if (f->stride == 0) return 1;
  if (f->stride >= (f->rows - 1) * f->pitch + f->width) return 0; /* one after the other */
  if (end_of(f) >= POS_LIMIT || (int64_t)f->items > MAX_ITEM_STEPS) return 1;
  /* Item 0 against item j (every pair i < j is a shift of one of these). */
  const int64_t p = (int64_t)(f->rows > 1 ? f->pitch : f->width), r = (int64_t)f->rows, w = (int64_t)f->width;
  for (int64_t j = 1; j < (int64_t)f->items; ++j)
    if (rows_meet(j * (int64_t)f->stride, p, r, w, r, w)) return 1;
  return 0;
}

int clforge__footprints_overlap(const clforge__footprint *a, const clforge__footprint *b) {
  if (empty(a) || empty(b)) return 0;
  size_t ea = end_of(a), eb = end_of(b);
  if (ea <= b->begin || eb <= a->begin) return 0; /* address ranges apart */
  if (ea >= POS_LIMIT || eb >= POS_LIMIT) return 1;
  /* One row on a side: its pitch does not matter (one row on both: any). */
  size_t pa = a->rows > 1 ? a->pitch : b->rows > 1 ? b->pitch : 1;
  size_t pb = b->rows > 1 ? b->pitch : pa;
  if (pa != pb || pa == 0) return 1;
  const int64_t p = (int64_t)pa;
  const int64_t d0 = (int64_t)b->begin - (int64_t)a->begin;
  const int64_t ra = (int64_t)a->rows, wa = (int64_t)a->width, rb = (int64_t)b->rows, wb = (int64_t)b->width;
  const int64_t na = (int64_t)a->items, nb = (int64_t)b->items;
  const int64_t sa = na > 1 ? (int64_t)a->stride : 0, sb = nb > 1 ? (int64_t)b->stride : 0;
  if (na > 1 && nb > 1 && sa != sb) return 1;
  /* Item i of a against item j of b: d0 + j*sb - i*sa; with equal strides
   * only j - i matters. */
  int64_t lo, hi, step;
  if (na > 1 && nb > 1) lo = -(na - 1), hi = nb - 1, step = sa;
  else if (na > 1) lo = -(na - 1), hi = 0, step = sa;
  else lo = 0, hi = nb - 1, step = sb;
  if (hi - lo >= MAX_ITEM_STEPS) return 1;
  for (int64_t t = lo; t <= hi; ++t)
    if (rows_meet(d0 + t * step, p, ra, wa, rb, wb)) return 1;
  return 0;
}

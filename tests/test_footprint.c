/* Overlap of strided footprints (src/core/footprint.c) against brute force: on
 * thousands of random small patterns, marking every byte each one touches.
 * A "no" must always be right (a missed overlap would let a kernel race);
 * where the function promises exactness (equal pitches or one row, items
 * one or equally strided) its "yes" must be right too. */
#include <stdint.h>

#include "../src/core/footprint.h"
#include "../src/ops/buffer_check.h"
#include "test_util.h"

enum { SPACE = 4096 };

static unsigned seed = 2024;

static size_t pick(size_t lo, size_t hi) { return lo + tu_rand(&seed) % (hi - lo + 1); }

static void mark(const clforge__footprint *f, unsigned char *bytes, int *self_overlap) {
  *self_overlap = 0;
  static unsigned char owner[SPACE];
  memset(owner, 0, sizeof owner);
  for (size_t i = 0; i < f->items; ++i)
    for (size_t r = 0; r < f->rows; ++r)
      for (size_t w = 0; w < f->width; ++w) {
        size_t at = f->begin + i * f->stride + r * f->pitch + w;
        if (owner[at] && owner[at] != i + 1) *self_overlap = 1;
        owner[at] = (unsigned char)(i + 1);
        bytes[at] = 1;
      }
}

static clforge__footprint random_footprint(size_t pitch) {
  clforge__footprint f;
  f.width = pick(1, 24);
  f.pitch = pitch ? pitch : f.width + pick(0, 24);
  if (f.pitch < f.width) f.width = f.pitch;
  f.rows = pick(1, 6);
  f.items = pick(1, 5);
  f.stride = tu_rand(&seed) % 4 == 0 ? 0 : pick(1, 160);
  f.begin = pick(0, 200);
  return f;
}

int main(void) {
  static unsigned char ba[SPACE], bb[SPACE];
  int exact_cases = 0, overlapping = 0;
  for (int it = 0; it < 20000; ++it) {
    size_t shared_pitch = tu_rand(&seed) % 2 ? pick(1, 48) : 0;
    clforge__footprint a = random_footprint(shared_pitch), b = random_footprint(shared_pitch);
    if (tu_rand(&seed) % 3 == 0) b.stride = a.stride, b.items = a.items;
    memset(ba, 0, sizeof ba);
    memset(bb, 0, sizeof bb);
    int self_a, self_b;
    mark(&a, ba, &self_a);
    mark(&b, bb, &self_b);
    int truth = 0;
    for (size_t i = 0; i < SPACE && !truth; ++i) truth = ba[i] && bb[i];
    int got = clforge__footprints_overlap(&a, &b);
    size_t pa = a.rows > 1 ? a.pitch : 0, pb = b.rows > 1 ? b.pitch : 0;
    int exact = (!pa || !pb || pa == pb) && (a.items == 1 || b.items == 1 || a.stride == b.stride || !a.stride ||
                                             !b.stride);
    /* stride 0 with several items repeats one item: exact as one item */
    if (a.items > 1 && b.items > 1 && a.stride != b.stride && a.stride && b.stride) exact = 0;
    if (!got) CHECK(!truth, "missed overlap: a {%zu %zu %zu %zu %zu %zu} b {%zu %zu %zu %zu %zu %zu}", a.begin, a.width,
                    a.pitch, a.rows, a.stride, a.items, b.begin, b.width, b.pitch, b.rows, b.stride, b.items);
    if (exact && a.stride && b.stride) {
      ++exact_cases;
      CHECK(got == truth, "exact case wrong (%d, truth %d): a {%zu %zu %zu %zu %zu %zu} b {%zu %zu %zu %zu %zu %zu}", got,
            truth, a.begin, a.width, a.pitch, a.rows, a.stride, a.items, b.begin, b.width, b.pitch, b.rows, b.stride,
            b.items);
    }
    overlapping += truth;
    /* the items of one footprint among themselves: always exact */
    int self = clforge__footprint_items_overlap(&a);
    CHECK(self == self_a || (a.stride == 0 && a.items > 1 && self), "items of a {%zu %zu %zu %zu %zu %zu}: %d, truth %d",
          a.begin, a.width, a.pitch, a.rows, a.stride, a.items, self, self_a);
  }
  CHECK(exact_cases > 5000 && overlapping > 2000 && overlapping < 18000, "%d exact cases, %d overlapping", exact_cases,
        overlapping);

  /* An empty pattern (no items, rows or width: an operand of an empty
   * problem, whose strides computed from the shape may be 0) touches no
   * byte: it overlaps nothing, not even placed inside a dense one, and its
   * items do not overlap each other; the same pattern with one row more
   * does overlap, so these checks can fail. */
  for (int it = 0; it < 3000; ++it) {
    clforge__footprint dense = {pick(0, 100), 400, 400, 1, 400, 1}, e = random_footprint(0);
    e.begin = dense.begin + pick(0, 300);
    e.stride = tu_rand(&seed) % 2 ? 0 : e.stride, e.items = pick(2, 5);
    clforge__footprint full = e;
    if (it % 3 == 0) e.items = 0;
    else if (it % 3 == 1) e.rows = 0;
    else e.width = 0;
    CHECK(!clforge__footprints_overlap(&dense, &e) && !clforge__footprints_overlap(&e, &dense) &&
              !clforge__footprints_overlap(&e, &e) && !clforge__footprint_items_overlap(&e),
          "empty {%zu %zu %zu %zu %zu %zu} overlaps", e.begin, e.width, e.pitch, e.rows, e.stride, e.items);
    CHECK(clforge__footprints_overlap(&dense, &full), "{%zu %zu %zu %zu %zu %zu} inside dense does not overlap",
          full.begin, full.width, full.pitch, full.rows, full.stride, full.items);
  }
  /* byte ranges (convolution's check): empty ones share no byte */
  const cl_mem root = (cl_mem)(uintptr_t)0x1000;
  const clforge__byte_range whole = {root, 0, 4096}, empty_inside = {root, 100, 100}, one = {root, 100, 101};
  CHECK(!clforge__ranges_alias(&whole, &empty_inside) && !clforge__ranges_alias(&empty_inside, &whole) &&
            !clforge__ranges_alias(&empty_inside, &empty_inside),
        "%s", "an empty byte range aliases");
  CHECK(clforge__ranges_alias(&whole, &one) && clforge__ranges_alias(&one, &whole), "%s", "a byte inside does not alias");
  return tu_summary();
}

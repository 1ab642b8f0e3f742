/* The memory an operand touches, as a strided pattern: `items` items
 * `stride` bytes apart, each `rows` rows `pitch` bytes apart, each row
 * `width` contiguous bytes from `begin` (bytes from the start of the root
 * buffer). Overlap between operands, and between the items of one output,
 * is decided on these elements rather than on whole address ranges, so that
 * operands placed side by side in one buffer (a fused QKV projection's three
 * outputs, batch items next to each other in the rows of one matrix) are
 * accepted while real overlap is refused. */
#ifndef CLFORGE_SRC_FOOTPRINT_H
#define CLFORGE_SRC_FOOTPRINT_H

#include <stddef.h>

typedef struct clforge__footprint {
  size_t begin, width, pitch, rows, stride, items;
} clforge__footprint;

/* 1 when two items of f share a byte; exact (conservative, i.e. 1, only for
 * more than 2^20 items). Needs width <= pitch. */
int clforge__footprint_items_overlap(const clforge__footprint *f);

/* 1 when a and b (in the same root buffer) share a byte. Exact when the row
 * pitches are equal (or one side has one row) and the items are one, or
 * equally strided; otherwise exact only in saying "no" for disjoint address
 * ranges, and conservative (1) when the ranges meet. */
int clforge__footprints_overlap(const clforge__footprint *a, const clforge__footprint *b);

#endif

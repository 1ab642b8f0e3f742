/* `clforge info`'s host<->device transfer bandwidth: blocking writes and
 * reads of one buffer, from pageable (malloc) and pinned (ALLOC_HOST_PTR,
 * mapped) host memory, on a context and queue of the device's own. */
#ifndef CLFORGE_TOOLS_TRANSFER_BANDWIDTH_H
#define CLFORGE_TOOLS_TRANSFER_BANDWIDTH_H

#include <clforge/clforge.h>

#define BW_DEFAULT_BYTES (64ull << 20)

typedef struct {
  int ok;
  double gbps;
  char why[160];
} bw_number;

typedef struct {
  int measured;
  unsigned long long bytes;
  bw_number pageable_h2d, pageable_d2h, pinned_h2d, pinned_d2h;
} bw_report;

/* Measure every direction with `requested` bytes per transfer (clamped to
 * half the device's largest allocation); a failure is kept per number in
 * its `why`. Each number is the median of 5..15 transfers after a warm-up. */
void transfer_bandwidth_measure(cl_device_id dev, const clforge_device_info *info, unsigned long long requested,
                                bw_report *r);

#endif

/* The benchmarks' data: reproducible random inputs, values rounded to a
 * storage type, results read back as f32, and how far one result is from
 * another. */
#ifndef CLFORGE_BENCH_DATA_H
#define CLFORGE_BENCH_DATA_H

#include <CL/cl.h>
#include <clforge/clforge.h>
#include <stddef.h>
#include <stdint.h>

/** Uniform values in [-range, range) from a small LCG: the same every run. */
void clforge_bench_fill_random(float *x, size_t n, uint32_t seed, float range);

/** The unit roundoff of a storage type: 2^-24 (f32), 2^-11 (f16), 2^-8 (bf16). */
double clforge_bench_unit_roundoff(clforge_dtype d);

/** Round f32 values to `d` and widen them back in place, so that host copies
 *  hold exactly what the device computes with. 0, or -1 (out of memory, or
 *  the conversion failed: clforge_last_error(NULL)). */
int clforge_bench_round_to_dtype(float *v, size_t n, clforge_dtype d);

/** Read `n` elements of type t from element `offset` of buf, widened to f32.
 *  0, or -1 with the reason in err ("... of <what> ..."). */
int clforge_bench_read_f32(cl_command_queue queue, cl_mem buf, const char *what, clforge_dtype t, size_t offset,
                           size_t n, float *out, char *err, size_t cap);

/** Whether three operands (names[i], sizes[i] bytes) fit the device: each
 *  within its largest allocation, all together within its memory. 0, or -1
 *  with "<name> needs N bytes, more than ..." in err. */
int clforge_bench_operands_fit(const clforge_device_info *info, const size_t sizes[3], const char *const names[3],
                               char *err, size_t cap);

/** max |x - ref| / max |ref| (max |x - ref| when ref is all zeros); infinity
 *  when anything is NaN. */
double clforge_bench_max_rel_diff(const float *x, const float *ref, size_t n);

#endif /* CLFORGE_BENCH_DATA_H */

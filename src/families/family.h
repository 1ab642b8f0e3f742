/* Kernel families as data: the one descriptor that the runtime, the tuner
 * and the tests all read (see docs/ARCHITECTURE.md, "Kernel families"). */
#ifndef CLFORGE_SRC_KERNELS_FAMILY_H
#define CLFORGE_SRC_KERNELS_FAMILY_H

#include <stddef.h>

#include "clforge/clforge.h"

enum { CLFORGE_MAX_PARAMS = 16, CLFORGE_MAX_CANDIDATES = 16 };
_Static_assert(CLFORGE_MAX_PARAMS == CLFORGE_MAX_KERNEL_PARAMS, "kernel choices hold every parameter");

typedef struct clforge__param {
  const char *name;                       /* the -D name in the kernel source */
  int count;                              /* number of candidate values */
  int values[CLFORGE_MAX_CANDIDATES];     /* candidates, ascending */
} clforge__param;

/* A built-in default that differs for one problem variant on one device
 * class (e.g. transposed B on CPUs wants B staged in local memory). */
typedef struct clforge__default_override {
  clforge_device_class device_class;
  int variant_mask, variant_bits;         /* applies where (variant & mask) == bits */
  int param;                              /* index into params */
  int value;
} clforge__default_override;

/* A built-in default that differs for one OpenCL driver (src/core/device.h,
 * clforge__driver) on top of its device class's row and overrides: the
 * driver's own measurements (docs/tuning.md, "Driver-level defaults"). */
typedef struct clforge__driver_default {
  int driver;                             /* a clforge__driver */
  int variant_mask, variant_bits;         /* applies where (variant & mask) == bits */
  int param;                              /* index into params */
  int value;
} clforge__driver_default;

/* A shape class a family is tuned on: its name, the representative problem
 * the tuner measures (e.g. m, n, k), and its share of a tuning budget
 * relative to the family's other classes (1 = normal). */
typedef struct clforge__shape_class {
  const char *name;
  size_t shape[8];
  double weight;
} clforge__shape_class;

typedef struct clforge__family {
  const char *name;                       /* family name, also used in CLFORGE_PARAMS */
  const char *const *sources;             /* embedded cl/<name>.cl files, NULL-terminated */
  const char *kernel;                     /* kernel function name */
  int nparams;
  clforge__param params[CLFORGE_MAX_PARAMS];
  /* Built-in defaults per device class, in the order of params, and the
   * exceptions to them for problem variants. */
  int defaults[CLFORGE_DEVICE_CLASS_COUNT][CLFORGE_MAX_PARAMS];
  const clforge__default_override *overrides; /* terminated by param < 0 */
  const clforge__driver_default *driver_defaults; /* may be NULL; else terminated by param < 0 */
  /* Constraints between values and against the device beyond "is a
   * candidate": 1 when allowed, else 0 with the reason in why. */
  int (*allowed)(const int *values, const clforge_device_info *dev, char *why, size_t why_cap);
  /* Optional: rewrite values that spell the same kernel differently into one
   * form (parameters that have no effect given others). Applied to every
   * value set before use; the tuner's space holds canonical sets only. */
  void (*canonical)(int *values);
  /* Bit p set: params[p] is a precision choice (the GEMM families' HALF):
   * values past the first run reduced-precision arithmetic, which a call
   * takes only when its compute type allows (src/core/compute_type.h). The tuner
   * holds it at the first value (it tunes strict f32), and a tuning entry
   * written before the parameter existed reads as having the first value. */
  unsigned precision_params;
  /* Tuning: the shape classes the family is tuned on (terminated by a NULL
   * name). The op that runs it is the tuner's to know (src/tuning/tune_op.h,
   * clforge__family_tune): a descriptor names no op. */
  const clforge__shape_class *classes;
} clforge__family;

/* A family's .defaults: one parenthesized row per device class, in
 * clforge_device_class order, each row's values in the order of params,
 * e.g. CLFORGE__DEFAULTS((1, 64), (16, 64), ...): the seven rows of every
 * family spelled one way. */
#define CLFORGE__DEFAULTS_ROW(...) {__VA_ARGS__}
#define CLFORGE__DEFAULTS(generic, cpu, nvidia, amd, intel_gpu, mali, adreno)                        \
  {                                                                                                 \
    [CLFORGE_DEVICE_CLASS_GENERIC] = CLFORGE__DEFAULTS_ROW generic,                                 \
    [CLFORGE_DEVICE_CLASS_CPU] = CLFORGE__DEFAULTS_ROW cpu,                                         \
    [CLFORGE_DEVICE_CLASS_NVIDIA] = CLFORGE__DEFAULTS_ROW nvidia,                                   \
    [CLFORGE_DEVICE_CLASS_AMD] = CLFORGE__DEFAULTS_ROW amd,                                         \
    [CLFORGE_DEVICE_CLASS_INTEL_GPU] = CLFORGE__DEFAULTS_ROW intel_gpu,                             \
    [CLFORGE_DEVICE_CLASS_MALI] = CLFORGE__DEFAULTS_ROW mali,                                       \
    [CLFORGE_DEVICE_CLASS_ADRENO] = CLFORGE__DEFAULTS_ROW adreno,                                   \
  }
_Static_assert(CLFORGE_DEVICE_CLASS_COUNT == 7, "CLFORGE__DEFAULTS takes a row per device class");

/* What a lookup is keyed on besides the device (see clforge__family_select). */
typedef struct clforge__problem_key {
  const char *dtypes, *layout, *shape_class;
  int ndims;
  size_t shape[8];
  /* The call's compute type (0: strict). A family with half variants, on a
   * device with cl_khr_fp16, first reads the entries tuned for it
   * ("<dtypes>@<compute type>", clforge_tune_options.compute_type). */
  clforge_compute_type compute_type;
} clforge__problem_key;

/* An allowed() callback's reason for refusing a set, written only when its
 * caller wants one (why_cap > 0): the tuner's enumeration visits millions
 * of sets and asks for none (formatting each refusal would dominate its
 * search-space walk). */
#define CLFORGE__WHY(why, why_cap, ...) ((why_cap) ? (void)snprintf(why, why_cap, __VA_ARGS__) : (void)0)

/* An allowed() for families whose only constraint is their first
 * parameter, a work-group size, against the device's limit. */
int clforge__family_wg_allowed(const int *values, const clforge_device_info *dev, char *why, size_t why_cap);

/* The check behind it, for allowed()s with more constraints or another
 * parameter (or product of parameters) as the work-group size: 1 when wgs
 * fits the device, else 0 with "work-group of <wgs> exceeds ..." in why. */
int clforge__family_wg_fits(size_t wgs, const clforge_device_info *dev, char *why, size_t why_cap);

/* 1 when every value is a candidate and the family's constraints hold. */
int clforge__family_check(const clforge__family *f, const int *values, const clforge_device_info *dev,
                          char *why, size_t why_cap);

/* "-DNAME=value ..." for the build; 0 on success, -1 if cap is too small. */
int clforge__family_options(const clforge__family *f, const int *values, char *buf, size_t cap);

/* Parameters for a call on ctx's device, problem variant and key, in the
 * lookup order: the tuner's candidate → clforge_context_set_params on top
 * of CLFORGE_PARAMS (e.g. "convert:VW=8;gemm:MWG=64"; parameters neither
 * names keep what the rest of the order gives) → the tuning file's entry
 * for this device and shape class → its nearest tuned shape (entries whose
 * parameters do not fit are passed over) → the device class default for
 * the variant → the generic default. A malformed or disallowed
 * override fails (CLFORGE_INVALID_ARGUMENT / _ENVIRONMENT); a tuning entry
 * that does not fit is skipped. key may be NULL (no tuning lookup).
 * choice (may be NULL) gets the values, names, source and provider. */
clforge_status clforge__family_select(clforge_context ctx, const clforge__family *f, int variant,
                                      const clforge__problem_key *key, int *values, clforge_kernel_choice *choice);

/* The tuning file moves a call off the family it runs without the file
 * only to one measured at least this much faster in the call's class: two
 * measurements minutes apart on a shared machine do not tell a few per
 * cent apart (docs/tuning.md, "Tuning never makes a call slower": a
 * smaller margin let noise move a class to a slower algorithm). */
#define CLFORGE__TUNED_MARGIN 1.10
#define CLFORGE__TUNED_MARGIN_TEXT "10" /* the same, for messages */

struct clforge__tuning_entry;
/* The tuning entry clforge__family_select takes for f and key (key->dtypes
 * set) on ctx's device: of key's shape class (CLFORGE__TUNING_EXACT), else
 * the nearest tuned shape (CLFORGE__TUNING_NEAREST), passing over entries
 * whose parameters do not fit; *entry NULL when none (0). The ops' choices
 * of algorithm and route compare the families' entries found this way. */
int clforge__family_lookup(clforge_context ctx, const clforge__family *f, const clforge__problem_key *key,
                           const struct clforge__tuning_entry **entry);

/* Parse "fam:NAME=V,...;fam2:..." for family f into values; 1 if f was
 * named, 0 if not, -1 with why on a malformed entry. */
int clforge__family_parse_params(const clforge__family *f, const char *spec, int *values, char *why, size_t why_cap);

/* Check a "fam:NAME=V,...;fam2:..." override up front: every family is one
 * of `families` (NULL-terminated), every name one of its parameters, every
 * value one of its candidates. Constraints between values are checked when
 * a call uses them. */
clforge_status clforge__params_validate(clforge_context ctx, const char *spec, const clforge__family *const *families);

/* A tuning entry's parameters as f's values: 0 when they fit (every
 * parameter named once, candidates, constraints on dev), else -1 with why. */
int clforge__family_entry_values(const clforge__family *f, const struct clforge__tuning_entry *e,
                                 const clforge_device_info *dev, int *values, char *why, size_t why_cap);

/* The first clause of a "fam:...;fam2:..." spec that does not start with
 * "NAME:" for one of `families` (NULL-terminated), and its length; NULL
 * when every clause does. */
const char *clforge__spec_unknown_family(const char *spec, const clforge__family *const *families, int *len);

/* "NAME=V NAME=V ..." of values, for messages. */
void clforge__family_format(const clforge__family *f, const int *values, char *buf, size_t cap);

/* Apply f's canonical form to values (no-op for families without one). */
void clforge__family_canonical(const clforge__family *f, int *values);

/* The built-in default of a device class for a variant (values[] filled). */
void clforge__family_default(const clforge__family *f, clforge_device_class cls, int variant, int *values);

/* The built-in default for a device: its class's (as above), then the
 * entries of its driver (clforge__device_driver) for the variant. Returns
 * how many parameters the driver's entries set (0: the class default). */
int clforge__family_device_default(const clforge__family *f, const clforge_device_info *dev, int variant,
                                   int *values);

/* Visit every combination of candidate values that passes the family's
 * check on dev (the tuner's search space, and the tests' sweep), precision
 * parameters (HALF) among their first precision_max + 1 values (0: held at
 * f32). `visit` returns nonzero to stop. Returns the number visited. */
size_t clforge__family_enumerate(const clforge__family *f, const clforge_device_info *dev, int precision_max,
                                 int (*visit)(const int *values, void *user), void *user);

#endif

/* Kernel families as data: the one descriptor that the runtime, the tuner
 * and the tests all read (see docs/ARCHITECTURE.md, "Kernel families"). */
#ifndef CLFORGE_SRC_KERNELS_FAMILY_H
#define CLFORGE_SRC_KERNELS_FAMILY_H

#include <stddef.h>

#include "clforge/clforge.h"

enum { CLFORGE_MAX_PARAMS = 16, CLFORGE_MAX_CANDIDATES = 16 };

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
  /* Constraints between values and against the device beyond "is a
   * candidate": 1 when allowed, else 0 with the reason in why. */
  int (*allowed)(const int *values, const clforge_device_info *dev, char *why, size_t why_cap);
} clforge__family;

/* Where a call's parameters came from. */
typedef enum {
  CLFORGE_PARAMS_FROM_DEFAULT = 0,  /* built-in default of the device class */
  CLFORGE_PARAMS_FROM_ENV = 1       /* CLFORGE_PARAMS override */
} clforge__params_source;

/* 1 when every value is a candidate and the family's constraints hold. */
int clforge__family_check(const clforge__family *f, const int *values, const clforge_device_info *dev,
                          char *why, size_t why_cap);

/* "-DNAME=value ..." for the build; 0 on success, -1 if cap is too small. */
int clforge__family_options(const clforge__family *f, const int *values, char *buf, size_t cap);

/* Parameters for a call on ctx's device and problem variant: CLFORGE_PARAMS
 * override (e.g. "convert:VW=8,WGS=64;gemm:...", unnamed parameters keep
 * their default), else the device class default for the variant. A
 * malformed or disallowed override is CLFORGE_INVALID_ENVIRONMENT. */
clforge_status clforge__family_select(clforge_context ctx, const clforge__family *f, int variant, int *values,
                                      clforge__params_source *source);

/* The built-in default of a device class for a variant (values[] filled). */
void clforge__family_default(const clforge__family *f, clforge_device_class cls, int variant, int *values);

/* Visit every combination of candidate values that passes the family's
 * check on dev (the tuner's search space, and the tests' sweep). `visit`
 * returns nonzero to stop. Returns the number of combinations visited. */
size_t clforge__family_enumerate(const clforge__family *f, const clforge_device_info *dev,
                                 int (*visit)(const int *values, void *user), void *user);

#endif

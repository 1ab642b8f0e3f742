/* The context's layout, shared by the files under src/ and never installed. */
#ifndef CLFORGE_SRC_CONTEXT_H
#define CLFORGE_SRC_CONTEXT_H

#include "clforge/clforge.h"
#include "program.h"
#include "tuning_view.h"
#include "workspace.h"

struct clforge_context_s {
  cl_platform_id platform;
  cl_device_id device;
  int owns_device;          /* device is a sub-device made for it (clforge_context_create_subdevices): released with it */
  cl_context cl_ctx;        /* one reference held by us */
  cl_command_queue queue;   /* one reference held by us */
  clforge_device_info info;
  int validate;             /* validation mode (CLFORGE_VALIDATE) */
  clforge_compute_type compute_type; /* descriptors' default (CLFORGE_COMPUTE_TYPE; never DEFAULT) */
  clforge__program_cache programs;
  clforge__tuning_view tuning; /* this device's tuning entries, read on first use */
  clforge__workspace workspace; /* scratch memory of the ops (packed GEMM panels) */
  clforge__workspace conv_workspace; /* convolution's scratch (im2col, Winograd tiles, FFT spectra) */
  clforge__workspace conv_bwd_workspace; /* the backward passes' own (rotated filters, partial sums), held while they call forward algorithms */
  /* The tuner's candidate: family (NULL when not tuning) and its values,
   * or a provider ("clblast") to time instead of clforge's kernels. */
  struct {
    const struct clforge__family *family;
    int values[CLFORGE_MAX_KERNEL_PARAMS];
    char provider[16];
    /* The family being tuned (NULL when not tuning): a GEMM call runs its
     * path (packed or not) also when the built-in default is measured. */
    const struct clforge__family *path;
  } tune_force;
  /* What this driver cannot run although the device's properties allow it
   * (a dependency's kernels its compiler rejects), found once per context
   * on first need: 0 not probed yet, 1 runs, -1 does not (why says why). */
  struct {
    int fft;
    char fft_why[384];
  } driver;
  int tuning_active;        /* clforge_tune is measuring: environment overrides do not apply */
  char *params_override;    /* clforge_context_set_params, wins over CLFORGE_PARAMS */
  char *last_error;         /* heap, grows to the longest message */
  size_t last_error_cap;
  /* Test-only fault injection: the name of an op whose device result is
   * corrupted before validation (see clforge__test_set_fault). */
  char test_fault[32];
};

/* Corrupt the next results of op `op_name` ("convert"), or clear with NULL.
 * Used by tests to prove that validation mode catches a wrong result. */
void clforge__test_set_fault(clforge_context ctx, const char *op_name);

/* A context on local rank local_rank's device (an MPI job's ranks on one
 * machine): CLFORGE_DEVICE's where it is set, else
 * clforge__device_select_nth's. */
clforge_status clforge__context_create_local(int local_rank, clforge_context *out);

#endif

/* Context lifecycle: device choice, OpenCL context and queue, fingerprint. */
#include "context.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "compute_type.h"
#include "device.h"
#include "error.h"
#include "../families/families.h"
#include "log.h"

/* CLFORGE_VALIDATE: 1/on/true/yes or 0/off/false/no (unset = off). */
static clforge_status read_validate_env(int *out) {
  const char *v = getenv("CLFORGE_VALIDATE");
  *out = 0;
  if (!v || !*v || !strcmp(v, "0") || !strcasecmp(v, "off") || !strcasecmp(v, "false") || !strcasecmp(v, "no"))
    return CLFORGE_SUCCESS;
  if (!strcmp(v, "1") || !strcasecmp(v, "on") || !strcasecmp(v, "true") || !strcasecmp(v, "yes")) {
    *out = 1;
    return CLFORGE_SUCCESS;
  }
  return clforge__fail(NULL, CLFORGE_INVALID_ENVIRONMENT, "CLFORGE_VALIDATE=\"%s\": use 1 or 0", v);
}

/* Common second half of both constructors: ctx already holds references to
 * the device, OpenCL context and queue. */
static clforge_status finish(clforge_context ctx, clforge_context *out) {
  clforge_status st = clforge_device_query(ctx->device, &ctx->info);
  if (st == CLFORGE_SUCCESS) st = read_validate_env(&ctx->validate);
  if (st == CLFORGE_SUCCESS) st = clforge__compute_type_env(&ctx->compute_type);
  if (st != CLFORGE_SUCCESS) {
    clforge_context_destroy(ctx);
    return st;
  }
  clforge__program_cache_init(ctx);
  clforge__log(CLFORGE_LOG_INFO, "context on \"%s\" (%s, %s)", ctx->info.name, ctx->info.platform_name,
               clforge_device_class_name(ctx->info.device_class));
  *out = ctx;
  return CLFORGE_SUCCESS;
}

/* A context of its own on dev: OpenCL context, profiling queue. */
static clforge_status create_on(cl_platform_id platform, cl_device_id dev, clforge_context *out) {
  clforge_context ctx = calloc(1, sizeof *ctx);
  if (!ctx) return clforge__fail(NULL, CLFORGE_OUT_OF_HOST_MEMORY, "no memory for a context");
  ctx->platform = platform;
  ctx->device = dev;
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform, 0};
  cl_int err;
  ctx->cl_ctx = clCreateContext(props, 1, &dev, NULL, NULL, &err);
  if (err != CL_SUCCESS) {
    free(ctx);
    return clforge__fail_cl(NULL, err, "clCreateContext");
  }
  /* Profiling on: the bench and the tuner time kernels with events. */
  ctx->queue = clCreateCommandQueue(ctx->cl_ctx, dev, CL_QUEUE_PROFILING_ENABLE, &err);
  if (err != CL_SUCCESS) {
    clReleaseContext(ctx->cl_ctx);
    free(ctx);
    return clforge__fail_cl(NULL, err, "clCreateCommandQueue");
  }
  return finish(ctx, out);
}

/* The device `device` names (NULL: CLFORGE_DEVICE, else the default). */
static clforge_status select_device(const char *device, cl_platform_id *platform, cl_device_id *dev) {
  const char *origin = "device argument";
  if (!device) {
    device = getenv("CLFORGE_DEVICE");
    origin = "CLFORGE_DEVICE";
  }
  return clforge__device_select(device, origin, platform, dev);
}

clforge_status clforge_context_create(const char *device, clforge_context *out) {
  clforge__clear_error(NULL);
  if (!out) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "out is NULL");
  *out = NULL;
  cl_platform_id platform;
  cl_device_id dev;
  clforge_status st = select_device(device, &platform, &dev);
  return st == CLFORGE_SUCCESS ? create_on(platform, dev, out) : st;
}

clforge_status clforge__context_create_local(int local_rank, clforge_context *out) {
  *out = NULL;
  const char *env = getenv("CLFORGE_DEVICE");
  if (env && *env) return clforge_context_create(NULL, out);
  cl_platform_id platform;
  cl_device_id dev;
  clforge_status st = clforge__device_select_nth(local_rank, &platform, &dev);
  return st == CLFORGE_SUCCESS ? create_on(platform, dev, out) : st;
}

clforge_status clforge_context_create_subdevices(const char *device, int n, clforge_context *out) {
  clforge__clear_error(NULL);
  if (!out || n < 1 || n > 64)
    return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "clforge_context_create_subdevices: n = %d (1 to 64), out %s", n,
                         out ? "set" : "NULL");
  for (int r = 0; r < n; ++r) out[r] = NULL;
  cl_platform_id platform;
  cl_device_id dev, sub[64];
  clforge_status st = select_device(device, &platform, &dev);
  if (st != CLFORGE_SUCCESS) return st;
  cl_uint cu = 0, got = 0;
  clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, NULL);
  char name[256] = "";
  clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, NULL);
  if (cu < (cl_uint)n)
    return clforge__fail(NULL, CLFORGE_UNSUPPORTED, "clforge_context_create_subdevices: %s has %u compute units, not %d",
                         name, cu, n);
  /* n parts of cu / n units each (EQUALLY would make cu / (cu / n) parts,
   * more than n where n does not divide cu) */
  cl_device_partition_property counts[64 + 3];
  counts[0] = CL_DEVICE_PARTITION_BY_COUNTS;
  for (int r = 0; r < n; ++r) counts[1 + r] = (cl_device_partition_property)(cu / (cl_uint)n);
  counts[1 + n] = CL_DEVICE_PARTITION_BY_COUNTS_LIST_END, counts[2 + n] = 0;
  cl_int err = clCreateSubDevices(dev, counts, (cl_uint)n, sub, &got);
  if (err != CL_SUCCESS || got < (cl_uint)n) {
    for (cl_uint r = 0; err == CL_SUCCESS && r < got; ++r) clReleaseDevice(sub[r]);
    return clforge__fail(NULL, CLFORGE_UNSUPPORTED,
                         "clforge_context_create_subdevices: %s's driver does not partition it into %d equal parts "
                         "(clCreateSubDevices: %s, %u parts)",
                         name, n, clforge_status_name(err), got);
  }
  /* each context keeps its sub-device's reference (some drivers' contexts
   * do not retain one) */
  for (int r = 0; r < n; ++r) {
    if (st == CLFORGE_SUCCESS) st = create_on(platform, sub[r], &out[r]);
    if (st == CLFORGE_SUCCESS) out[r]->owns_device = 1;
    else clReleaseDevice(sub[r]);
  }
  if (st != CLFORGE_SUCCESS)
    for (int r = 0; r < n; ++r) clforge_context_destroy(out[r]), out[r] = NULL;
  return st;
}

clforge_status clforge_context_create_from_queue(cl_command_queue queue, clforge_context *out) {
  clforge__clear_error(NULL);
  if (!out) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "out is NULL");
  *out = NULL;
  if (!queue) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "queue is NULL");
  cl_context cl_ctx;
  cl_device_id dev;
  cl_platform_id platform;
  cl_int err = clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof cl_ctx, &cl_ctx, NULL);
  if (err == CL_SUCCESS) err = clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL);
  if (err == CL_SUCCESS) err = clGetDeviceInfo(dev, CL_DEVICE_PLATFORM, sizeof platform, &platform, NULL);
  if (err != CL_SUCCESS) return clforge__fail_cl(NULL, err, "querying the application's command queue");
  /* Our own references: the application's stay untouched and theirs to drop.
   * Checked: a driver may treat the context as invalid once the application
   * released its last reference, queues on it notwithstanding (Intel's CPU
   * runtime does; PoCL does not), and nothing on it would work. */
  err = clRetainContext(cl_ctx);
  if (err != CL_SUCCESS)
    return clforge__fail_cl(NULL, err,
                            "retaining the command queue's OpenCL context (the application must keep its own "
                            "reference to the context while the queue is in use)");
  clforge_context ctx = calloc(1, sizeof *ctx);
  if (!ctx) {
    clReleaseContext(cl_ctx);
    return clforge__fail(NULL, CLFORGE_OUT_OF_HOST_MEMORY, "no memory for a context");
  }
  clRetainCommandQueue(queue);
  ctx->platform = platform;
  ctx->device = dev;
  ctx->cl_ctx = cl_ctx;
  ctx->queue = queue;
  return finish(ctx, out);
}

void clforge_context_destroy(clforge_context ctx) {
  if (!ctx) return;
  clforge__program_cache_report(ctx);
  clforge__program_cache_release(&ctx->programs);
  clforge__workspace_release(&ctx->workspace);
  clforge__workspace_release(&ctx->conv_workspace);
  clforge__workspace_release(&ctx->conv_bwd_workspace);
  clforge__tuning_view_release(&ctx->tuning);
  free(ctx->params_override);
  if (ctx->queue) clReleaseCommandQueue(ctx->queue);
  if (ctx->cl_ctx) clReleaseContext(ctx->cl_ctx);
  if (ctx->owns_device) clReleaseDevice(ctx->device);
  free(ctx->last_error);
  free(ctx);
}

#define CHECK_CTX_AND(ptr)                                                              \
  do {                                                                                  \
    if (!ctx) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "context is NULL");  \
    clforge__clear_error(ctx);                                                          \
    if (!(ptr)) return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, #ptr " is NULL");   \
  } while (0)

clforge_status clforge_context_queue(clforge_context ctx, cl_command_queue *queue) {
  CHECK_CTX_AND(queue);
  *queue = ctx->queue;
  return CLFORGE_SUCCESS;
}

clforge_status clforge_context_cl_context(clforge_context ctx, cl_context *cl_ctx) {
  CHECK_CTX_AND(cl_ctx);
  *cl_ctx = ctx->cl_ctx;
  return CLFORGE_SUCCESS;
}

clforge_status clforge_context_device(clforge_context ctx, cl_device_id *device) {
  CHECK_CTX_AND(device);
  *device = ctx->device;
  return CLFORGE_SUCCESS;
}

clforge_status clforge_context_device_info(clforge_context ctx, clforge_device_info *info) {
  CHECK_CTX_AND(info);
  *info = ctx->info;
  return CLFORGE_SUCCESS;
}

clforge_status clforge_context_cache_stats(clforge_context ctx, clforge_cache_stats *stats) {
  CHECK_CTX_AND(stats);
  *stats = ctx->programs.stats;
  return CLFORGE_SUCCESS;
}

clforge_status clforge_context_set_validation(clforge_context ctx, int enabled) {
  if (!ctx) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "context is NULL");
  clforge__clear_error(ctx);
  if (enabled != 0 && enabled != 1)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "enabled must be 0 or 1, got %d", enabled);
  ctx->validate = enabled;
  return CLFORGE_SUCCESS;
}

clforge_status clforge_context_get_validation(clforge_context ctx, int *enabled) {
  if (!ctx) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "context is NULL");
  clforge__clear_error(ctx);
  if (!enabled) return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "enabled is NULL");
  *enabled = ctx->validate ? 1 : 0;
  return CLFORGE_SUCCESS;
}

clforge_status clforge_context_set_compute_type(clforge_context ctx, clforge_compute_type type) {
  if (!ctx) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "context is NULL");
  clforge__clear_error(ctx);
  if ((unsigned)type > CLFORGE_COMPUTE_16F)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "unknown compute type %d", (int)type);
  ctx->compute_type = type == CLFORGE_COMPUTE_DEFAULT ? CLFORGE_COMPUTE_32F : type;
  return CLFORGE_SUCCESS;
}

clforge_compute_type clforge__context_compute_type(clforge_context ctx) { return ctx->compute_type; }

clforge_status clforge_context_get_compute_type(clforge_context ctx, clforge_compute_type *type) {
  if (!ctx) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "context is NULL");
  clforge__clear_error(ctx);
  if (!type) return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "type is NULL");
  *type = ctx->compute_type;
  return CLFORGE_SUCCESS;
}

clforge_status clforge_context_set_params(clforge_context ctx, const char *params) {
  if (!ctx) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "context is NULL");
  clforge__clear_error(ctx);
  clforge_status st = clforge__params_validate(ctx, params, clforge__all_families);
  if (st != CLFORGE_SUCCESS) return st;
  char *copy = NULL;
  if (params && *params && !(copy = strdup(params)))
    return clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "no memory for the parameter override");
  free(ctx->params_override);
  ctx->params_override = copy;
  return CLFORGE_SUCCESS;
}

clforge_status clforge_context_reload_tuning(clforge_context ctx) {
  if (!ctx) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "context is NULL");
  clforge__clear_error(ctx);
  clforge__tuning_view_release(&ctx->tuning);
  return CLFORGE_SUCCESS;
}

const char *clforge_params_source_name(clforge_params_source source) {
  switch (source) {
    case CLFORGE_PARAMS_FROM_API: return "api";
    case CLFORGE_PARAMS_FROM_ENV: return "env";
    case CLFORGE_PARAMS_FROM_TUNED: return "tuned";
    case CLFORGE_PARAMS_FROM_NEAREST: return "nearest";
    case CLFORGE_PARAMS_FROM_DEVICE_DEFAULT: return "device-default";
    case CLFORGE_PARAMS_FROM_GENERIC_DEFAULT: return "generic-default";
    case CLFORGE_PARAMS_FROM_TUNER: return "tuner";
  }
  return "unknown";
}

void clforge__test_set_fault(clforge_context ctx, const char *op_name) {
  if (!ctx) return;
  ctx->test_fault[0] = '\0';
  if (op_name) strncat(ctx->test_fault, op_name, sizeof ctx->test_fault - 1);
}

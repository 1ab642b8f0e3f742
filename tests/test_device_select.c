/* Device selection: by "P:D" index, by name substring (case-insensitive),
 * through CLFORGE_DEVICE, the default rule, and bad values. */
#include <ctype.h>

#include "test_util.h"

static cl_device_id device_of(clforge_context ctx) {
  cl_device_id d = NULL;
  clforge_context_device(ctx, &d);
  return d;
}

int main(void) {
  cl_platform_id p0;
  cl_device_id d00;
  cl_uint np = 0, nd = 0;
  if (clGetPlatformIDs(1, &p0, &np) != CL_SUCCESS || clGetDeviceIDs(p0, CL_DEVICE_TYPE_ALL, 1, &d00, &nd) != CL_SUCCESS) {
    fprintf(stderr, "no OpenCL device to test with\n");
    return 1;
  }
  char name[256];
  clGetDeviceInfo(d00, CL_DEVICE_NAME, sizeof name, name, NULL);
  unsetenv("CLFORGE_DEVICE");

  clforge_context ctx = NULL;
  CHECK_OK(NULL, clforge_context_create("0:0", &ctx));
  CHECK(ctx && device_of(ctx) == d00, "%s", "0:0 is the first device of the first platform");
  clforge_context_destroy(ctx);

  CHECK_OK(NULL, clforge_context_create(" 0:0 ", &ctx));
  clforge_context_destroy(ctx);

  /* A middle slice of the name in flipped case. */
  char sub[64];
  size_t len = strlen(name), from = len > 6 ? 2 : 0, take = len - from < 8 ? len - from : 8;
  for (size_t i = 0; i < take; ++i) {
    unsigned char c = (unsigned char)name[from + i];
    sub[i] = (char)(islower(c) ? toupper(c) : tolower(c));
  }
  sub[take] = '\0';
  CHECK_OK(NULL, clforge_context_create(sub, &ctx));
  CHECK(ctx && device_of(ctx) == d00, "substring \"%s\" of \"%s\"", sub, name);
  clforge_device_info info;
  CHECK_OK(ctx, clforge_context_device_info(ctx, &info));
  CHECK(!strcmp(info.name, name), "fingerprint name %s", info.name);
  CHECK(info.compute_units > 0 && info.max_work_group_size > 0 && info.global_mem_bytes > 0, "%s", "fingerprint numbers");
  CHECK(info.caps & CLFORGE_CAP_HALF_STORAGE, "%s", "half storage is always there");
  clforge_context_destroy(ctx);

  /* Default rule and empty selector: a GPU if any, else accelerator, else CPU. */
  CHECK_OK(NULL, clforge_context_create(NULL, &ctx));
  cl_device_type t = 0;
  clGetDeviceInfo(device_of(ctx), CL_DEVICE_TYPE, sizeof t, &t, NULL);
  cl_uint ngpu = 0;
  clGetDeviceIDs(p0, CL_DEVICE_TYPE_GPU, 0, NULL, &ngpu);
  CHECK(ngpu == 0 || (t & CL_DEVICE_TYPE_GPU), "%s", "default prefers a GPU");
  clforge_context_destroy(ctx);
  CHECK_OK(NULL, clforge_context_create("", &ctx));
  clforge_context_destroy(ctx);

  /* Through the environment. */
  setenv("CLFORGE_DEVICE", "0:0", 1);
  CHECK_OK(NULL, clforge_context_create(NULL, &ctx));
  CHECK(ctx && device_of(ctx) == d00, "%s", "CLFORGE_DEVICE=0:0");
  clforge_context_destroy(ctx);
  setenv("CLFORGE_DEVICE", sub, 1);
  CHECK_OK(NULL, clforge_context_create(NULL, &ctx));
  clforge_context_destroy(ctx);

  /* Bad values: clear status, the variable named, the devices listed, no context. */
  setenv("CLFORGE_DEVICE", "no-such-device-xyz", 1);
  ctx = (clforge_context)&ctx; /* must be reset to NULL on failure */
  CHECK_FAILS(NULL, clforge_context_create(NULL, &ctx), CLFORGE_DEVICE_NOT_FOUND, "CLFORGE_DEVICE");
  CHECK(ctx == NULL, "%s", "out is NULL after a failure");
  CHECK(strstr(clforge_last_error(NULL), name) != NULL, "%s", "the message lists the devices");
  const char *malformed[] = {"0:", ":0", "0:0:0", "-1:0", "0 :0", "+0:0"};
  for (size_t i = 0; i < sizeof malformed / sizeof malformed[0]; ++i) {
    setenv("CLFORGE_DEVICE", malformed[i], 1);
    CHECK_FAILS(NULL, clforge_context_create(NULL, &ctx), CLFORGE_INVALID_ENVIRONMENT, "P:D");
  }
  setenv("CLFORGE_DEVICE", "0:99", 1);
  CHECK_FAILS(NULL, clforge_context_create(NULL, &ctx), CLFORGE_DEVICE_NOT_FOUND, "no device 99");
  setenv("CLFORGE_DEVICE", "42:0", 1);
  CHECK_FAILS(NULL, clforge_context_create(NULL, &ctx), CLFORGE_DEVICE_NOT_FOUND, "platform 42");
  /* The argument wins over the environment, and is reported as the argument. */
  CHECK_OK(NULL, clforge_context_create("0:0", &ctx));
  clforge_context_destroy(ctx);
  CHECK_FAILS(NULL, clforge_context_create("0:", &ctx), CLFORGE_INVALID_ARGUMENT, "device argument");
  /* Digits alone are a name substring (model numbers), not an index. */
  CHECK_FAILS(NULL, clforge_context_create("98765", &ctx), CLFORGE_DEVICE_NOT_FOUND, "matches no platform or device name");
  CHECK_FAILS(NULL, clforge_context_create("nothing-like-this", &ctx), CLFORGE_DEVICE_NOT_FOUND, "device argument");
  unsetenv("CLFORGE_DEVICE");
  CHECK_FAILS(NULL, clforge_context_create(NULL, NULL), CLFORGE_INVALID_ARGUMENT, "out is NULL");
  return tu_summary();
}

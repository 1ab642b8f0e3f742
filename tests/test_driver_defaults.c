/* Driver-level built-in defaults (src/families/family.h, driver_defaults):
 * Intel's OpenCL CPU runtime is told apart from PoCL by its platform name
 * on a CPU device, and a family's driver entries apply on top of the
 * class's row only for that driver and the variants they name. No device:
 * fake device infos and a toy family. */
#include "../src/core/device.h"
#include "../src/families/family.h"
#include "test_util.h"

enum { P_A, P_B, P_C, NP };
enum { VAR_X = 1 };

static const clforge__family toy = {
    .name = "toy",
    .nparams = NP,
    .params = {[P_A] = {"A", 3, {1, 2, 4}}, [P_B] = {"B", 3, {8, 16, 32}}, [P_C] = {"C", 2, {0, 1}}},
    .defaults = {[CLFORGE_DEVICE_CLASS_GENERIC] = {1, 8, 0}, [CLFORGE_DEVICE_CLASS_CPU] = {4, 32, 1}},
    .overrides = (const clforge__default_override[]){{CLFORGE_DEVICE_CLASS_CPU, VAR_X, VAR_X, P_C, 0},
                                                     {CLFORGE_DEVICE_CLASS_GENERIC, 0, 0, -1, 0}},
    .driver_defaults = (const clforge__driver_default[]){{CLFORGE__DRIVER_INTEL_CPU, 0, 0, P_A, 1},
                                                         {CLFORGE__DRIVER_INTEL_CPU, VAR_X, VAR_X, P_B, 16},
                                                         {CLFORGE__DRIVER_OTHER, 0, 0, -1, 0}},
};

static clforge_device_info fake(const char *platform, cl_device_type type, clforge_device_class cls) {
  clforge_device_info i;
  memset(&i, 0, sizeof i);
  snprintf(i.platform_name, sizeof i.platform_name, "%s", platform);
  i.type = type;
  i.device_class = cls;
  return i;
}

static void expect(const clforge_device_info *dev, int variant, int a, int b, int c, int set) {
  int v[CLFORGE_MAX_PARAMS] = {0};
  int got = clforge__family_device_default(&toy, dev, variant, v);
  CHECK(v[P_A] == a && v[P_B] == b && v[P_C] == c && got == set,
        "%s variant %d: A=%d B=%d C=%d (%d set by the driver), want %d %d %d (%d)", dev->platform_name, variant, v[P_A],
        v[P_B], v[P_C], got, a, b, c, set);
}

int main(void) {
  const clforge_device_info intel = fake("Intel(R) OpenCL", CL_DEVICE_TYPE_CPU, CLFORGE_DEVICE_CLASS_CPU);
  const clforge_device_info pocl = fake("Portable Computing Language", CL_DEVICE_TYPE_CPU, CLFORGE_DEVICE_CLASS_CPU);
  const clforge_device_info igpu =
      fake("Intel(R) OpenCL Graphics", CL_DEVICE_TYPE_GPU, CLFORGE_DEVICE_CLASS_INTEL_GPU);
  const clforge_device_info intel_gpu_type = fake("Intel(R) OpenCL", CL_DEVICE_TYPE_GPU, CLFORGE_DEVICE_CLASS_INTEL_GPU);

  CHECK(clforge__device_driver(&intel) == CLFORGE__DRIVER_INTEL_CPU, "%s", "Intel's CPU runtime not recognised");
  CHECK(clforge__device_driver(&pocl) == CLFORGE__DRIVER_OTHER, "%s", "PoCL taken for another driver");
  CHECK(clforge__device_driver(&igpu) == CLFORGE__DRIVER_OTHER, "%s", "Intel's GPU runtime taken for the CPU one");
  CHECK(clforge__device_driver(&intel_gpu_type) == CLFORGE__DRIVER_OTHER, "%s", "a GPU device taken for the CPU runtime");

  /* PoCL: the CPU class's row and its override, nothing of the driver's. */
  expect(&pocl, 0, 4, 32, 1, 0);
  expect(&pocl, VAR_X, 4, 32, 0, 0);
  /* Intel's CPU runtime: the same, then its own entries for the variant. */
  expect(&intel, 0, 1, 32, 1, 1);
  expect(&intel, VAR_X, 1, 16, 0, 2);
  /* The class-only lookup is untouched by driver entries. */
  int v[CLFORGE_MAX_PARAMS] = {0};
  clforge__family_default(&toy, CLFORGE_DEVICE_CLASS_CPU, 0, v);
  CHECK(v[P_A] == 4 && v[P_B] == 32 && v[P_C] == 1, "class default A=%d B=%d C=%d", v[P_A], v[P_B], v[P_C]);
  return tu_summary();
}

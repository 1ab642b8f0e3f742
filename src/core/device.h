/* Device choice from a selector string ("P:D", a name substring, or default). */
#ifndef CLFORGE_SRC_DEVICE_H
#define CLFORGE_SRC_DEVICE_H

#include "clforge/clforge.h"

/* Choose a device. `selector` NULL or blank means the default rule (first
 * GPU, else accelerator, else CPU). `origin` names where the selector came
 * from, for messages ("argument", "CLFORGE_DEVICE"). Failures are recorded
 * with ctx NULL. */
/* The default device for local rank nth of a job (CLFORGE_DEVICE unset):
 * the (nth mod count)-th GPU (else accelerator) of the default kind, or the
 * default CPU device. */
clforge_status clforge__device_select_nth(int nth, cl_platform_id *platform, cl_device_id *device);

clforge_status clforge__device_select(const char *selector, const char *origin,
                                      cl_platform_id *platform, cl_device_id *device);

/* The OpenCL driver behind a device, where it matters to the built-in
 * defaults beside the device class: Intel's OpenCL CPU runtime runs a CPU
 * (class CPU, like PoCL) but vectorizes across work-items like a GPU's
 * SIMD lanes, so a kernel shape measured best under PoCL need not be best
 * there (docs/tuning.md, "Driver-level defaults"). Internal: derived from
 * the public clforge_device_info, which stays as it is. */
typedef enum clforge__driver {
  CLFORGE__DRIVER_OTHER = 0,     /* every driver without defaults of its own */
  CLFORGE__DRIVER_INTEL_CPU = 1, /* platform "Intel(R) OpenCL" on a CPU device */
  CLFORGE__DRIVER_COUNT
} clforge__driver;

clforge__driver clforge__device_driver(const clforge_device_info *info);

/* "intel-cpu", "other": for messages. */
const char *clforge__driver_name(clforge__driver driver);

/* Installation hint used whenever no OpenCL platform or device is found. */
#define CLFORGE_INSTALL_HINT                                                              \
  "install an OpenCL driver (ICD): on Debian/Ubuntu `apt-get install pocl-opencl-icd` " \
  "for the CPU, or your GPU vendor's OpenCL ICD (nvidia-opencl-icd, mesa-opencl-icd, "   \
  "intel-opencl-icd); `clinfo -l` lists what the ICD loader finds"

#endif

/* Device choice from a selector string ("P:D", a name substring, or default). */
#ifndef CLFORGE_SRC_DEVICE_H
#define CLFORGE_SRC_DEVICE_H

#include "clforge/clforge.h"

/* Choose a device. `selector` NULL or blank means the default rule (first
 * GPU, else accelerator, else CPU). `origin` names where the selector came
 * from, for messages ("argument", "CLFORGE_DEVICE"). Failures are recorded
 * with ctx NULL. */
clforge_status clforge__device_select(const char *selector, const char *origin,
                                      cl_platform_id *platform, cl_device_id *device);

/* Installation hint used whenever no OpenCL platform or device is found. */
#define CLFORGE_INSTALL_HINT                                                              \
  "install an OpenCL driver (ICD): on Debian/Ubuntu `apt-get install pocl-opencl-icd` " \
  "for the CPU, or your GPU vendor's OpenCL ICD (nvidia-opencl-icd, mesa-opencl-icd, "   \
  "intel-opencl-icd); `clinfo -l` lists what the ICD loader finds"

#endif

/* Status codes: clforge's from CLFORGE_STATUS_LIST, OpenCL's from the list
 * below; each name and message is written once. */
#include "clforge/clforge.h"

#include <stddef.h>

/* OpenCL 1.0-3.0 core codes and the ICD loader's "no platform" code. */
#define CLFORGE_CL_STATUS_LIST(X)                                                    \
  X(CL_SUCCESS, 0, "success")                                                        \
  X(CL_DEVICE_NOT_FOUND, -1, "OpenCL device not found")                              \
  X(CL_DEVICE_NOT_AVAILABLE, -2, "OpenCL device not available")                      \
  X(CL_COMPILER_NOT_AVAILABLE, -3, "OpenCL compiler not available")                  \
  X(CL_MEM_OBJECT_ALLOCATION_FAILURE, -4, "device memory allocation failed")         \
  X(CL_OUT_OF_RESOURCES, -5, "device out of resources")                              \
  X(CL_OUT_OF_HOST_MEMORY, -6, "OpenCL implementation out of host memory")           \
  X(CL_PROFILING_INFO_NOT_AVAILABLE, -7, "profiling information not available")      \
  X(CL_MEM_COPY_OVERLAP, -8, "overlapping memory copy")                              \
  X(CL_IMAGE_FORMAT_MISMATCH, -9, "image format mismatch")                           \
  X(CL_IMAGE_FORMAT_NOT_SUPPORTED, -10, "image format not supported")                \
  X(CL_BUILD_PROGRAM_FAILURE, -11, "OpenCL program build failure")                   \
  X(CL_MAP_FAILURE, -12, "map failure")                                              \
  X(CL_MISALIGNED_SUB_BUFFER_OFFSET, -13, "misaligned sub-buffer offset")            \
  X(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, -14, "an event in the wait list failed") \
  X(CL_COMPILE_PROGRAM_FAILURE, -15, "OpenCL program compile failure")               \
  X(CL_LINKER_NOT_AVAILABLE, -16, "OpenCL linker not available")                     \
  X(CL_LINK_PROGRAM_FAILURE, -17, "OpenCL program link failure")                     \
  X(CL_DEVICE_PARTITION_FAILED, -18, "device partition failed")                      \
  X(CL_KERNEL_ARG_INFO_NOT_AVAILABLE, -19, "kernel argument info not available")     \
  X(CL_INVALID_VALUE, -30, "invalid value")                                          \
  X(CL_INVALID_DEVICE_TYPE, -31, "invalid device type")                              \
  X(CL_INVALID_PLATFORM, -32, "invalid platform")                                    \
  X(CL_INVALID_DEVICE, -33, "invalid device")                                        \
  X(CL_INVALID_CONTEXT, -34, "invalid OpenCL context")                               \
  X(CL_INVALID_QUEUE_PROPERTIES, -35, "invalid queue properties")                    \
  X(CL_INVALID_COMMAND_QUEUE, -36, "invalid command queue")                          \
  X(CL_INVALID_HOST_PTR, -37, "invalid host pointer")                                \
  X(CL_INVALID_MEM_OBJECT, -38, "invalid memory object")                             \
  X(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, -39, "invalid image format descriptor")      \
  X(CL_INVALID_IMAGE_SIZE, -40, "invalid image size")                                \
  X(CL_INVALID_SAMPLER, -41, "invalid sampler")                                      \
  X(CL_INVALID_BINARY, -42, "invalid program binary")                                \
  X(CL_INVALID_BUILD_OPTIONS, -43, "invalid build options")                          \
  X(CL_INVALID_PROGRAM, -44, "invalid program")                                      \
  X(CL_INVALID_PROGRAM_EXECUTABLE, -45, "invalid program executable")                \
  X(CL_INVALID_KERNEL_NAME, -46, "invalid kernel name")                              \
  X(CL_INVALID_KERNEL_DEFINITION, -47, "invalid kernel definition")                  \
  X(CL_INVALID_KERNEL, -48, "invalid kernel")                                        \
  X(CL_INVALID_ARG_INDEX, -49, "invalid kernel argument index")                      \
  X(CL_INVALID_ARG_VALUE, -50, "invalid kernel argument value")                      \
  X(CL_INVALID_ARG_SIZE, -51, "invalid kernel argument size")                        \
  X(CL_INVALID_KERNEL_ARGS, -52, "invalid kernel arguments")                         \
  X(CL_INVALID_WORK_DIMENSION, -53, "invalid work dimension")                        \
  X(CL_INVALID_WORK_GROUP_SIZE, -54, "invalid work-group size")                      \
  X(CL_INVALID_WORK_ITEM_SIZE, -55, "invalid work-item size")                        \
  X(CL_INVALID_GLOBAL_OFFSET, -56, "invalid global offset")                          \
  X(CL_INVALID_EVENT_WAIT_LIST, -57, "invalid event wait list")                      \
  X(CL_INVALID_EVENT, -58, "invalid event")                                          \
  X(CL_INVALID_OPERATION, -59, "invalid operation")                                  \
  X(CL_INVALID_GL_OBJECT, -60, "invalid GL object")                                  \
  X(CL_INVALID_BUFFER_SIZE, -61, "invalid buffer size")                              \
  X(CL_INVALID_MIP_LEVEL, -62, "invalid mip level")                                  \
  X(CL_INVALID_GLOBAL_WORK_SIZE, -63, "invalid global work size")                    \
  X(CL_INVALID_PROPERTY, -64, "invalid property")                                    \
  X(CL_INVALID_IMAGE_DESCRIPTOR, -65, "invalid image descriptor")                    \
  X(CL_INVALID_COMPILER_OPTIONS, -66, "invalid compiler options")                    \
  X(CL_INVALID_LINKER_OPTIONS, -67, "invalid linker options")                        \
  X(CL_INVALID_DEVICE_PARTITION_COUNT, -68, "invalid device partition count")        \
  X(CL_INVALID_PIPE_SIZE, -69, "invalid pipe size")                                  \
  X(CL_INVALID_DEVICE_QUEUE, -70, "invalid device queue")                            \
  X(CL_INVALID_SPEC_ID, -71, "invalid specialization constant id")                   \
  X(CL_MAX_SIZE_RESTRICTION_EXCEEDED, -72, "maximum size restriction exceeded")      \
  X(CL_PLATFORM_NOT_FOUND_KHR, -1001, "no OpenCL platform found (is an ICD installed?)")

typedef struct {
  clforge_status code;
  const char *name;
  const char *message;
} status_entry;

static const status_entry entries[] = {
#define CLFORGE_CL_ENTRY_(name, value, msg) {value, #name, msg},
    CLFORGE_CL_STATUS_LIST(CLFORGE_CL_ENTRY_)
#undef CLFORGE_CL_ENTRY_
#define CLFORGE_OWN_ENTRY_(name, off, msg) {CLFORGE_STATUS_BASE + (off), #name, msg},
    CLFORGE_STATUS_LIST(CLFORGE_OWN_ENTRY_)
#undef CLFORGE_OWN_ENTRY_
};

static const status_entry *find(clforge_status status) {
  for (size_t i = 0; i < sizeof entries / sizeof entries[0]; ++i)
    if (entries[i].code == status) return &entries[i];
  return NULL;
}

const char *clforge_status_string(clforge_status status) {
  const status_entry *e = find(status);
  return e ? e->message : "unknown status code";
}

const char *clforge_status_name(clforge_status status) {
  const status_entry *e = find(status);
  return e ? e->name : "CLFORGE_UNKNOWN_STATUS";
}

/* What `clforge info` reports on: the ICD loader, clforge's files, and every
 * OpenCL platform and device with clforge's fingerprint of it and the device
 * clforge picks by default. Gathered once, printed by info.c. */
#ifndef CLFORGE_TOOLS_INVENTORY_H
#define CLFORGE_TOOLS_INVENTORY_H

#include <clforge/clforge.h>

#include "transfer_bandwidth.h"

typedef struct {
  char name[128], version[128], vendor[128], ocl_version[128]; /* "" = unknown */
  char library[4096];
} loader_info;

typedef struct {
  const char *key;   /* JSON key */
  const char *label; /* human label */
  clforge_path_kind kind;
  int is_dir;
  char path[4096];
  int ok;            /* clforge_path succeeded */
  const char *state; /* "exists", "not found", "disabled", ... */
  int exists;
} path_entry;

typedef struct {
  cl_device_id id;
  cl_uint index;
  int query_ok;
  char query_error[512];
  clforge_device_info info;
  bw_report bw;
} device_entry;

typedef struct {
  cl_platform_id id;
  cl_uint index;
  char name[256], vendor[256], version[256];
  cl_int devices_err; /* clGetDeviceIDs failure other than "none" */
  cl_uint ndevices;
  device_entry *devices;
} platform_entry;

typedef struct {
  cl_int err; /* clGetPlatformIDs */
  cl_uint nplatforms;
  platform_entry *platforms;
  size_t total_devices;
  cl_device_id default_device; /* NULL if none */
  char default_error[1024];
} system_info;

/* The ICD loader's name, version, vendor and library file ("" = unknown). */
void inventory_loader(loader_info *li);
/* Fill each entry's path and state from its kind. */
void inventory_paths(path_entry *p, size_t n);
/* Every platform and device, and the default device (honours CLFORGE_DEVICE).
 * Returns 0, or -1 when out of host memory; free with inventory_free either way. */
int inventory_scan(system_info *s);
void inventory_free(system_info *s);
/* The error message when nothing usable is found (with the install hint), or NULL. */
const char *inventory_no_device_message(const system_info *s, char *buf, size_t cap);

#endif

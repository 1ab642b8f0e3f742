/* `clforge info [--json] [--no-bandwidth] [--bytes N]`: the inventory
 * (inventory.c) and transfer bandwidth (transfer_bandwidth.c) as a listing
 * or as one JSON object. */
#include "info.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "inventory.h"
#include "transfer_bandwidth.h"

static const char *type_string(cl_device_type t, char *buf, size_t cap) {
  static const struct {
    cl_device_type bit;
    const char *name;
  } names[] = {{CL_DEVICE_TYPE_CPU, "CPU"},
               {CL_DEVICE_TYPE_GPU, "GPU"},
               {CL_DEVICE_TYPE_ACCELERATOR, "accelerator"},
               {CL_DEVICE_TYPE_CUSTOM, "custom"},
               {CL_DEVICE_TYPE_DEFAULT, "default"}};
  buf[0] = '\0';
  size_t used = 0;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
    if (!(t & names[i].bit)) continue;
    int w = snprintf(buf + used, cap - used, "%s%s", used ? "|" : "", names[i].name);
    if (w < 0 || (size_t)w >= cap - used) break;
    used += (size_t)w;
  }
  if (!buf[0]) snprintf(buf, cap, "unknown");
  return buf;
}

static const char *const clforge_env_vars[] = {"CLFORGE_DEVICE", "CLFORGE_CACHE_DIR", "CLFORGE_TUNING_FILE",
                                               "CLFORGE_SYSTEM_TUNING_FILE",
                                               "CLFORGE_LOG",      "CLFORGE_VALIDATE",  "CLFORGE_PARAMS"};
static const char *const loader_env_vars[] = {"OCL_ICD_VENDORS", "OCL_ICD_FILENAMES"};

typedef struct {
  int json;
  int bandwidth;
  unsigned long long bytes;
} info_options;

static const struct {
  unsigned bit;
  const char *json;
  const char *label;
} cap_names[] = {{CLFORGE_CAP_HALF_STORAGE, "half_storage", "half storage"},
                 {CLFORGE_CAP_FP16, "cl_khr_fp16", "cl_khr_fp16"},
                 {CLFORGE_CAP_FP64, "cl_khr_fp64", "fp64"},
                 {CLFORGE_CAP_SUBGROUPS_KHR, "cl_khr_subgroups", "cl_khr_subgroups"},
                 {CLFORGE_CAP_SUBGROUPS_INTEL, "cl_intel_subgroups", "cl_intel_subgroups"},
                 {CLFORGE_CAP_INTEGER_DOT, "cl_khr_integer_dot_product", "cl_khr_integer_dot_product"}};

void clforge_cli_info_help(FILE *f) {
  fprintf(f,
          "usage: clforge info [--json] [--no-bandwidth] [--bytes N]\n"
          "\n"
          "List every OpenCL platform and device with clforge's fingerprint of it,\n"
          "mark the device clforge picks by default, and show the ICD loader,\n"
          "clforge's files and environment, and host<->device transfer bandwidth.\n"
          "\n"
          "Options:\n"
          "  --json          print one JSON object instead of the listing\n"
          "  --no-bandwidth  skip the bandwidth measurement\n"
          "  --bytes N       bytes per transfer (default 64M; suffixes K, M, G);\n"
          "                  clamped to half the device's largest allocation\n"
          "  -h, --help      show this help\n"
          "\n"
          "Device indices are shown as P:D, the form CLFORGE_DEVICE accepts.\n"
          "Exit status: 0 on success, 1 when no OpenCL platform or device is found,\n"
          "2 on a usage error.\n");
}

/* --- human output --- */

/* Values start in one column whatever the indent of their label. */
#define VALUE_COL 32

static void line(const char *indent, const char *label, const char *value) {
  int w = VALUE_COL - (int)strlen(indent);
  if (!value || !value[0]) printf("%s%s\n", indent, label);
  else printf("%s%-*s %s\n", indent, w > 0 ? w : 0, label, value);
}

static void print_bw_cell(const bw_number *n, char *buf, size_t cap) {
  if (n->ok) snprintf(buf, cap, "%.2f GB/s", n->gbps);
  else snprintf(buf, cap, "n/a (%s)", n->why);
}

static void print_header(const loader_info *li, const path_entry *paths, size_t npaths) {
  char buf[8192];
  printf("clforge %s\n\n", clforge_version());
  if (li->name[0] || li->version[0]) {
    snprintf(buf, sizeof buf, "%s %s", li->name[0] ? li->name : "unknown", li->version[0] ? li->version : "");
    line("", "ICD loader", buf);
    line("", "  vendor", li->vendor[0] ? li->vendor : "unknown");
    line("", "  supports", li->ocl_version[0] ? li->ocl_version : "unknown");
  } else
    line("", "ICD loader", "unknown");
  line("", "  library", li->library[0] ? li->library : "unknown");
  for (size_t i = 0; i < CLI_COUNT(loader_env_vars); ++i) {
    const char *v = getenv(loader_env_vars[i]);
    if (v) {
      snprintf(buf, sizeof buf, "  %s", loader_env_vars[i]);
      line("", buf, v);
    }
  }
  for (size_t i = 0; i < npaths; ++i) {
    snprintf(buf, sizeof buf, "%s (%s)", paths[i].path, paths[i].state);
    line("", paths[i].label, buf);
  }
  int any = 0;
  for (size_t i = 0; i < CLI_COUNT(clforge_env_vars); ++i) {
    const char *v = getenv(clforge_env_vars[i]);
    if (!v) continue;
    snprintf(buf, sizeof buf, "%s=%s", clforge_env_vars[i], v);
    line("", any ? "" : "Environment", buf);
    any = 1;
  }
  if (!any) line("", "Environment", "(no CLFORGE_* variable set)");
  fflush(stdout);
}

/* Whether the default device uses the binary cache: a context on it says
 * (on PoCL clforge's cache stands aside for PoCL's own kernel cache). */
static void binary_cache_on_default_device(const system_info *s, path_entry *cache) {
  if (!s->default_device || strcmp(cache->state, "disabled") == 0 || !cache->ok) return;
  char sel[32] = "";
  for (cl_uint p = 0; p < s->nplatforms && !sel[0]; ++p)
    for (cl_uint d = 0; d < s->platforms[p].ndevices; ++d)
      if (s->platforms[p].devices[d].id == s->default_device) {
        snprintf(sel, sizeof sel, "%u:%u", s->platforms[p].index, s->platforms[p].devices[d].index);
        break;
      }
  clforge_context ctx = NULL;
  clforge_cache_stats st;
  if (!sel[0] || clforge_context_create(sel, &ctx) != CLFORGE_SUCCESS) return;
  if (clforge_context_cache_stats(ctx, &st) == CLFORGE_SUCCESS && !st.disk_enabled)
    cache->state = "not used on the default device: PoCL's own kernel cache serves; CLFORGE_CACHE_DIR=DIR uses it";
  clforge_context_destroy(ctx);
}

static void print_device(const system_info *s, const platform_entry *pe, device_entry *de, const info_options *o) {
  char buf[1024], a[300];
  const clforge_device_info *i = &de->info;
  int is_default = s->default_device && de->id == s->default_device;
  if (!de->query_ok) {
    printf("\n  Device %u:%u%s  (fingerprint unavailable: %s)\n", pe->index, de->index,
           is_default ? "  [default]" : "", de->query_error);
  } else {
    printf("\n  Device %u:%u  %s%s\n", pe->index, de->index, clforge_cli_clean(i->name, a, sizeof a),
           is_default ? "  [default]" : "");
    const char *in = "    ";
    line(in, "Vendor", clforge_cli_clean(i->vendor, a, sizeof a));
    const char *cls = clforge_device_class_name(i->device_class);
    line(in, "Class", cls ? cls : "unknown");
    line(in, "Type", type_string(i->type, a, sizeof a));
    line(in, "Driver version", clforge_cli_clean(i->driver_version, a, sizeof a));
    line(in, "OpenCL version", clforge_cli_clean(i->opencl_version, a, sizeof a));
    line(in, "OpenCL C version", clforge_cli_clean(i->opencl_c_version, a, sizeof a));
    snprintf(buf, sizeof buf, "%u", i->compute_units);
    line(in, "Compute units", buf);
    snprintf(buf, sizeof buf, "%u MHz", i->max_clock_mhz);
    line(in, "Clock", buf);
    snprintf(buf, sizeof buf, "%s (%llu bytes)", clforge_cli_human_bytes(i->global_mem_bytes, a, sizeof a),
             (unsigned long long)i->global_mem_bytes);
    line(in, "Global memory", buf);
    snprintf(buf, sizeof buf, "%s (%llu bytes)", clforge_cli_human_bytes(i->max_alloc_bytes, a, sizeof a),
             (unsigned long long)i->max_alloc_bytes);
    line(in, "Max allocation", buf);
    snprintf(buf, sizeof buf, "%s (%llu bytes)", clforge_cli_human_bytes(i->local_mem_bytes, a, sizeof a),
             (unsigned long long)i->local_mem_bytes);
    line(in, "Local memory", buf);
    snprintf(buf, sizeof buf, "%zu", i->max_work_group_size);
    line(in, "Max work-group size", buf);
    line(in, "Capabilities", "");
    for (size_t k = 0; k < CLI_COUNT(cap_names); ++k)
      line("      ", cap_names[k].label, (i->caps & cap_names[k].bit) ? "yes" : "no");
  }
  fflush(stdout);
  if (!o->bandwidth) return;
  transfer_bandwidth_measure(de->id, de->query_ok ? &de->info : NULL, o->bytes, &de->bw);
  char c1[256], c2[256];
  snprintf(buf, sizeof buf, "Bandwidth (%s)", clforge_cli_human_bytes(de->bw.bytes, a, sizeof a));
  line("    ", buf, "");
  print_bw_cell(&de->bw.pageable_h2d, c1, sizeof c1);
  print_bw_cell(&de->bw.pageable_d2h, c2, sizeof c2);
  snprintf(buf, sizeof buf, "host->device %-14s device->host %s", c1, c2);
  line("      ", "pageable", buf);
  print_bw_cell(&de->bw.pinned_h2d, c1, sizeof c1);
  print_bw_cell(&de->bw.pinned_d2h, c2, sizeof c2);
  snprintf(buf, sizeof buf, "host->device %-14s device->host %s", c1, c2);
  line("      ", "pinned", buf);
  fflush(stdout);
}

/* --- JSON output --- */

static cJSON *json_header(const loader_info *li, const path_entry *paths, size_t npaths) {
  cJSON *root = cJSON_CreateObject();
  cJSON_AddStringToObject(root, "clforge_version", clforge_version());
  cJSON *l = cJSON_AddObjectToObject(root, "icd_loader");
  clforge_cli_json_add_str(l, "name", li->name);
  clforge_cli_json_add_str(l, "version", li->version);
  clforge_cli_json_add_str(l, "vendor", li->vendor);
  clforge_cli_json_add_str(l, "opencl_version", li->ocl_version);
  clforge_cli_json_add_str(l, "library", li->library);
  cJSON *le = cJSON_AddObjectToObject(l, "environment");
  for (size_t i = 0; i < CLI_COUNT(loader_env_vars); ++i)
    cJSON_AddItemToObject(le, loader_env_vars[i], getenv(loader_env_vars[i])
                                                      ? cJSON_CreateString(getenv(loader_env_vars[i]))
                                                      : cJSON_CreateNull());
  cJSON *p = cJSON_AddObjectToObject(root, "paths");
  for (size_t i = 0; i < npaths; ++i) {
    cJSON *e = cJSON_AddObjectToObject(p, paths[i].key);
    cJSON_AddStringToObject(e, "path", paths[i].path);
    cJSON_AddBoolToObject(e, "exists", paths[i].exists);
    cJSON_AddStringToObject(e, "state", paths[i].state);
  }
  cJSON *env = cJSON_AddObjectToObject(root, "environment");
  for (size_t i = 0; i < CLI_COUNT(clforge_env_vars); ++i) {
    const char *v = getenv(clforge_env_vars[i]);
    cJSON_AddItemToObject(env, clforge_env_vars[i], v ? cJSON_CreateString(v) : cJSON_CreateNull());
  }
  return root;
}

static void json_bw_number(cJSON *obj, cJSON *errors, const char *key, const bw_number *n, int measured) {
  if (measured && n->ok) cJSON_AddNumberToObject(obj, key, n->gbps);
  else cJSON_AddNullToObject(obj, key);
  if (measured && !n->ok) cJSON_AddStringToObject(errors, key, n->why);
}

static cJSON *json_device(const system_info *s, const platform_entry *pe, const device_entry *de) {
  char buf[300];
  const clforge_device_info *i = &de->info;
  cJSON *d = cJSON_CreateObject();
  snprintf(buf, sizeof buf, "%u:%u", pe->index, de->index);
  cJSON_AddStringToObject(d, "index", buf);
  cJSON_AddNumberToObject(d, "platform_index", pe->index);
  cJSON_AddNumberToObject(d, "device_index", de->index);
  cJSON_AddBoolToObject(d, "default", s->default_device && de->id == s->default_device);
  if (!de->query_ok) {
    cJSON_AddStringToObject(d, "error", de->query_error);
  } else {
    clforge_cli_json_add_str(d, "name", i->name);
    clforge_cli_json_add_str(d, "vendor", i->vendor);
    clforge_cli_json_add_str(d, "platform_name", i->platform_name);
    clforge_cli_json_add_str(d, "platform_version", i->platform_version);
    clforge_cli_json_add_str(d, "device_class", clforge_device_class_name(i->device_class));
    cJSON_AddStringToObject(d, "type", type_string(i->type, buf, sizeof buf));
    clforge_cli_json_add_str(d, "driver_version", i->driver_version);
    clforge_cli_json_add_str(d, "opencl_version", i->opencl_version);
    clforge_cli_json_add_str(d, "opencl_c_version", i->opencl_c_version);
    cJSON_AddNumberToObject(d, "compute_units", i->compute_units);
    cJSON_AddNumberToObject(d, "max_clock_mhz", i->max_clock_mhz);
    cJSON_AddNumberToObject(d, "global_mem_bytes", (double)i->global_mem_bytes);
    cJSON_AddNumberToObject(d, "max_alloc_bytes", (double)i->max_alloc_bytes);
    cJSON_AddNumberToObject(d, "local_mem_bytes", (double)i->local_mem_bytes);
    cJSON_AddNumberToObject(d, "max_work_group_size", (double)i->max_work_group_size);
    cJSON *caps = cJSON_AddObjectToObject(d, "capabilities");
    for (size_t k = 0; k < CLI_COUNT(cap_names); ++k)
      cJSON_AddBoolToObject(caps, cap_names[k].json, (i->caps & cap_names[k].bit) != 0);
  }
  const bw_report *r = &de->bw;
  cJSON *bw = cJSON_AddObjectToObject(d, "bandwidth");
  if (r->measured) cJSON_AddNumberToObject(bw, "bytes", (double)r->bytes);
  else cJSON_AddNullToObject(bw, "bytes");
  cJSON *errors = cJSON_CreateObject();
  json_bw_number(bw, errors, "pageable_host_to_device_gbps", &r->pageable_h2d, r->measured);
  json_bw_number(bw, errors, "pageable_device_to_host_gbps", &r->pageable_d2h, r->measured);
  json_bw_number(bw, errors, "pinned_host_to_device_gbps", &r->pinned_h2d, r->measured);
  json_bw_number(bw, errors, "pinned_device_to_host_gbps", &r->pinned_d2h, r->measured);
  if (cJSON_GetArraySize(errors) > 0) cJSON_AddItemToObject(bw, "errors", errors);
  else cJSON_Delete(errors);
  return d;
}

int clforge_cli_info(int argc, char **argv) {
  info_options o = {0, 1, BW_DEFAULT_BYTES};
  for (int a = 1; a < argc; ++a) {
    const char *arg = argv[a];
    if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
      clforge_cli_info_help(stdout);
      return 0;
    } else if (!strcmp(arg, "--json")) {
      o.json = 1;
    } else if (!strcmp(arg, "--no-bandwidth")) {
      o.bandwidth = 0;
    } else if (!strcmp(arg, "--bytes") || !strncmp(arg, "--bytes=", 8)) {
      const char *v = arg[7] == '=' ? arg + 8 : (a + 1 < argc ? argv[++a] : NULL);
      if (!v) {
        fprintf(stderr, "clforge info: --bytes needs a value\nRun 'clforge info --help' for usage.\n");
        return EXIT_USAGE;
      }
      if (clforge_cli_parse_bytes(v, &o.bytes)) {
        fprintf(stderr,
                "clforge info: --bytes \"%s\" is not a positive size (e.g. 4194304, 4M, 1G)\n"
                "Run 'clforge info --help' for usage.\n",
                v);
        return EXIT_USAGE;
      }
    } else {
      fprintf(stderr, "clforge info: unknown %s '%s'\nRun 'clforge info --help' for usage.\n",
              arg[0] == '-' ? "option" : "argument", arg);
      return EXIT_USAGE;
    }
  }

  loader_info li;
  inventory_loader(&li);
  path_entry paths[] = {
      {"binary_cache", "Binary cache", CLFORGE_PATH_BINARY_CACHE, 1, "", 0, "", 0},
      {"tuning_file", "User tuning file", CLFORGE_PATH_TUNING_FILE, 0, "", 0, "", 0},
      {"system_tuning_file", "System tuning file", CLFORGE_PATH_SYSTEM_TUNING_FILE, 0, "", 0, "", 0},
  };
  inventory_paths(paths, CLI_COUNT(paths));

  system_info s;
  if (inventory_scan(&s) < 0) {
    fprintf(stderr, "clforge: out of host memory\n");
    inventory_free(&s);
    return 1;
  }
  char errbuf[1024];
  const char *fatal = inventory_no_device_message(&s, errbuf, sizeof errbuf);
  int rc = fatal ? 1 : 0;
  binary_cache_on_default_device(&s, &paths[0]);

  if (o.json) {
    cJSON *root = json_header(&li, paths, CLI_COUNT(paths));
    cJSON *def = cJSON_CreateNull();
    cJSON *plats = cJSON_CreateArray();
    for (cl_uint p = 0; p < s.nplatforms; ++p) {
      platform_entry *pe = &s.platforms[p];
      cJSON *pj = cJSON_CreateObject();
      cJSON_AddNumberToObject(pj, "index", pe->index);
      clforge_cli_json_add_str(pj, "name", pe->name);
      clforge_cli_json_add_str(pj, "vendor", pe->vendor);
      clforge_cli_json_add_str(pj, "version", pe->version);
      if (pe->devices_err != CL_SUCCESS)
        cJSON_AddStringToObject(pj, "error", clforge_status_name(pe->devices_err));
      cJSON *devs = cJSON_AddArrayToObject(pj, "devices");
      for (cl_uint d = 0; d < pe->ndevices; ++d) {
        device_entry *de = &pe->devices[d];
        if (o.bandwidth) transfer_bandwidth_measure(de->id, de->query_ok ? &de->info : NULL, o.bytes, &de->bw);
        if (s.default_device && de->id == s.default_device) {
          snprintf(errbuf, sizeof errbuf, "%u:%u", pe->index, de->index);
          cJSON_Delete(def);
          def = cJSON_CreateString(errbuf);
        }
        cJSON_AddItemToArray(devs, json_device(&s, pe, de));
      }
      cJSON_AddItemToArray(plats, pj);
    }
    cJSON_AddItemToObject(root, "default_device", def);
    if (s.default_error[0]) cJSON_AddStringToObject(root, "default_device_error", s.default_error);
    if (o.bandwidth) cJSON_AddNumberToObject(root, "bandwidth_bytes_requested", (double)o.bytes);
    else cJSON_AddNullToObject(root, "bandwidth_bytes_requested");
    cJSON_AddItemToObject(root, "platforms", plats);
    if (fatal) cJSON_AddStringToObject(root, "error", fatal);
    if (clforge_cli_print_json(root)) rc = 1;
    if (fatal) fprintf(stderr, "clforge: %s\n", fatal);
    inventory_free(&s);
    return rc;
  }

  print_header(&li, paths, CLI_COUNT(paths));
  if (fatal) {
    fflush(stdout);
    fprintf(stderr, "\nclforge: %s\n", fatal);
    inventory_free(&s);
    return rc;
  }
  {
    char buf[1400], a[300];
    buf[0] = '\0';
    for (cl_uint p = 0; p < s.nplatforms && !buf[0]; ++p)
      for (cl_uint d = 0; d < s.platforms[p].ndevices; ++d)
        if (s.default_device && s.platforms[p].devices[d].id == s.default_device) {
          snprintf(buf, sizeof buf, "%u:%u  %s", p, d,
                   clforge_cli_clean(s.platforms[p].devices[d].info.name, a, sizeof a));
          break;
        }
    if (!buf[0]) snprintf(buf, sizeof buf, "none (%s)", s.default_error[0] ? s.default_error : "unknown");
    line("", "Default device", buf);
  }
  for (cl_uint p = 0; p < s.nplatforms; ++p) {
    platform_entry *pe = &s.platforms[p];
    printf("\nPlatform %u  %s\n", pe->index, pe->name[0] ? pe->name : "(unnamed)");
    line("  ", "Vendor", pe->vendor[0] ? pe->vendor : "unknown");
    line("  ", "Version", pe->version[0] ? pe->version : "unknown");
    if (pe->devices_err != CL_SUCCESS) {
      char buf[256];
      snprintf(buf, sizeof buf, "none (clGetDeviceIDs: %s)", clforge_status_name(pe->devices_err));
      line("  ", "Devices", buf);
    } else if (pe->ndevices == 0)
      line("  ", "Devices", "none");
    for (cl_uint d = 0; d < pe->ndevices; ++d) print_device(&s, pe, &pe->devices[d], &o);
  }
  inventory_free(&s);
  return rc;
}

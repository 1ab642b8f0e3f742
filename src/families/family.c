#include "family.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/compute_type.h"
#include "../core/context.h"
#include "../core/device.h"
#include "../core/error.h"
#include "../core/log.h"
#include "../core/tuning_file.h"

int clforge__family_check(const clforge__family *f, const int *values, const clforge_device_info *dev,
                          char *why, size_t why_cap) {
  for (int p = 0; p < f->nparams; ++p) {
    int ok = 0;
    for (int c = 0; c < f->params[p].count; ++c) ok |= f->params[p].values[c] == values[p];
    if (!ok) {
      snprintf(why, why_cap, "%s=%d is not a candidate value of family %s", f->params[p].name, values[p], f->name);
      return 0;
    }
  }
  return f->allowed ? f->allowed(values, dev, why, why_cap) : 1;
}

int clforge__family_options(const clforge__family *f, const int *values, char *buf, size_t cap) {
  size_t used = 0;
  buf[0] = '\0';
  for (int p = 0; p < f->nparams; ++p) {
    int n = snprintf(buf + used, cap - used, "%s-D%s=%d", p ? " " : "", f->params[p].name, values[p]);
    if (n < 0 || (size_t)n >= cap - used) return -1;
    used += (size_t)n;
  }
  return 0;
}

int clforge__family_parse_params(const clforge__family *f, const char *env, int *values, char *why, size_t why_cap) {
  size_t flen = strlen(f->name);
  for (const char *e = env; e && *e;) {
    while (*e == ';' || isspace((unsigned char)*e)) ++e;
    const char *end = strchr(e, ';');
    if (!end) end = e + strlen(e);
    if ((size_t)(end - e) > flen && !strncmp(e, f->name, flen) && e[flen] == ':') {
      for (const char *q = e + flen + 1; q < end;) {
        while (q < end && (*q == ',' || isspace((unsigned char)*q))) ++q;
        if (q >= end) break;
        int p = 0;
        for (; p < f->nparams; ++p) {
          size_t nlen = strlen(f->params[p].name);
          if (!strncmp(q, f->params[p].name, nlen) && q[nlen] == '=') break;
        }
        if (p == f->nparams) {
          snprintf(why, why_cap, "unknown parameter at \"%.*s\" for family %s", (int)(end - q), q,
                   f->name);
          return -1;
        }
        char *num_end;
        errno = 0;
        long v = strtol(q + strlen(f->params[p].name) + 1, &num_end, 10);
        if (num_end == q + strlen(f->params[p].name) + 1 || errno || v < INT_MIN || v > INT_MAX ||
            (num_end < end && *num_end != ',' && !isspace((unsigned char)*num_end))) {
          snprintf(why, why_cap, "%s needs an integer value", f->params[p].name);
          return -1;
        }
        values[p] = (int)v;
        q = num_end;
      }
      return 1;
    }
    e = end;
  }
  return 0;
}

void clforge__family_canonical(const clforge__family *f, int *values) {
  if (f->canonical) f->canonical(values);
}

void clforge__family_default(const clforge__family *f, clforge_device_class cls, int variant, int *values) {
  memcpy(values, f->defaults[cls], sizeof(int) * (size_t)f->nparams);
  for (const clforge__default_override *o = f->overrides; o && o->param >= 0; ++o)
    if (o->device_class == cls && (variant & o->variant_mask) == o->variant_bits) values[o->param] = o->value;
  clforge__family_canonical(f, values);
}

int clforge__family_device_default(const clforge__family *f, const clforge_device_info *dev, int variant,
                                   int *values) {
  clforge__family_default(f, dev->device_class, variant, values);
  const int driver = (int)clforge__device_driver(dev);
  int set = 0;
  for (const clforge__driver_default *d = f->driver_defaults; d && d->param >= 0; ++d)
    if (d->driver == driver && (variant & d->variant_mask) == d->variant_bits) values[d->param] = d->value, ++set;
  if (set) clforge__family_canonical(f, values);
  return set;
}

void clforge__family_format(const clforge__family *f, const int *values, char *buf, size_t cap) {
  size_t used = 0;
  buf[0] = '\0';
  for (int p = 0; p < f->nparams && used < cap; ++p) {
    int n = snprintf(buf + used, cap - used, "%s%s=%d", p ? " " : "", f->params[p].name, values[p]);
    if (n < 0) return;
    used += (size_t)n;
  }
}

int clforge__family_entry_values(const clforge__family *f, const clforge__tuning_entry *e, const clforge_device_info *dev,
                        int *values, char *why, size_t why_cap) {
  int matched = 0;
  for (int p = 0; p < f->nparams; ++p) {
    int found = 0;
    for (int i = 0; i < e->nparams; ++i)
      if (!strcmp(e->names[i], f->params[p].name)) values[p] = e->values[i], ++found;
    matched += found;
    if (!found && (f->precision_params >> p & 1u)) { /* an entry older than the parameter: f32 */
      values[p] = f->params[p].values[0];
      continue;
    }
    if (found != 1) {
      snprintf(why, why_cap, "parameter %s is missing or repeated", f->params[p].name);
      return -1;
    }
  }
  if (matched != e->nparams) {
    snprintf(why, why_cap, "it has %d parameters, family %s has %d", e->nparams, f->name, f->nparams);
    return -1;
  }
  clforge__family_canonical(f, values);
  return clforge__family_check(f, values, dev, why, why_cap) ? 0 : -1;
}

static void fill_choice(clforge_kernel_choice *c, const clforge__family *f, const clforge__problem_key *key,
                        const int *values, clforge_params_source src, const clforge__tuning_entry *e) {
  memset(c, 0, sizeof *c);
  snprintf(c->family, sizeof c->family, "%s", f->name);
  snprintf(c->provider, sizeof c->provider, "%s",
           e && src == CLFORGE_PARAMS_FROM_TUNED ? e->provider : "clforge");
  if (key) {
    snprintf(c->shape_class, sizeof c->shape_class, "%s", key->shape_class ? key->shape_class : "");
    snprintf(c->dtypes, sizeof c->dtypes, "%s", key->dtypes ? key->dtypes : "");
    snprintf(c->layout, sizeof c->layout, "%s", key->layout ? key->layout : "");
  }
  c->source = src;
  if (e) {
    c->tuned_ndims = e->ndims < 4 ? e->ndims : 4; /* the public struct shows 4 */
    memcpy(c->tuned_shape, e->shape, sizeof c->tuned_shape);
    c->tuned_gflops = e->gflops;
  }
  c->nparams = f->nparams;
  for (int p = 0; p < f->nparams; ++p) {
    snprintf(c->names[p], sizeof c->names[p], "%s", f->params[p].name);
    c->values[p] = values[p];
  }
}

typedef struct {
  const clforge__family *f;
  const clforge_device_info *dev;
} fits_ctx;

static int entry_fits(const clforge__tuning_entry *e, void *user) {
  const fits_ctx *c = user;
  int v[CLFORGE_MAX_PARAMS];
  char why[256];
  if (clforge__family_entry_values(c->f, e, c->dev, v, why, sizeof why) == 0) return 1;
  clforge__log(CLFORGE_LOG_DEBUG, "%s: tuning entry for class %s skipped (%s)", c->f->name, e->shape_class, why);
  return 0;
}

int clforge__family_lookup(clforge_context ctx, const clforge__family *f, const clforge__problem_key *key,
                           const clforge__tuning_entry **entry) {
  fits_ctx fc = {f, &ctx->info};
  clforge__tuning_query q = {f->name, key->dtypes, key->layout, key->shape_class, key->shape, key->ndims,
                             entry_fits, &fc};
  return (int)clforge__tuning_lookup(ctx, &q, entry);
}

clforge_status clforge__family_select(clforge_context ctx, const clforge__family *f, int variant,
                                      const clforge__problem_key *key, int *values, clforge_kernel_choice *choice) {
  char why[256];
  clforge_params_source src = ctx->info.device_class == CLFORGE_DEVICE_CLASS_GENERIC
                                  ? CLFORGE_PARAMS_FROM_GENERIC_DEFAULT
                                  : CLFORGE_PARAMS_FROM_DEVICE_DEFAULT;
  const clforge__tuning_entry *entry = NULL;
  if (ctx->tune_force.family == f) { /* the tuner measuring a candidate */
    memcpy(values, ctx->tune_force.values, sizeof(int) * (size_t)f->nparams);
    if (choice) fill_choice(choice, f, key, values, CLFORGE_PARAMS_FROM_TUNER, NULL);
    if (choice && ctx->tune_force.provider[0])
      snprintf(choice->provider, sizeof choice->provider, "%s", ctx->tune_force.provider);
    return CLFORGE_SUCCESS;
  }
  /* The class default, or the generic one where the device's limits (e.g. a
   * small maximum work-group) rule the class default out. */
  if (clforge__family_device_default(f, &ctx->info, variant, values))
    clforge__log(CLFORGE_LOG_DEBUG, "%s: built-in default of driver %s", f->name,
                 clforge__driver_name(clforge__device_driver(&ctx->info)));
  if (!clforge__family_check(f, values, &ctx->info, why, sizeof why)) {
    clforge__log(CLFORGE_LOG_INFO, "%s: class default not usable here (%s), using the generic default", f->name, why);
    clforge__family_default(f, CLFORGE_DEVICE_CLASS_GENERIC, variant, values);
    src = CLFORGE_PARAMS_FROM_GENERIC_DEFAULT;
    if (!clforge__family_check(f, values, &ctx->info, why, sizeof why))
      return clforge__fail(ctx, CLFORGE_UNSUPPORTED, "%s: no built-in parameters fit this device (%s); set CLFORGE_PARAMS",
                           f->name, why);
  }
  if (key && key->dtypes) {
    /* A call allowing f16 arithmetic on a device with it: the entries tuned
     * for its compute type first (of its class, then the plain key's class,
     * then the nearest of each), else the strict entries. */
    char half_dtypes[64];
    clforge__problem_key half_key = *key;
    const int half = f->precision_params && (ctx->info.caps & CLFORGE_CAP_FP16) &&
                     clforge__half_level_allowed(key->compute_type) > 0;
    if (half) {
      snprintf(half_dtypes, sizeof half_dtypes, "%s@%s", key->dtypes, clforge_compute_type_name(key->compute_type));
      half_key.dtypes = half_dtypes;
    }
    const clforge__tuning_entry *e[2] = {NULL, NULL};
    int m[2] = {CLFORGE__TUNING_NONE, CLFORGE__TUNING_NONE}, tuned[2][CLFORGE_MAX_PARAMS];
    for (int i = half ? 0 : 1; i < 2; ++i) {
      m[i] = clforge__family_lookup(ctx, f, i ? key : &half_key, &e[i]);
      if (m[i] != CLFORGE__TUNING_NONE && clforge__family_entry_values(f, e[i], &ctx->info, tuned[i], why, sizeof why))
        m[i] = CLFORGE__TUNING_NONE;
    }
    const int pick = m[0] == CLFORGE__TUNING_EXACT                                      ? 0
                     : m[1] == CLFORGE__TUNING_EXACT                                    ? 1
                     : m[0] != CLFORGE__TUNING_NONE                                     ? 0
                     : m[1] != CLFORGE__TUNING_NONE                                     ? 1
                                                                                        : -1;
    if (pick >= 0) {
      memcpy(values, tuned[pick], sizeof(int) * (size_t)f->nparams);
      entry = e[pick];
      src = m[pick] == CLFORGE__TUNING_EXACT ? CLFORGE_PARAMS_FROM_TUNED : CLFORGE_PARAMS_FROM_NEAREST;
    }
  }
  /* Overrides, the environment's and then the API's on top; parameters
   * neither names keep what the lookup above gave. While the tuner runs the
   * environment is ignored: its "default" is the built-in one. */
  const char *spec[2] = {ctx->tuning_active ? NULL : getenv("CLFORGE_PARAMS"), ctx->params_override};
  const clforge_status bad[2] = {CLFORGE_INVALID_ENVIRONMENT, CLFORGE_INVALID_ARGUMENT};
  const char *origin[2] = {"CLFORGE_PARAMS", "clforge_context_set_params"};
  int named = -1;
  for (int i = 0; i < 2; ++i) {
    int r = clforge__family_parse_params(f, spec[i], values, why, sizeof why);
    if (r < 0) return clforge__fail(ctx, bad[i], "%s: %s", origin[i], why);
    if (r > 0) named = i;
  }
  if (named >= 0) {
    clforge__family_canonical(f, values);
    if (!clforge__family_check(f, values, &ctx->info, why, sizeof why))
      return clforge__fail(ctx, bad[named], "%s: %s", origin[named], why);
    src = named == 1 ? CLFORGE_PARAMS_FROM_API : CLFORGE_PARAMS_FROM_ENV;
    entry = NULL;
  }
  if (choice) fill_choice(choice, f, key, values, src, entry);
  return CLFORGE_SUCCESS;
}

const char *clforge__spec_unknown_family(const char *spec, const clforge__family *const *families, int *len) {
  for (const char *e = spec; e && *e;) {
    while (*e == ';' || isspace((unsigned char)*e)) ++e;
    if (!*e) break;
    size_t seg = strcspn(e, ";"), name = strcspn(e, ":;");
    const clforge__family *const *f = families;
    while (*f && (strlen((*f)->name) != name || strncmp(e, (*f)->name, name))) ++f;
    if (!*f || e[name] != ':') {
      *len = (int)seg;
      return e;
    }
    e += seg;
  }
  return NULL;
}

clforge_status clforge__params_validate(clforge_context ctx, const char *spec, const clforge__family *const *families) {
  char why[256];
  int len;
  const char *bad = clforge__spec_unknown_family(spec, families, &len);
  if (bad)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "parameters \"%.*s\": no such kernel family", len, bad);
  /* Each family's clause as a call reads it (the first that names it). */
  for (const clforge__family *const *f = families; *f; ++f) {
    int v[CLFORGE_MAX_PARAMS];
    memcpy(v, (*f)->defaults[CLFORGE_DEVICE_CLASS_GENERIC], sizeof v);
    int r = clforge__family_parse_params(*f, spec, v, why, sizeof why);
    if (r < 0) return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "parameters for %s: %s", (*f)->name, why);
    for (int p = 0; r > 0 && p < (*f)->nparams; ++p) { /* candidates only: constraints wait for the call */
      int ok = 0;
      for (int c = 0; c < (*f)->params[p].count; ++c) ok |= (*f)->params[p].values[c] == v[p];
      if (!ok)
        return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "parameters for %s: %s=%d is not a candidate value",
                             (*f)->name, (*f)->params[p].name, v[p]);
    }
  }
  return CLFORGE_SUCCESS;
}

size_t clforge__family_enumerate(const clforge__family *f, const clforge_device_info *dev, int precision_max,
                                 int (*visit)(const int *values, void *user), void *user) {
  int idx[CLFORGE_MAX_PARAMS] = {0}, values[CLFORGE_MAX_PARAMS];
  size_t visited = 0;
  for (;;) {
    for (int p = 0; p < f->nparams; ++p) values[p] = f->params[p].values[idx[p]];
    int canon[CLFORGE_MAX_PARAMS];
    memcpy(canon, values, sizeof canon);
    clforge__family_canonical(f, canon);
    /* values are candidates by construction: only allowed() decides */
    if (!memcmp(canon, values, sizeof(int) * (size_t)f->nparams) && (!f->allowed || f->allowed(values, dev, NULL, 0))) {
      ++visited;
      if (visit(values, user)) return visited;
    }
    int p = 0; /* odometer increment; precision parameters up to precision_max */
    while (p < f->nparams &&
           ++idx[p] >= ((f->precision_params >> p & 1u) && precision_max + 1 < f->params[p].count ? precision_max + 1
                                                                                                  : f->params[p].count))
      idx[p++] = 0;
    if (p == f->nparams) return visited;
  }
}

int clforge__family_wg_fits(size_t wgs, const clforge_device_info *dev, char *why, size_t why_cap) {
  if (wgs > dev->max_work_group_size) {
    CLFORGE__WHY(why, why_cap, "work-group of %zu exceeds the device's %zu", wgs, dev->max_work_group_size);
    return 0;
  }
  return 1;
}

int clforge__family_wg_allowed(const int *v, const clforge_device_info *dev, char *why, size_t why_cap) {
  return clforge__family_wg_fits((size_t)v[0], dev, why, why_cap);
}

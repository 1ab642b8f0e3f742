#include "family.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../context.h"
#include "../error.h"
#include "../log.h"

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

/* Apply "NAME=V,NAME=V" for family f from CLFORGE_PARAMS; 1 if the family
 * was named, 0 if not, -1 with why on a malformed entry. */
static int parse_override(const clforge__family *f, const char *env, int *values, char *why, size_t why_cap) {
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
          snprintf(why, why_cap, "CLFORGE_PARAMS: unknown parameter at \"%.*s\" for family %s", (int)(end - q), q,
                   f->name);
          return -1;
        }
        char *num_end;
        errno = 0;
        long v = strtol(q + strlen(f->params[p].name) + 1, &num_end, 10);
        if (num_end == q + strlen(f->params[p].name) + 1 || errno || v < INT_MIN || v > INT_MAX ||
            (num_end < end && *num_end != ',' && !isspace((unsigned char)*num_end))) {
          snprintf(why, why_cap, "CLFORGE_PARAMS: %s needs an integer value", f->params[p].name);
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

void clforge__family_default(const clforge__family *f, clforge_device_class cls, int variant, int *values) {
  memcpy(values, f->defaults[cls], sizeof(int) * (size_t)f->nparams);
  for (const clforge__default_override *o = f->overrides; o && o->param >= 0; ++o)
    if (o->device_class == cls && (variant & o->variant_mask) == o->variant_bits) values[o->param] = o->value;
}

clforge_status clforge__family_select(clforge_context ctx, const clforge__family *f, int variant, int *values,
                                      clforge__params_source *source) {
  char why[256];
  /* The class default, or the generic one where the device's limits (e.g. a
   * small maximum work-group) rule the class default out. */
  clforge__family_default(f, ctx->info.device_class, variant, values);
  if (!clforge__family_check(f, values, &ctx->info, why, sizeof why)) {
    clforge__log(CLFORGE_LOG_INFO, "%s: class default not usable here (%s), using the generic default", f->name, why);
    clforge__family_default(f, CLFORGE_DEVICE_CLASS_GENERIC, variant, values);
    if (!clforge__family_check(f, values, &ctx->info, why, sizeof why))
      return clforge__fail(ctx, CLFORGE_UNSUPPORTED, "%s: no built-in parameters fit this device (%s); set CLFORGE_PARAMS",
                           f->name, why);
  }
  *source = CLFORGE_PARAMS_FROM_DEFAULT;
  int r = parse_override(f, getenv("CLFORGE_PARAMS"), values, why, sizeof why);
  if (r < 0) return clforge__fail(ctx, CLFORGE_INVALID_ENVIRONMENT, "%s", why);
  if (r > 0) {
    if (!clforge__family_check(f, values, &ctx->info, why, sizeof why))
      return clforge__fail(ctx, CLFORGE_INVALID_ENVIRONMENT, "CLFORGE_PARAMS: %s", why);
    *source = CLFORGE_PARAMS_FROM_ENV;
  }
  return CLFORGE_SUCCESS;
}

size_t clforge__family_enumerate(const clforge__family *f, const clforge_device_info *dev,
                                 int (*visit)(const int *values, void *user), void *user) {
  int idx[CLFORGE_MAX_PARAMS] = {0}, values[CLFORGE_MAX_PARAMS];
  size_t visited = 0;
  char why[256];
  for (;;) {
    for (int p = 0; p < f->nparams; ++p) values[p] = f->params[p].values[idx[p]];
    if (clforge__family_check(f, values, dev, why, sizeof why)) {
      ++visited;
      if (visit(values, user)) return visited;
    }
    int p = 0; /* odometer increment */
    while (p < f->nparams && ++idx[p] == f->params[p].count) idx[p++] = 0;
    if (p == f->nparams) return visited;
  }
}

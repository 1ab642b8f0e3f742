#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "log.h"

/* Failures with no context to hold them (context creation, NULL ctx). */
static _Thread_local char orphan_error[4096];

static void store(clforge_context ctx, const char *msg, size_t len) {
  if (!ctx) {
    snprintf(orphan_error, sizeof orphan_error, "%s", msg);
    return;
  }
  if (len + 1 > ctx->last_error_cap) {
    char *grown = realloc(ctx->last_error, len + 1);
    if (!grown) { /* keep what fits rather than lose the message */
      if (ctx->last_error_cap) {
        memcpy(ctx->last_error, msg, ctx->last_error_cap - 1);
        ctx->last_error[ctx->last_error_cap - 1] = '\0';
      }
      return;
    }
    ctx->last_error = grown;
    ctx->last_error_cap = len + 1;
  }
  memcpy(ctx->last_error, msg, len + 1);
}

clforge_status clforge__fail(clforge_context ctx, clforge_status status, const char *fmt, ...) {
  char prefix[160];
  int plen = snprintf(prefix, sizeof prefix, "%s (%s, %d): ", clforge_status_string(status),
                      clforge_status_name(status), (int)status);
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0) n = 0;
  size_t total = (size_t)plen + (size_t)n;
  char small[1024];
  char *buf = total < sizeof small ? small : malloc(total + 1);
  if (!buf) { /* fall back to a truncated message */
    buf = small;
    total = sizeof small - 1;
  }
  memcpy(buf, prefix, (size_t)plen);
  vsnprintf(buf + plen, total + 1 - (size_t)plen, fmt, ap2);
  va_end(ap2);
  store(ctx, buf, strlen(buf));
  clforge__log(CLFORGE_LOG_ERROR, "%s", buf);
  if (buf != small) free(buf);
  return status;
}

clforge_status clforge__fail_cl(clforge_context ctx, cl_int err, const char *what) {
  return clforge__fail(ctx, err, "%s failed", what);
}

void clforge__clear_error(clforge_context ctx) {
  if (!ctx) orphan_error[0] = '\0';
  else if (ctx->last_error) ctx->last_error[0] = '\0';
}

const char *clforge_last_error(clforge_context ctx) {
  if (!ctx) return orphan_error;
  return ctx->last_error ? ctx->last_error : "";
}

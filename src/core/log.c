#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int level_from_env(void) {
  const char *v = getenv("CLFORGE_LOG");
  if (!v || !*v || !strcmp(v, "0") || !strcasecmp(v, "off")) return 0;
  if (!strcasecmp(v, "error")) return CLFORGE_LOG_ERROR;
  if (!strcasecmp(v, "warn") || !strcasecmp(v, "warning")) return CLFORGE_LOG_WARN;
  if (!strcasecmp(v, "debug") || !strcmp(v, "2")) return CLFORGE_LOG_DEBUG;
  return CLFORGE_LOG_INFO; /* "1", "info", or anything else that asks for logging */
}

int clforge__log_enabled(clforge__log_level level) { return (int)level <= level_from_env(); }

void clforge__log(clforge__log_level level, const char *fmt, ...) {
  static const char *const names[] = {"", "error", "warn", "info", "debug"};
  if (!clforge__log_enabled(level)) return;
  char line[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  /* One fprintf per line so lines from several threads do not interleave. */
  fprintf(stderr, "clforge[%s]: %s\n", names[level], line);
}

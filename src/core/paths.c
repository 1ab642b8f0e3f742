/* Where clforge keeps files: the binary cache and the tuning files. */
#include "paths.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

#ifndef CLFORGE_SYSTEM_DATADIR
#define CLFORGE_SYSTEM_DATADIR "/usr/local/share/clforge"
#endif

/* $XDG_CACHE_HOME (absolute only, per the XDG spec) or $HOME/.cache. */
static const char *cache_home(const char **suffix) {
  const char *xdg = getenv("XDG_CACHE_HOME");
  *suffix = "";
  if (xdg && xdg[0] == '/') return xdg;
  const char *home = getenv("HOME");
  if (!home || home[0] != '/') return NULL;
  *suffix = "/.cache";
  return home;
}

int clforge__path(clforge_path_kind kind, char *buf, size_t cap, size_t *need) {
  const char *a = NULL, *b = "", *c = "";
  const char *env = NULL;
  switch (kind) {
    case CLFORGE_PATH_BINARY_CACHE: env = getenv("CLFORGE_CACHE_DIR"); c = "/clforge/kernels"; break;
    case CLFORGE_PATH_TUNING_FILE: env = getenv("CLFORGE_TUNING_FILE"); c = "/clforge/tuning.json"; break;
    case CLFORGE_PATH_SYSTEM_TUNING_FILE: /* the env var serves relocated installs */
      env = getenv("CLFORGE_SYSTEM_TUNING_FILE"); a = CLFORGE_SYSTEM_DATADIR, c = "/tuning.json"; break;
    default: return -2;
  }
  if (env && *env) a = env, c = "";
  else if (!a && !(a = cache_home(&b))) a = "off", c = ""; /* no home: nowhere to keep files */
  int n = snprintf(NULL, 0, "%s%s%s", a, b, c);
  *need = (size_t)n + 1;
  if (n < 0 || (size_t)n >= cap) return -1;
  snprintf(buf, cap, "%s%s%s", a, b, c);
  return 0;
}

clforge_status clforge_path(clforge_path_kind kind, char *buf, size_t buf_size) {
  clforge__clear_error(NULL);
  if (!buf || buf_size == 0)
    return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "buf is NULL or buf_size is 0");
  size_t need = 0;
  int r = clforge__path(kind, buf, buf_size, &need);
  if (r == -2) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "unknown clforge_path_kind %d", (int)kind);
  if (r == -1)
    return clforge__fail(NULL, CLFORGE_BUFFER_TOO_SMALL, "path needs %zu bytes, buffer holds %zu", need, buf_size);
  return CLFORGE_SUCCESS;
}

/* Where clforge keeps files, without recording errors (for internal use). */
#ifndef CLFORGE_SRC_PATHS_H
#define CLFORGE_SRC_PATHS_H

#include "clforge/clforge.h"

/* 0 on success; -1 when buf is too small (buf untouched), with the length
 * needed in *need; -2 for an unknown kind. */
int clforge__path(clforge_path_kind kind, char *buf, size_t cap, size_t *need);

#endif

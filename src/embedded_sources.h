/* Kernel sources from cl/, embedded at build time by cmake/embed_sources.cmake. */
#ifndef CLFORGE_SRC_EMBEDDED_SOURCES_H
#define CLFORGE_SRC_EMBEDDED_SOURCES_H

#include <stddef.h>

typedef struct clforge__embedded_source {
  const char *name;  /* file name without ".cl" */
  const char *text;  /* NUL-terminated */
  size_t length;     /* without the NUL */
} clforge__embedded_source;

extern const clforge__embedded_source clforge__embedded_sources[];
extern const size_t clforge__embedded_source_count;

/* The source named `name`, or NULL. */
const clforge__embedded_source *clforge__embedded_source_find(const char *name);

#endif

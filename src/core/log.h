/* Diagnostics on stderr, only when CLFORGE_LOG asks for them. */
#ifndef CLFORGE_SRC_LOG_H
#define CLFORGE_SRC_LOG_H

#include "error.h"

typedef enum { CLFORGE_LOG_ERROR = 1, CLFORGE_LOG_WARN = 2, CLFORGE_LOG_INFO = 3, CLFORGE_LOG_DEBUG = 4 } clforge__log_level;

/* True when CLFORGE_LOG enables `level`
 * (CLFORGE_LOG = 0|off, error, warn, 1|info, debug). */
int clforge__log_enabled(clforge__log_level level);
void clforge__log(clforge__log_level level, const char *fmt, ...) CLFORGE_PRINTF(2, 3);

#endif

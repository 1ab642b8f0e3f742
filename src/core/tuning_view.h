/* What a context holds of the tuning files: their entries for its device,
 * loaded on first use. Only the storage is here, so that the context's
 * layout does not depend on the tuning layer above it; reading, looking up
 * and writing entries is src/core/tuning_file.h's. */
#ifndef CLFORGE_SRC_CORE_TUNING_VIEW_H
#define CLFORGE_SRC_CORE_TUNING_VIEW_H

#include <stddef.h>

struct clforge__tuning_entry; /* src/core/tuning_file.h */

typedef struct clforge__tuning_db {
  struct clforge__tuning_entry *entries;
  size_t count, cap;
} clforge__tuning_db;

/* The per-context view: the user's and the system's entries for this device,
 * loaded on first use (files read once per context; defects logged once). */
typedef struct clforge__tuning_view {
  int loaded;
  clforge__tuning_db user, system;
} clforge__tuning_view;

void clforge__tuning_free(clforge__tuning_db *db);

/* Drop the loaded view (the next lookup reads the files again). */
void clforge__tuning_view_release(clforge__tuning_view *v);

#endif

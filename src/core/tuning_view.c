/* Freeing what a context holds of the tuning files (tuning_view.h). */
#include "tuning_view.h"

#include <stdlib.h>

void clforge__tuning_free(clforge__tuning_db *db) {
  free(db->entries);
  db->entries = NULL;
  db->count = db->cap = 0;
}

void clforge__tuning_view_release(clforge__tuning_view *v) {
  clforge__tuning_free(&v->user);
  clforge__tuning_free(&v->system);
  v->loaded = 0;
}

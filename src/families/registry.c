/* The registry's names, public (clforge_registry_count / _name) and as
 * text for messages (registry.h). */
#include "registry.h"

#include <stdio.h>
#include <string.h>

#include "../core/error.h"

#define NAME_TUNED(name, op) #name,
#define NAME_PLAIN(name) #name,
#define SKIP_PLAIN(name)
#define NAME_OP(op) #op,
#define NAME_ALGO(e, name) #name,

static const char *const families[] = {CLFORGE__FAMILIES(NAME_TUNED, NAME_PLAIN)};
static const char *const tuned_families[] = {CLFORGE__FAMILIES(NAME_TUNED, SKIP_PLAIN)};
static const char *const tune_ops[] = {CLFORGE__TUNE_OPS(NAME_OP)};
static const char *const conv_algos[] = {CLFORGE__CONV_ALGOS(NAME_ALGO)};
static const char *const attention_algos[] = {CLFORGE__ATTENTION_ALGOS(NAME_ALGO)};

/* The algorithms' lists follow the public enums: the value is the position. */
#define POS_CONV(e, name) pos_conv_##e,
#define POS_ATTN(e, name) pos_attn_##e,
enum { CLFORGE__CONV_ALGOS(POS_CONV) CLFORGE__ATTENTION_ALGOS(POS_ATTN) };
#define CHECK_CONV(e, name) _Static_assert(CLFORGE_CONV_ALGO_##e == (int)pos_conv_##e, #e " out of place");
#define CHECK_ATTN(e, name) \
  _Static_assert(CLFORGE_ATTENTION_ALGO_##e == (int)pos_attn_##e - (int)pos_attn_AUTO, #e " out of place");
CLFORGE__CONV_ALGOS(CHECK_CONV)
CLFORGE__ATTENTION_ALGOS(CHECK_ATTN)
_Static_assert(sizeof conv_algos / sizeof *conv_algos == CLFORGE_CONV_ALGO_COUNT, "every conv algorithm listed");
_Static_assert(sizeof attention_algos / sizeof *attention_algos == CLFORGE_ATTENTION_ALGO_COUNT,
               "every attention algorithm listed");

static const struct {
  const char *const *names;
  int count;
} lists[CLFORGE_REGISTRY_COUNT] = {
#define LIST(a) {a, (int)(sizeof a / sizeof *a)}
    [CLFORGE_REGISTRY_FAMILIES] = LIST(families),
    [CLFORGE_REGISTRY_TUNED_FAMILIES] = LIST(tuned_families),
    [CLFORGE_REGISTRY_TUNE_OPS] = LIST(tune_ops),
    [CLFORGE_REGISTRY_CONV_ALGOS] = LIST(conv_algos),
    [CLFORGE_REGISTRY_ATTENTION_ALGOS] = LIST(attention_algos),
#undef LIST
};

clforge_status clforge_registry_count(clforge_registry list, int *count) {
  clforge__clear_error(NULL);
  if (!count) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "registry_count: count is NULL");
  if ((unsigned)list >= CLFORGE_REGISTRY_COUNT)
    return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "registry_count: list %d is unknown (0 to %d)", (int)list,
                         CLFORGE_REGISTRY_COUNT - 1);
  *count = lists[list].count;
  return CLFORGE_SUCCESS;
}

const char *clforge__registry_name(clforge_registry list, int index) {
  return (unsigned)list < CLFORGE_REGISTRY_COUNT && index >= 0 && index < lists[list].count ? lists[list].names[index]
                                                                                            : NULL;
}

clforge_status clforge_registry_name(clforge_registry list, int index, const char **name) {
  int count;
  clforge_status st = clforge_registry_count(list, &count);
  if (st != CLFORGE_SUCCESS) return st;
  if (!name) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "registry_name: name is NULL");
  if (index < 0 || index >= count)
    return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "registry_name: index %d of list %d is out of range (0 to %d)",
                         index, (int)list, count - 1);
  *name = lists[list].names[index];
  return CLFORGE_SUCCESS;
}

char *clforge__registry_text(clforge_registry list, const char *sep, const char *last, char *buf, size_t cap) {
  if (!cap) return buf;
  buf[0] = '\0';
  if ((unsigned)list >= CLFORGE_REGISTRY_COUNT) return buf;
  size_t len = 0;
  const int n = lists[list].count;
  for (int i = 0; i < n && len < cap; ++i) {
    int w = snprintf(buf + len, cap - len, "%s%s", i == 0 ? "" : i == n - 1 ? last : sep, lists[list].names[i]);
    if (w < 0) break;
    len += (size_t)w;
  }
  return buf;
}

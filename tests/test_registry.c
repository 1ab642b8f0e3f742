/* The registry (src/families/registry.h) against each of its consumers: the
 * families' descriptors and the runtime's lists, the tuner's table and its
 * ops, the algorithms' names, the public query, and (given the clforge
 * command as argv[1]) the help texts that list them. A family, op or
 * algorithm added to one place and not the others fails here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/families/families.h"
#include "../src/families/registry.h"
#include "../src/tuning/tune_op.h"
#include "test_util.h"

static int count_of(clforge_registry list) {
  int n = -1;
  CHECK_OK(NULL, clforge_registry_count(list, &n));
  return n;
}

static const char *name_of(clforge_registry list, int i) {
  const char *name = NULL;
  CHECK_OK(NULL, clforge_registry_name(list, i, &name));
  return name ? name : "";
}

static int listed(clforge_registry list, const char *name) {
  for (int i = 0, n = count_of(list); i < n; ++i)
    if (!strcmp(name_of(list, i), name)) return 1;
  return 0;
}

/* The runtime's lists are the registry's, in its order, each descriptor
 * named as its registry row; the tuner's table pairs each tuned family
 * with an op of the registry. */
static void families(void) {
  int n = 0;
  for (; clforge__all_families[n]; ++n) {
    const clforge__family *f = clforge__all_families[n];
    CHECK(n < count_of(CLFORGE_REGISTRY_FAMILIES) && !strcmp(f->name, name_of(CLFORGE_REGISTRY_FAMILIES, n)),
          "family %d is %s, the registry's %s", n, f->name, name_of(CLFORGE_REGISTRY_FAMILIES, n));
    CHECK(f->kernel && f->sources && f->nparams >= 0, "%s: a descriptor without a kernel", f->name);
    for (int j = 0; j < n; ++j) CHECK(strcmp(clforge__all_families[j]->name, f->name), "%s listed twice", f->name);
  }
  CHECK(n == count_of(CLFORGE_REGISTRY_FAMILIES), "%d families, the registry has %d", n,
        count_of(CLFORGE_REGISTRY_FAMILIES));
  int t = 0;
  for (; clforge__tunable_families[t]; ++t) {
    const clforge__family *f = clforge__tunable_families[t];
    CHECK(!strcmp(f->name, name_of(CLFORGE_REGISTRY_TUNED_FAMILIES, t)), "tuned family %d is %s, the registry's %s",
          t, f->name, name_of(CLFORGE_REGISTRY_TUNED_FAMILIES, t));
    CHECK(clforge__tunables[t].family == f, "the tuner's family %d is not %s", t, f->name);
    CHECK(clforge__tunables[t].op && listed(CLFORGE_REGISTRY_TUNE_OPS, clforge__tunables[t].op->op),
          "%s: tuned by an op the registry does not list", f->name);
    CHECK(f->classes && f->classes[0].name, "%s: tuned on no shape class", f->name);
  }
  CHECK(t == count_of(CLFORGE_REGISTRY_TUNED_FAMILIES) && !clforge__tunables[t].family,
        "%d tuned families, the registry has %d", t, count_of(CLFORGE_REGISTRY_TUNED_FAMILIES));
}

/* Each op of the registry is the one its clforge__tune_<op> says it is, and
 * tunes at least one family. */
static void tune_ops(void) {
  static const clforge__tune_op *const ops[] = {
#define OP(op) &clforge__tune_##op,
      CLFORGE__TUNE_OPS(OP)
#undef OP
  };
  const int n = (int)(sizeof ops / sizeof *ops);
  CHECK(n == count_of(CLFORGE_REGISTRY_TUNE_OPS), "%d ops, the query says %d", n, count_of(CLFORGE_REGISTRY_TUNE_OPS));
  for (int i = 0; i < n; ++i) {
    CHECK(!strcmp(ops[i]->op, name_of(CLFORGE_REGISTRY_TUNE_OPS, i)), "clforge__tune_%s runs \"%s\"",
          name_of(CLFORGE_REGISTRY_TUNE_OPS, i), ops[i]->op);
    int uses = 0;
    for (const clforge__tunable *t = clforge__tunables; t->family; ++t) uses += t->op == ops[i];
    CHECK(uses > 0, "the op %s tunes no family", ops[i]->op);
  }
}

/* The algorithms' names are the registry's, each (but auto) a family
 * <op>_<name>; an unknown name's message lists them as before. */
static void algorithms(void) {
  const int nc = count_of(CLFORGE_REGISTRY_CONV_ALGOS), na = count_of(CLFORGE_REGISTRY_ATTENTION_ALGOS);
  CHECK(nc == CLFORGE_CONV_ALGO_COUNT && na == CLFORGE_ATTENTION_ALGO_COUNT, "%d conv and %d attention algorithms",
        nc, na);
  char family[64];
  for (int a = 0; a < nc; ++a) {
    const char *name = name_of(CLFORGE_REGISTRY_CONV_ALGOS, a);
    clforge_conv_algo back = CLFORGE_CONV_ALGO_COUNT;
    CHECK(!strcmp(clforge_conv_algo_name((clforge_conv_algo)a), name), "conv algorithm %d: %s", a, name);
    CHECK_OK(NULL, clforge_conv_algo_from_name(name, &back));
    CHECK(back == (clforge_conv_algo)a, "%s reads back as %d", name, (int)back);
    snprintf(family, sizeof family, "conv_%s", name);
    CHECK(a == 0 || listed(CLFORGE_REGISTRY_FAMILIES, family), "conv algorithm %s has no family %s", name, family);
  }
  CHECK(!strcmp(clforge_conv_algo_name(CLFORGE_CONV_ALGO_COUNT), "?"), "%s", "past the last conv algorithm");
  clforge_conv_algo algo;
  CHECK_FAILS(NULL, clforge_conv_algo_from_name("nope", &algo), CLFORGE_INVALID_ARGUMENT,
              "conv algorithm \"nope\" is unknown: use auto, direct, implicit_gemm, gemm_1x1, im2col, winograd_2x2, "
              "winograd_4x4, fft or depthwise");
  for (int a = 0; a < na; ++a) {
    const char *name = name_of(CLFORGE_REGISTRY_ATTENTION_ALGOS, a);
    CHECK(!strcmp(clforge_attention_algo_name((clforge_attention_algo)a), name), "attention algorithm %d: %s", a,
          name);
    snprintf(family, sizeof family, "attention_%s", name);
    CHECK(a == 0 || listed(CLFORGE_REGISTRY_FAMILIES, family), "attention algorithm %s has no family %s", name,
          family);
  }
  CHECK(!strcmp(clforge_attention_algo_name(CLFORGE_ATTENTION_ALGO_COUNT), "?"), "%s", "past the last");
}

static void query_errors(void) {
  int n;
  const char *name;
  CHECK_FAILS(NULL, clforge_registry_count(CLFORGE_REGISTRY_COUNT, &n), CLFORGE_INVALID_ARGUMENT, "unknown");
  CHECK_FAILS(NULL, clforge_registry_count(CLFORGE_REGISTRY_FAMILIES, NULL), CLFORGE_INVALID_ARGUMENT, "NULL");
  CHECK_FAILS(NULL, clforge_registry_name(CLFORGE_REGISTRY_TUNE_OPS, -1, &name), CLFORGE_INVALID_ARGUMENT, "range");
  CHECK_FAILS(NULL, clforge_registry_name(CLFORGE_REGISTRY_TUNE_OPS, count_of(CLFORGE_REGISTRY_TUNE_OPS), &name),
              CLFORGE_INVALID_ARGUMENT, "range");
  CHECK_FAILS(NULL, clforge_registry_name(CLFORGE_REGISTRY_FAMILIES, 0, NULL), CLFORGE_INVALID_ARGUMENT, "NULL");
}

/* What `command args` prints (malloc'd; NULL when it could not run). */
static char *output_of(const char *command, const char *args) {
  char line[1024];
  snprintf(line, sizeof line, "'%s' %s 2>&1", command, args);
  FILE *p = popen(line, "r");
  if (!p) return NULL;
  size_t len = 0, cap = 1 << 16;
  char *out = malloc(cap);
  while (out && len + 1 < cap && fgets(out + len, (int)(cap - len), p)) len += strlen(out + len);
  pclose(p);
  return out;
}

/* Each help text names each of its list's names, as a word. */
static void help_names(const char *command, const char *args, clforge_registry list, const char *before,
                       const char *after) {
  char *out = output_of(command, args);
  CHECK(out != NULL, "%s %s did not run", command, args);
  if (!out) return;
  char word[80];
  for (int i = 0, n = count_of(list); i < n; ++i) {
    snprintf(word, sizeof word, "%s%s%s", i == 0 ? "" : before, name_of(list, i), i == n - 1 ? "" : after);
    CHECK(strstr(out, word) != NULL, "'clforge %s' lacks \"%s\"", args, word);
  }
  free(out);
}

/* `tune --help` names every shape class of every family the tuner searches
 * (--shapes): its list is written by hand, so a class added to a family and
 * not to the help fails here. */
static void help_shape_classes(const char *command) {
  char *out = output_of(command, "tune --help");
  CHECK(out != NULL, "%s tune --help did not run", command);
  if (!out) return;
  for (const clforge__family *const *f = clforge__tunable_families; *f; ++f)
    for (const clforge__shape_class *c = (*f)->classes; c && c->name; ++c) {
      /* a batch-1 twin "<class>_n1" is named as "(and each with _n1)" */
      char base[64];
      const size_t len = strlen(c->name);
      const int n1 = len > 3 && !strcmp(c->name + len - 3, "_n1");
      snprintf(base, sizeof base, "%.*s", (int)(n1 ? len - 3 : len), c->name);
      CHECK(strstr(out, base) != NULL && (!n1 || strstr(out, "with _n1")), "'clforge tune --help' lacks %s's shape class %s",
            (*f)->name, c->name);
    }
  free(out);
}

int main(int argc, char **argv) {
  families();
  tune_ops();
  algorithms();
  query_errors();
  if (argc > 1) {
    help_names(argv[1], "tune --help", CLFORGE_REGISTRY_TUNE_OPS, " ", ",");
    help_names(argv[1], "explain --help", CLFORGE_REGISTRY_CONV_ALGOS, "|", "|");
    help_names(argv[1], "explain --help", CLFORGE_REGISTRY_ATTENTION_ALGOS, "|", "|");
    /* bench conv's --algo: its help names them (auto apart), its refusal lists them all */
    help_names(argv[1], "bench conv --algo no-such-algo", CLFORGE_REGISTRY_CONV_ALGOS, " ", ",");
    help_names(argv[1], "bench conv --help", CLFORGE_REGISTRY_CONV_ALGOS, "", "");
    help_shape_classes(argv[1]);
  }
  return tu_summary();
}

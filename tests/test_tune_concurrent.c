/* Concurrent writers of one tuning file keep each other's results: four
 * processes saving entries one by one through the library, then two
 * `clforge tune` commands at once (argv[1] is the command). The file stays
 * valid JSON throughout. */
#include <sys/wait.h>
#include <unistd.h>

#include "../src/core/tuning_file.h"
#include "test_util.h"

enum { WRITERS = 4, EACH = 10 };

static void make_entry(clforge__tuning_entry *e, int writer, int i) {
  memset(e, 0, sizeof *e);
  snprintf(e->vendor, sizeof e->vendor, "test vendor");
  snprintf(e->device, sizeof e->device, "writer %d", writer);
  snprintf(e->driver, sizeof e->driver, "1.0");
  e->compute_units = 1;
  snprintf(e->family, sizeof e->family, "gemm");
  snprintf(e->dtypes, sizeof e->dtypes, "f32,f32,f32");
  snprintf(e->layout, sizeof e->layout, "nn");
  snprintf(e->shape_class, sizeof e->shape_class, "class%d", i);
  e->ndims = 3;
  e->shape[0] = e->shape[1] = e->shape[2] = (size_t)(i + 1);
  snprintf(e->provider, sizeof e->provider, "clforge");
  e->nparams = 1;
  snprintf(e->names[0], sizeof e->names[0], "MWG");
  e->values[0] = writer * 100 + i;
  e->median_s = 1e-3;
  e->gflops = 1.0;
}

static int run_writer(const char *path, int writer) {
  for (int i = 0; i < EACH; ++i) {
    clforge__tuning_entry e;
    make_entry(&e, writer, i);
    clforge__tuning_db one = {&e, 1, 1};
    char why[512];
    if (clforge__tuning_save(path, &one, why, sizeof why) != 0) {
      fprintf(stderr, "writer %d: %s\n", writer, why);
      return 1;
    }
  }
  return 0;
}

static void test_library_writers(const char *path) {
  pid_t pids[WRITERS];
  for (int w = 0; w < WRITERS; ++w) {
    pids[w] = fork();
    if (pids[w] == 0) _exit(run_writer(path, w));
  }
  /* Meanwhile, a reader: every time it looks the file is absent or whole. */
  int reads = 0, torn = 0, running = WRITERS, status[WRITERS] = {0}, done[WRITERS] = {0};
  while (running > 0) {
    clforge__tuning_db db = {NULL, 0, 0};
    char why[512] = "";
    int rc = clforge__tuning_load_file(path, &db, why, sizeof why);
    reads += rc == 0;
    torn += rc < 0;
    if (rc < 0) fprintf(stderr, "torn read: %s\n", why);
    clforge__tuning_free(&db);
    running = 0;
    for (int w = 0; w < WRITERS; ++w) {
      if (!done[w]) done[w] = pids[w] <= 0 || waitpid(pids[w], &status[w], WNOHANG) != 0;
      running += !done[w];
    }
  }
  CHECK(torn == 0, "%d of %d reads saw a partial file", torn, reads + torn);
  for (int w = 0; w < WRITERS; ++w)
    CHECK(pids[w] > 0 && WIFEXITED(status[w]) && WEXITSTATUS(status[w]) == 0, "writer %d failed", w);
  clforge__tuning_db db = {NULL, 0, 0};
  char why[512] = "";
  CHECK(clforge__tuning_load_file(path, &db, why, sizeof why) == 0, "file invalid after concurrent writes: %s", why);
  CHECK(db.count == WRITERS * EACH, "%zu entries, wanted %d", db.count, WRITERS * EACH);
  for (int w = 0; w < WRITERS; ++w)
    for (int i = 0; i < EACH; ++i) {
      int found = 0;
      for (size_t j = 0; j < db.count; ++j) found += db.entries[j].values[0] == w * 100 + i;
      CHECK(found == 1, "entry %d of writer %d found %d times", i, w, found);
    }
  clforge__tuning_free(&db);
}

static void test_two_commands(const char *cli, const char *path) {
  const char *layouts[2] = {"nn", "nt"};
  pid_t pids[2];
  for (int i = 0; i < 2; ++i) {
    pids[i] = fork();
    if (pids[i] == 0) {
      if (!freopen("/dev/null", "w", stdout)) _exit(3);
      execl(cli, cli, "tune", "--shapes", "small", "--dtypes", "f32", "--layouts", layouts[i], "--max-evals", "2",
            "--no-peers", "--budget", "120", "--file", path, (char *)NULL);
      _exit(127);
    }
  }
  for (int i = 0; i < 2; ++i) {
    int status = 0;
    waitpid(pids[i], &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "clforge tune --layouts %s failed (status %d)", layouts[i],
          status);
  }
  clforge__tuning_db db = {NULL, 0, 0};
  char why[512] = "";
  CHECK(clforge__tuning_load_file(path, &db, why, sizeof why) == 0, "file invalid after two tuners: %s", why);
  for (int i = 0; i < 2; ++i) {
    int found = 0;
    for (size_t j = 0; j < db.count; ++j)
      found += !strcmp(db.entries[j].layout, layouts[i]) && !strcmp(db.entries[j].shape_class, "small");
    CHECK(found == 1, "layout %s: %d entries", layouts[i], found);
  }
  clforge__tuning_free(&db);
}

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  if (f) {
    fputs(text, f);
    fclose(f);
  }
}

/* A save never destroys what it cannot read: a newer format's file is left
 * alone; a damaged one is kept as <file>.bad. */
static void test_save_keeps_foreign_files(const char *path) {
  clforge__tuning_entry e;
  make_entry(&e, 9, 9);
  clforge__tuning_db one = {&e, 1, 1};
  char why[512] = "", bad[400];
  const char *newer = "{\"format\":\"clforge-tuning\",\"format_version\":999,\"entries\":[]}";
  write_text(path, newer);
  CHECK(clforge__tuning_save(path, &one, why, sizeof why) == -1 && strstr(why, "999"), "newer file: %s", why);
  FILE *f = fopen(path, "rb");
  char back[256] = "";
  if (f) {
    size_t got = fread(back, 1, sizeof back - 1, f);
    back[got] = '\0';
    fclose(f);
  }
  CHECK(!strcmp(back, newer), "the newer file was changed: %s", back);
  write_text(path, "{\"format\": \"clforge-tun");
  CHECK(clforge__tuning_save(path, &one, why, sizeof why) == 1 && strstr(why, ".bad"), "damaged file: %s", why);
  snprintf(bad, sizeof bad, "%s.bad", path);
  CHECK(access(bad, F_OK) == 0, "no %s", bad);
  clforge__tuning_db db = {NULL, 0, 0};
  CHECK(clforge__tuning_load_file(path, &db, why, sizeof why) == 0 && db.count == 1, "after replacing: %s", why);
  clforge__tuning_free(&db);
  unlink(bad);
  unlink(path);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_tune_concurrent PATH-TO-CLFORGE\n");
    return 2;
  }
  char dir[256], path[300], lock[320];
  snprintf(dir, sizeof dir, "%s/clforge-concurrent-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  snprintf(path, sizeof path, "%s/tuning.json", dir);
  snprintf(lock, sizeof lock, "%s.lock", path);
  test_library_writers(path);
  unlink(path);
  test_save_keeps_foreign_files(path);
  test_two_commands(argv[1], path);
  unlink(path);
  unlink(lock);
  rmdir(dir);
  return tu_summary();
}

/* The suite is hermetic: with a user tuning file present in HOME that gives
 * other parameters than the built-in defaults (as README command 1 leaves
 * one behind), the tests given on the command line still pass when run as a
 * user's shell would run them (no CLFORGE_* variables, HOME = that user),
 * and the user's file is left exactly as it was.
 *
 *   test_user_files TEST [TEST...]
 *
 * The file is written here by hand; first a fresh context is shown to read
 * it (so the tests below really had it in their way). */
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_util.h"

static char home[512], cache[600], dir[700], file[800];

/* Two direct-kernel parameter sets; the user file gets one that is not this
 * device's built-in default (the first is what a 120 s tune found here). */
static const char *const DIRECT[2] = {"\"MWID\":8,\"NWID\":2,\"MDIMD\":1,\"NDIMD\":4,\"KUD\":1,\"VW\":8",
                                      "\"MWID\":4,\"NWID\":2,\"MDIMD\":2,\"NDIMD\":4,\"KUD\":1,\"VW\":16"};
static const int DIRECT_V[2][6] = {{8, 2, 1, 4, 1, 8}, {4, 2, 2, 4, 1, 16}};
static int pick;
static const char *const TILED =
    "\"MWG\":32,\"NWG\":32,\"MWI\":4,\"NWI\":8,\"KWG\":8,\"VW\":4,\"SA\":0,\"SB\":0,\"KU\":2,\"KSYNC\":0";

static char *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *buf = malloc(1 << 16);
  *len = buf ? fread(buf, 1, 1 << 16, f) : 0;
  fclose(f);
  return buf;
}

static int write_user_file(const clforge_device_info *dev) {
  char v[300], nm[600], dr[300], text[8192];
  tu_json_escape(dev->vendor, v, sizeof v);
  tu_json_escape(dev->name, nm, sizeof nm);
  tu_json_escape(dev->driver_version, dr, sizeof dr);
  const char *classes[][3] = {{"gemm_direct", "small", "64,64,64"},
                              {"gemm", "large", "1024,1024,1024"},
                              {"gemm", "medium", "512,512,512"}};
  size_t used = (size_t)snprintf(text, sizeof text,
                                 "{\"format\":\"clforge-tuning\",\"format_version\":1,\"library_version\":\"0.1.0\",\"entries\":[");
  for (int i = 0; i < 3; ++i)
    used += (size_t)snprintf(text + used, sizeof text - used,
                             "%s{\"device\":{\"vendor\":\"%s\",\"name\":\"%s\",\"driver\":\"%s\",\"compute_units\":%u},"
                             "\"family\":\"%s\",\"dtypes\":\"f32,f32,f32\",\"layout\":\"nn\",\"shape_class\":\"%s\","
                             "\"shape\":[%s],\"provider\":\"clforge\",\"params\":{%s},\"median_ms\":1.0,"
                             "\"gflops\":1.0,\"date\":\"2026-12-01T00:00:00Z\"}",
                             i ? "," : "", v, nm, dr, dev->compute_units, classes[i][0], classes[i][1], classes[i][2],
                             i ? TILED : DIRECT[pick]);
  snprintf(text + used, sizeof text - used, "]}");
  FILE *f = fopen(file, "wb");
  if (!f) return -1;
  fputs(text, f);
  return fclose(f);
}

/* Run one test program with the environment as it is now. */
static int run(const char *path) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    execl(path, path, (char *)NULL);
    _exit(127);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_user_files TEST [TEST...]\n");
    return 2;
  }
  const char *base = getenv("HOME"); /* ctest gives each test its own (tests/hermetic.cmake) */
  snprintf(home, sizeof home, "%s/user-XXXXXX", base && *base ? base : "/tmp");
  if (!mkdtemp(home)) {
    perror("mkdtemp");
    return 1;
  }
  /* The user's shell: their HOME, none of the suite's CLFORGE_* settings. */
  setenv("HOME", home, 1);
  const char *drop[] = {"XDG_CACHE_HOME", "CLFORGE_TUNING_FILE", "CLFORGE_CACHE_DIR", "CLFORGE_PARAMS",
                        "CLFORGE_GEMM_PATH", "CLFORGE_VALIDATE", "CLFORGE_LOG"};
  for (size_t i = 0; i < sizeof drop / sizeof drop[0]; ++i) unsetenv(drop[i]);
  /* Not the installed system file (<prefix>/share/clforge) either: this test
   * is about the user's file. */
  setenv("CLFORGE_SYSTEM_TUNING_FILE", "off", 1);
  snprintf(cache, sizeof cache, "%s/.cache", home);
  snprintf(dir, sizeof dir, "%s/clforge", cache);
  snprintf(file, sizeof file, "%s/tuning.json", dir);
  if (mkdir(cache, 0700) || mkdir(dir, 0700)) {
    perror(dir);
    return 1;
  }
  clforge_context ctx = tu_context();
  clforge_device_info dev;
  CHECK_OK(ctx, clforge_context_device_info(ctx, &dev));
  clforge_gemm_desc d = {.m = 64, .n = 64, .k = 64, .alpha = 1, .beta = 0};
  clforge_kernel_choice ch[2];
  int n = 0;
  CHECK_OK(ctx, clforge_gemm_explain(ctx, &d, ch, 2, &n));
  pick = n == 1 && !memcmp(ch[0].values, DIRECT_V[0], sizeof DIRECT_V[0]);
  clforge_context_destroy(ctx);
  CHECK(write_user_file(&dev) == 0, "writing %s", file);
  size_t before_len = 0, after_len = 0;
  char *before = read_all(file, &before_len);

  /* The file is live: a context in this environment takes its parameters. */
  ctx = tu_context();
  CHECK_OK(ctx, clforge_gemm_explain(ctx, &d, ch, 2, &n));
  CHECK(n == 1 && ch[0].source == CLFORGE_PARAMS_FROM_TUNED, "the user file is not read: %d choices, source %s", n,
        n ? clforge_params_source_name(ch[0].source) : "-");
  for (int p = 0; n == 1 && p < 6 && p < ch[0].nparams; ++p)
    CHECK(ch[0].values[p] == DIRECT_V[pick][p], "%s = %d, the user file says %d", ch[0].names[p], ch[0].values[p],
          DIRECT_V[pick][p]);
  clforge_context_destroy(ctx);

  for (int i = 1; i < argc; ++i) {
    int rc = run(argv[i]);
    CHECK(rc == 0, "%s with a user tuning file in HOME: exit status %d", argv[i], rc);
  }
  char *after = read_all(file, &after_len);
  CHECK(before && after && before_len == after_len && !memcmp(before, after, before_len),
        "the user's tuning file changed");
  free(before);
  free(after);
  return tu_summary();
}

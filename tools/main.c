/* The clforge command: subcommands over the public API.
 *
 *   clforge <command> [options]       clforge help [command]
 *
 * Each command lives in its own file (info.c, tune.c, explain.c, bench.c)
 * and is one row of `commands[]` below (name, summary, function, help);
 * adding one means adding its file and a row. The tool uses only the public
 * header, OpenCL, cJSON and bench/. */
#include <clforge/clforge.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench.h"
#include "cli_util.h"
#include "explain.h"
#include "info.h"
#include "tune.h"

typedef struct {
  const char *name;
  const char *summary;
  int (*run)(int argc, char **argv); /* argv[0] is the command name */
  void (*help)(FILE *out);
} command;

static const command commands[] = {
    {"info", "list OpenCL platforms and devices, clforge's setup, transfer bandwidth", clforge_cli_info,
     clforge_cli_info_help},
    {"tune", "tune kernel parameters for this device and save the tuning file", clforge_cli_tune,
     clforge_cli_tune_help},
    {"explain", "show which kernels and parameters a call uses, and why", clforge_cli_explain,
     clforge_cli_explain_help},
    {"bench", "benchmark an op against other libraries (gemm); the device's peak (peak)", clforge_cli_bench,
     clforge_cli_bench_help},
};

static void usage(FILE *f) {
  fprintf(f,
          "usage: clforge <command> [options]\n"
          "       clforge help [command]\n"
          "\n"
          "Commands:\n");
  for (size_t i = 0; i < CLI_COUNT(commands); ++i) fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
  fprintf(f, "  %-10s %s\n", "help", "show this help, or a command's help");
  fprintf(f,
          "\n"
          "Options:\n"
          "  -h, --help     show this help\n"
          "  --version      print the clforge version\n"
          "\n"
          "Run 'clforge <command> --help' for a command's options.\n");
}

static const command *find_command(const char *name) {
  for (size_t i = 0; i < CLI_COUNT(commands); ++i)
    if (!strcmp(commands[i].name, name)) return &commands[i];
  return NULL;
}

/* The drivers README command 1 installed into the checkout
 * (tools/install-intel-opencl.sh: Intel's OpenCL CPU runtime beside the
 * system's ICDs) are shown to the command built there, so that `clforge
 * info`, `tune` and `bench` see every driver; a user's own OCL_ICD_VENDORS
 * wins, and an installed command whose checkout is gone sees the system's. */
static void see_checkout_drivers(void) {
#ifdef CLFORGE_CHECKOUT_ICD_VENDORS
  struct stat st;
  if (!getenv("OCL_ICD_VENDORS") && stat(CLFORGE_CHECKOUT_ICD_VENDORS, &st) == 0 && S_ISDIR(st.st_mode))
    setenv("OCL_ICD_VENDORS", CLFORGE_CHECKOUT_ICD_VENDORS, 0);
#endif
}

int main(int argc, char **argv) {
  see_checkout_drivers();
  if (argc < 2) {
    usage(stderr);
    return EXIT_USAGE;
  }
  const char *arg = argv[1];
  if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
    usage(stdout);
    return 0;
  }
  if (!strcmp(arg, "--version")) {
    printf("clforge %s\n", clforge_version());
    return 0;
  }
  if (!strcmp(arg, "help")) {
    if (argc < 3) {
      usage(stdout);
      return 0;
    }
    const command *c = find_command(argv[2]);
    if (!c) {
      fprintf(stderr, "clforge: unknown command '%s'\nRun 'clforge --help' for usage.\n", argv[2]);
      return EXIT_USAGE;
    }
    c->help(stdout);
    return 0;
  }
  const command *c = find_command(arg);
  if (!c) {
    fprintf(stderr, "clforge: unknown %s '%s'\nRun 'clforge --help' for usage.\n",
            arg[0] == '-' ? "option" : "command", arg);
    return EXIT_USAGE;
  }
  return c->run(argc - 1, argv + 1);
}

/* `clforge bench <op> [options]`: one row of bench_ops[] per benchmark of
 * bench/; each parses its own options. */
#include "bench.h"

#include <string.h>

#include "allreduce_bench.h" /* bench/ */
#include "attention_bench.h"
#include "cli_util.h"
#include "conv_bench.h"
#include "gemm_bench.h"
#include "peak_bench.h"
#include "softmax_bench.h"
#include "train_bench.h"

/* The benchmarks, one per op; each parses its own options (argv[0] is the op). */
static const struct {
  const char *name;
  const char *summary;
  int (*run)(int argc, char **argv);
} bench_ops[] = {
    {"gemm", "clforge_gemm vs CLBlast and OpenBLAS: f32, f16, bf16; squares and transformer shapes",
     clforge_bench_gemm_main},
    {"conv", "clforge_conv2d's algorithms vs CLBlast convgemm and oneDNN: ResNet-50, MobileNetV2, AlexNet layers",
     clforge_bench_conv_main},
    {"attention", "clforge_attention vs the unfused GEMM + softmax + GEMM (clforge's, CLBlast's): prefill and decode",
     clforge_bench_attention_main},
    {"softmax", "clforge_softmax's bandwidth: attention scores, vocabulary logits, short rows; f32, f16, bf16",
     clforge_bench_softmax_main},
    {"train", "cross-entropy (fused vs unfused) and the AdamW step: bandwidth; f32, bf16, f16",
     clforge_bench_train_main},
    {"allreduce", "clforge_allreduce across ranks of this process (sub-devices or contexts): 8 B to 256 MiB, busbw",
     clforge_bench_allreduce_main},
    {"peak", "the device's peak multiply-add rate and memory bandwidth (every op's % peak)", clforge_bench_peak_main},
};

void clforge_cli_bench_help(FILE *f) {
  fprintf(f,
          "usage: clforge bench <op> [options]\n"
          "\n"
          "Time an op on the default device (CLFORGE_DEVICE) with OpenCL profiling events,\n"
          "next to other libraries on the same data, and print a table or JSON lines.\n"
          "\n"
          "Ops:\n");
  for (size_t i = 0; i < CLI_COUNT(bench_ops); ++i) fprintf(f, "  %-11s %s\n", bench_ops[i].name, bench_ops[i].summary);
  fprintf(f,
          "\n"
          "Options:\n"
          "  -h, --help     show this help\n"
          "\n"
          "Run 'clforge bench <op> --help' for an op's options.\n"
          "Exit status: 0 on success, 1 when a measurement failed or no device was found,\n"
          "2 on a usage error.\n");
}

int clforge_cli_bench(int argc, char **argv) {
  if (argc < 2) {
    clforge_cli_bench_help(stderr);
    return EXIT_USAGE;
  }
  const char *op = argv[1];
  if (!strcmp(op, "-h") || !strcmp(op, "--help")) {
    clforge_cli_bench_help(stdout);
    return 0;
  }
  for (size_t i = 0; i < CLI_COUNT(bench_ops); ++i)
    if (!strcmp(bench_ops[i].name, op)) return bench_ops[i].run(argc - 1, argv + 1);
  fprintf(stderr, "clforge bench: unknown %s '%s'\nRun 'clforge bench --help' for the list of ops.\n",
          op[0] == '-' ? "option" : "op", op);
  return EXIT_USAGE;
}

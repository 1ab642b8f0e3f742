/* `clforge explain`: which kernels and parameters a call would use, and why. */
#ifndef CLFORGE_TOOLS_EXPLAIN_H
#define CLFORGE_TOOLS_EXPLAIN_H

#include <stdio.h>

#include "clforge/clforge.h"

int clforge_cli_explain(int argc, char **argv); /* argv[0] is "explain" */
int clforge_cli_explain_conv(int argc, char **argv); /* argv[1] is "conv" (tools/explain_conv.c) */
int clforge_cli_explain_attention(int argc, char **argv); /* argv[1] is "attention" (tools/explain_attention.c) */
int clforge_cli_explain_softmax(int argc, char **argv); /* argv[1] is "softmax" (tools/explain_softmax.c) */
void clforge_cli_explain_help(FILE *out);
/* The lines conv and attention print per kernel: family, where its
 * parameters come from (with the tuned rate), the values. */
void clforge_cli_explain_print_kernel(const clforge_kernel_choice *k);

#endif

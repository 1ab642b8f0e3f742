/* The subcommands of `clforge explain` (tools/explain.c dispatches to them)
 * and what they share (explain_common.c). */
#ifndef CLFORGE_TOOLS_EXPLAIN_COMMON_H
#define CLFORGE_TOOLS_EXPLAIN_COMMON_H

#include "clforge/clforge.h"

int clforge_cli_explain_conv(int argc, char **argv); /* argv[1] is "conv" (tools/explain_conv.c) */
int clforge_cli_explain_attention(int argc, char **argv); /* argv[1] is "attention" (tools/explain_attention.c) */
int clforge_cli_explain_softmax(int argc, char **argv); /* argv[1] is "softmax" (tools/explain_softmax.c) */

/* The lines conv, attention and softmax print per kernel: family, where
 * its parameters come from (with the tuned rate), the values. */
void clforge_cli_explain_print_kernel(const clforge_kernel_choice *k);

#endif

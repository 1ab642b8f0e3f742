/* `clforge explain`: which kernels and parameters a call would use, and why. */
#ifndef CLFORGE_TOOLS_EXPLAIN_H
#define CLFORGE_TOOLS_EXPLAIN_H

#include <stdio.h>

#include "clforge/clforge.h"

int clforge_cli_explain(int argc, char **argv); /* argv[0] is "explain" */
void clforge_cli_explain_help(FILE *out);

#endif

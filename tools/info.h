/* `clforge info`: platforms, devices, clforge's setup, transfer bandwidth. */
#ifndef CLFORGE_TOOLS_INFO_H
#define CLFORGE_TOOLS_INFO_H

#include <stdio.h>

int clforge_cli_info(int argc, char **argv); /* argv[0] is "info" */
void clforge_cli_info_help(FILE *out);

#endif

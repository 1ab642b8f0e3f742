/* `clforge tune`: tune the default device and save the tuning file. */
#ifndef CLFORGE_TOOLS_TUNE_H
#define CLFORGE_TOOLS_TUNE_H

#include <stdio.h>

int clforge_cli_tune(int argc, char **argv); /* argv[0] is "tune" */
void clforge_cli_tune_help(FILE *out);

#endif

/* What more than one part of the clforge command uses: the usage-error exit
 * status, driver strings made printable, byte sizes read and shown, JSON out. */
#ifndef CLFORGE_TOOLS_CLI_UTIL_H
#define CLFORGE_TOOLS_CLI_UTIL_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdio.h>

#include "clforge/clforge.h"

enum { EXIT_USAGE = 2 }; /* every command's exit status for a bad command line */

#define CLI_COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Copy a driver string for display: control characters and invalid UTF-8
 * become '?', surrounding blanks (some drivers pad names) are trimmed.
 * Returns out. */
const char *clforge_cli_clean(const char *in, char *out, size_t cap);

/* "64 MiB", "7.63 GiB", "512 KiB", "100 B". Returns buf. */
const char *clforge_cli_human_bytes(unsigned long long b, char *buf, size_t cap);

/* Parse "N", "NK", "NM", "NG" (binary multiples; optional "iB"/"B") into a
 * positive byte count. Returns 0, or -1 for anything else. */
int clforge_cli_parse_bytes(const char *s, unsigned long long *out);

/* The names of one of the library's lists (clforge_registry_name) joined
 * with sep, the last with last ("a, b or c"); truncated to cap. Returns buf. */
const char *clforge_cli_names(clforge_registry list, const char *sep, const char *last, char *buf, size_t cap);

/* Print text's words wrapped at 80 columns, the first at column col (where
 * the caller left the line), the next lines indented to column indent;
 * ends the line. For help texts that list the library's names. */
void clforge_cli_wrap(FILE *f, const char *text, int col, int indent);

/* Add key: s made printable, or null for NULL or "". */
void clforge_cli_json_add_str(cJSON *obj, const char *key, const char *s);

/* Print root indented on stdout and delete it. Returns 0, or 1 when out of
 * memory or the write failed (with a message on stderr). */
int clforge_cli_print_json(cJSON *root);

#endif

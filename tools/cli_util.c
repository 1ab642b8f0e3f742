/* Helpers shared by the clforge command's files (see cli_util.h). */
#include "cli_util.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *clforge_cli_clean(const char *in, char *out, size_t cap) {
  size_t o = 0;
  if (!in) in = "";
  while (*in == ' ' || *in == '\t') ++in;
  const unsigned char *s = (const unsigned char *)in;
  while (*s && o + 1 < cap) {
    unsigned c = *s;
    size_t len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    int ok = len > 0 && !(len == 1 && (c < 0x20 || c == 0x7F)) && !(len == 2 && c < 0xC2);
    for (size_t k = 1; ok && k < len; ++k)
      if ((s[k] & 0xC0) != 0x80) ok = 0;
    if (!ok || o + len >= cap) {
      if (!ok) out[o++] = '?';
      s += ok ? len : 1;
      if (ok) break; /* a multi-byte character that does not fit */
      continue;
    }
    memcpy(out + o, s, len);
    o += len;
    s += len;
  }
  while (o > 0 && (out[o - 1] == ' ' || out[o - 1] == '\t')) --o;
  out[o] = '\0';
  return out;
}

const char *clforge_cli_human_bytes(unsigned long long b, char *buf, size_t cap) {
  static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double v = (double)b;
  int u = 0;
  while (v >= 1024.0 && u < 5) {
    v /= 1024.0;
    ++u;
  }
  if (u == 0) snprintf(buf, cap, "%llu B", b);
  else if (v == (double)(unsigned long long)v) snprintf(buf, cap, "%.0f %s", v, unit[u]);
  else snprintf(buf, cap, "%.2f %s", v, unit[u]);
  return buf;
}

int clforge_cli_parse_bytes(const char *s, unsigned long long *out) {
  if (!s || *s < '0' || *s > '9') return -1;
  errno = 0;
  char *end;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno) return -1;
  unsigned shift = 0;
  switch (*end) {
    case 'k': case 'K': shift = 10; ++end; break;
    case 'm': case 'M': shift = 20; ++end; break;
    case 'g': case 'G': shift = 30; ++end; break;
    default: break;
  }
  if (shift && *end == 'i') ++end;
  if (*end == 'B' || *end == 'b') ++end;
  if (*end) return -1;
  if (shift && v > (ULLONG_MAX >> shift)) return -1;
  v <<= shift;
  if (v == 0) return -1;
  *out = v;
  return 0;
}

static cJSON *json_str_or_null(const char *s) {
  char buf[4096];
  return (s && s[0]) ? cJSON_CreateString(clforge_cli_clean(s, buf, sizeof buf)) : cJSON_CreateNull();
}

void clforge_cli_json_add_str(cJSON *obj, const char *key, const char *s) {
  cJSON_AddItemToObject(obj, key, json_str_or_null(s));
}

int clforge_cli_print_json(cJSON *root) {
  char *text = cJSON_Print(root);
  cJSON_Delete(root);
  if (!text) {
    fprintf(stderr, "clforge: out of memory while writing JSON\n");
    return 1;
  }
  fputs(text, stdout);
  fputc('\n', stdout);
  cJSON_free(text);
  return fflush(stdout) == 0 ? 0 : 1;
}

const char *clforge_cli_names(clforge_registry list, const char *sep, const char *last, char *buf, size_t cap) {
  int n = 0;
  size_t len = 0;
  if (cap) buf[0] = '\0';
  if (clforge_registry_count(list, &n) != CLFORGE_SUCCESS) return buf;
  for (int i = 0; i < n && len < cap; ++i) {
    const char *name = "?";
    clforge_registry_name(list, i, &name);
    int w = snprintf(buf + len, cap - len, "%s%s", i == 0 ? "" : i == n - 1 ? last : sep, name);
    if (w < 0) break;
    len += (size_t)w;
  }
  return buf;
}

void clforge_cli_wrap(FILE *f, const char *text, int col, int indent) {
  while (*text) {
    while (*text == ' ') ++text;
    int w = (int)strcspn(text, " ");
    if (!w) break;
    if (col > indent && col + 1 + w > 80) {
      fprintf(f, "\n%*s", indent, "");
      col = indent;
    } else if (col > indent) {
      fputc(' ', f);
      ++col;
    }
    fprintf(f, "%.*s", w, text);
    col += w;
    text += w;
  }
  fputc('\n', f);
}

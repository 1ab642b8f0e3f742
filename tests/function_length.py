#!/usr/bin/env python3
"""Fails when a C function is longer than the limit (80 lines) and the
comment right above its definition gives no reason in the form "long: why".

  python3 tests/function_length.py [--limit N] DIR_OR_FILE...   (e.g. src)
  python3 tests/function_length.py --self-test

A function's length runs from the first line of its signature to its closing
brace. Comments, string and character literals and preprocessor lines are
blanked first (newlines kept), so braces inside them do not count, and a
signature may span several lines. Standard library only: the check needs
neither the library nor a GPU.
"""
import os
import re
import sys

LIMIT = 80
REASON = re.compile(r"\blong:\s*\S")
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")
NOT_NAMES = {"if", "for", "while", "switch", "return", "sizeof", "__attribute__"}


def blank_comment(text, out, i):
    """Blanks the block comment at i in out (newlines kept); the offset after it."""
    end = text.find("*/", i + 2)
    end = len(text) if end < 0 else end + 2
    for j in range(i, end):
        if text[j] != "\n":
            out[j] = " "
    return end


def blank(text):
    """The text with comments, literals and preprocessor lines replaced by
    spaces; newlines and every other character keep their offsets."""
    out = list(text)
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if c == "\n":
            line_start = True
            i += 1
            continue
        if line_start and c in " \t":
            i += 1
            continue
        if line_start and c == "#":  # a directive, with its continuations
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out[i] = " "
                    i += 2
                    continue
                if text.startswith("/*", i):  # a block comment may span lines
                    i = blank_comment(text, out, i)
                    continue
                out[i] = " "
                i += 1
            continue
        line_start = False
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                out[i] = " "
                i += 1
        elif text.startswith("/*", i):
            i = blank_comment(text, out, i)
        elif c in "\"'":
            out[i] = " "
            i += 1
            while i < n and text[i] != c and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n:
                    out[i] = " "
                    i += 1
                out[i] = " " if text[i] != "\n" else "\n"
                i += 1
            if i < n and text[i] == c:
                out[i] = " "
                i += 1
        else:
            i += 1
    return "".join(out)


def function_name(head):
    """The name of the function whose signature ends `head` (text between
    the previous top-level declaration and a top-level '{'), or None when
    the brace opens something else (an initializer, a struct, an enum)."""
    h = head.rstrip()
    if not h.endswith(")"):
        return None
    depth, k = 0, len(h) - 1
    while k >= 0:  # find the '(' matching the last ')'
        if h[k] == ")":
            depth += 1
        elif h[k] == "(":
            depth -= 1
            if depth == 0:
                break
        k -= 1
    if k < 0:
        return None
    before = h[:k].rstrip()
    if "=" in re.sub(r"\([^()]*\)", "", before):  # `x = f(...) {` is no definition
        return None
    m = IDENT.search(before)
    if not m or m.group(0) in NOT_NAMES:
        return None
    return m.group(0)


def functions(text):
    """(name, first line, last line) of each function defined in text."""
    clean = blank(text)
    found = []
    depth = 0
    head_start = 0  # offset after the last top-level ';', '}' or '{'
    open_at = None
    name = None
    for i, c in enumerate(clean):
        if c == "{":
            if depth == 0:
                name = function_name(clean[head_start:i])
                open_at = head_start
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                if name:
                    start = open_at + (len(clean[open_at:]) - len(clean[open_at:].lstrip()))
                    first = clean.count("\n", 0, start) + 1
                    last = clean.count("\n", 0, i) + 1
                    found.append((name, first, last))
                name = None
                head_start = i + 1
        elif c == ";" and depth == 0:
            head_start = i + 1
    return found


def has_reason(lines, first):
    """True when the comment block right above line `first` (1-based) holds
    'long: <reason>'."""
    k = first - 2
    block = []
    while k >= 0:
        s = lines[k].strip()
        if not s or not (s.startswith(("/*", "*", "//")) or s.endswith("*/")):
            break
        block.append(s)
        k -= 1
    return any(REASON.search(s) for s in block)


def check_text(path, text, limit):
    """Lines of report: (flagged, message) for each function over the limit."""
    lines = text.split("\n")
    out = []
    for name, first, last in functions(text):
        length = last - first + 1
        if length > limit:
            ok = has_reason(lines, first)
            out.append((not ok, "%s:%d: %s is %d lines%s" % (
                path, first, name, length,
                " (reason written above it)" if ok else
                " (over %d; split it, or write 'long: <why>' in the comment above it)" % limit)))
    return out


def c_files(args):
    for a in args:
        if os.path.isdir(a):
            for root, dirs, files in os.walk(a):
                dirs.sort()
                for f in sorted(files):
                    if f.endswith(".c"):
                        yield os.path.join(root, f)
        else:
            yield a


SAMPLE = r'''
#include <stdio.h>
#define BRACE_MACRO(x) do { if (x) { } } while (0)
static const char *msgs[] = { "}", "{", "{{" };
struct s { int a; };
/* a brace in a comment: { */
static int
multi_line(int a,
           const char *b)
{
    const char *t = "}}}";  /* } */
    char c = '{';
    // }
    return a + (int)c + (t[0] == '}');
}
/* long: one loop over the table, kept whole so the cases read in order */
int with_reason(void)
{
    return 0;
}
int short_one(void) { return 1; }
'''


def self_test():
    """The checker against a sample with the cases it must get right."""
    body = "\n".join("    x += %d;" % i for i in range(90))
    text = SAMPLE.replace("    return a + (int)c", body + "\n    return a + (int)c")
    text = text.replace("    return 0;\n}", body + "\n    return 0;\n}")
    found = {name: (first, last) for name, first, last in functions(text)}
    errors = []
    if sorted(found) != ["multi_line", "short_one", "with_reason"]:
        errors.append("functions found: %s" % sorted(found))
    report = check_text("sample.c", text, LIMIT)
    flagged = [m for bad, m in report if bad]
    if len(report) != 2 or len(flagged) != 1 or "multi_line" not in flagged[0]:
        errors.append("report: %s" % report)
    if "multi_line" in found and found["multi_line"][1] - found["multi_line"][0] + 1 != 99:
        errors.append("multi_line spans %s, expected 99 lines" % (found["multi_line"],))
    for e in errors:
        print("self-test: " + e)
    print("self-test: %s" % ("failed" if errors else "passed"))
    return 1 if errors else 0


def main(argv):
    limit = LIMIT
    args = argv[1:]
    if args[:1] == ["--self-test"]:
        return self_test()
    if args[:1] == ["--limit"]:
        limit = int(args[1])
        args = args[2:]
    if not args:
        print(__doc__)
        return 2
    flagged = 0
    for path in c_files(args):
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        for bad, message in check_text(path, text, limit):
            print(("FLAG " if bad else "ok   ") + message)
            flagged += bad
    print("%d function(s) over %d lines without a reason" % (flagged, limit))
    return 1 if flagged else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

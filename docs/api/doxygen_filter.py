#!/usr/bin/env python3
"""Doxygen input filter: reads gpgpu's plain `//` comments as documentation.

The public headers keep the project's comment style (`//`); this filter maps it onto
Doxygen's without touching the sources, one output line per input line (so Doxygen's
warnings name the header's real line numbers):

- the comment block at the top of a header (its manual) becomes the file's documentation,
  shown verbatim;
- a comment block directly above a line of code (no blank line between) documents that
  line's declaration;
- a comment after a declaration on the same line (`int x = 0;  // what x is`), and the
  comment lines aligned under it, document that member (each variable of `int a, b;`);
- a comment block between `// @{` and `// @}` lines documents every declaration between
  them (Doxygen's member groups): one comment for a family of overloads.

Other comments (after a blank line, before `}`, `public:`, `#...`) stay plain comments.
Usage (Doxygen's INPUT_FILTER): doxygen_filter.py HEADER
"""
import re
import sys

COMMENT = re.compile(r"^(\s*)//(?![/!])\s?(.*)$")
TRAILING = re.compile(r"^(.*?[;,{})A-Za-z0-9_])(\s+)//(?![/!<])\s?(.*)$")
GROUP = re.compile(r"^\s*//\s?@[{}]\s*$")
NOT_A_DECLARATION = re.compile(r"^\s*(#|}|public:|private:|protected:|$)")


def declarators(code):
    """How many variables a declaration line declares (`int a = 0, b;` declares 2)."""
    if not code.rstrip().endswith(";"):
        return 0
    depth, count = 0, 1
    for c in code:
        if c in "([{<":
            depth += 1
        elif c in ")]}>":
            depth -= 1
        elif c == "," and depth == 0:
            count += 1
    return count


def header_manual(lines):
    """The top-of-file comment block as the file's documentation: its first paragraph the
    brief, the rest verbatim. Returns (output lines, lines read)."""
    n = 0
    while n < len(lines) and COMMENT.match(lines[n]):
        n += 1
    if n == 0:
        return [], 0
    body = [COMMENT.match(line).group(2) for line in lines[:n]]
    out = ["/** @brief " + body[0]]
    verbatim = False
    for text in body[1:]:
        if not verbatim and not text.strip():
            out.append(" @details @verbatim")
            verbatim = True
        else:
            out.append(" " + text)
    out[-1] += (" @endverbatim" if verbatim else "") + " @file */"
    return out, n


def document(lines):
    out, i = header_manual(lines)
    trailing_column = None  # the column of the last trailing comment, for its continuation
    while i < len(lines):
        line = lines[i]
        m = COMMENT.match(line)
        if m and m.group(2).strip() in ("@{", "@}"):  # a member group: one comment for all
            out.append(m.group(1) + "/**" + m.group(2).strip() + "*/")
            trailing_column = None
            i += 1
            continue
        if m:
            if trailing_column is not None and len(m.group(1)) == trailing_column:
                out.append(m.group(1) + "///< " + m.group(2))
                i += 1
                continue
            trailing_column = None
            j = i
            while j < len(lines) and COMMENT.match(lines[j]) and not GROUP.match(lines[j]):
                j += 1
            is_doc = j < len(lines) and not NOT_A_DECLARATION.match(lines[j])
            for k in range(i, j):
                c = COMMENT.match(lines[k])
                out.append(c.group(1) + ("/// " if is_doc else "// ") + c.group(2) if is_doc
                           else lines[k])
            i = j
            continue
        t = TRAILING.match(line)
        if t and t.group(1).strip() not in ("}", "};") and '"' not in t.group(1).split("//")[0][-1:] and t.group(1).count('"') % 2 == 0:
            code = t.group(1)
            indent = code[: len(code) - len(code.lstrip())]
            text = t.group(3).replace("*/", "* /")
            if code.rstrip().endswith("}"):  # an inline body: Doxygen wants the comment first
                out.append(indent + "/** " + text + " */ " + code.lstrip())
                trailing_column = None
            elif declarators(code) > 1:  # `double lo = 0, hi = 0;  // ...` documents each
                out.append(indent + "/**@{*/ /** " + text + " */ " + code.lstrip() + " /**@}*/")
                trailing_column = None
            else:
                trailing_column = len(code) + len(t.group(2))
                out.append(code + t.group(2) + "///< " + t.group(3))
        else:
            trailing_column = None
            out.append(line)
        i += 1
    return out


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        lines = f.read().split("\n")
    sys.stdout.write("\n".join(document(lines)))


if __name__ == "__main__":
    main()

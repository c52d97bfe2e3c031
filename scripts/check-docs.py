#!/usr/bin/env python3
"""Checks that the docs hold together; exits 1 with one line per problem.

1. Every relative link and image in README.md and docs/**/*.md resolves: the file exists,
   and an #anchor into a Markdown page names one of its headings (GitHub's slugs).
2. Every measurement folder under docs/results (docs/results/<device>/<measurement>/) is
   cited by a page (its path appears in README.md or a docs/ page), holds a COMMAND file
   saying how it was made, and no .patch file is kept there.
3. No page narrates the development (numbered sessions, rounds or device calls, "tried and
   dropped"), and no code comment does either: a manual says what the project does and what
   was measured; the history belongs in commit messages.
4. No page is longer than MAX_PAGE_LINES lines: a longer topic splits into pages.

Usage: python3 scripts/check-docs.py [repository root]   (scripts/test.sh runs it first)
"""
import pathlib
import re
import sys

MAX_PAGE_LINES = 520
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HTML_REF = re.compile(r"<(?:img|a)\b[^>]*?\b(?:src|href)=\"([^\"]+)\"", re.IGNORECASE)
FENCE = re.compile(r"^\s*(```|~~~)")
ORDINALS = "first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth"
# Development narrative, in pages and in code comments alike.
DIARY = re.compile(
    rf"\b(?:(?:{ORDINALS}|this|last|earlier|previous|next|same|later) (?:session|round of work|device call)s?\b"
    r"|sessions? of 20\d\d|session [0-9]+\b|\b(?:device )?calls? [0-9]+(?: and [0-9]+)? of\b"
    r"|\bin (?:device )?call [0-9]+|\btried and dropped\b|\bwas tried\b|\bwe tried\b"
    r"|\bround [0-9]+ of (?:the )?work)",
    re.IGNORECASE)
# Pages only: numbered rounds and device calls as chapters of a story.
PAGE_DIARY = re.compile(
    rf"\b(?:the (?:{ORDINALS}) round\b|(?:device )?call [0-9]+\b|\bdropped again\b"
    r"|\b(?:was|were) (?:tried|dropped)\b)",
    re.IGNORECASE)
CODE_DIRS = ["src", "include", "tools", "bench", "scripts", "python", "js/src", "tests", "examples",
             "cmake", "web"]
CODE_SUFFIXES = {".cpp", ".hpp", ".h", ".c", ".cu", ".py", ".sh", ".cmake", ".ts", ".js", ".mjs"}
COMMENT = re.compile(r"(?://|#)\s?(.*)$")


def slug(heading):
    """GitHub's anchor for a Markdown heading."""
    text = re.sub(r"`|\*\*|__|\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page, cache={}):
    if page not in cache:
        found, counts, fenced = set(), {}, False
        for line in page.read_text(encoding="utf-8").splitlines():
            if FENCE.match(line):
                fenced = not fenced
            m = None if fenced else re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
            if m:
                base = slug(m.group(1))
                n = counts.get(base, 0)
                counts[base] = n + 1
                found.add(base if n == 0 else f"{base}-{n}")
        found |= set(re.findall(r"<a\s+(?:name|id)=\"([^\"]+)\"", page.read_text(encoding="utf-8")))
        cache[page] = found
    return cache[page]


def prose_lines(page):
    """(line number, text) of a page outside fenced code blocks."""
    fenced = False
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            yield number, line


def check_links(root, pages, problems):
    for page in pages:
        for number, line in prose_lines(page):
            for target in LINK.findall(line) + HTML_REF.findall(line):
                if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE):
                    continue  # http:, https:, mailto:
                path, _, anchor = target.partition("#")
                resolved = page if not path else (page.parent / path).resolve()
                where = f"{page.relative_to(root)}:{number}"
                if not resolved.exists():
                    problems.append(f"{where}: link to {target}: no such file")
                elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
                    problems.append(f"{where}: link to {target}: {resolved.name} has no heading #{anchor}")


def check_results(root, pages, problems):
    results = root / "docs" / "results"
    if not results.is_dir():
        return
    cited = "\n".join(p.read_text(encoding="utf-8") for p in pages)
    for patch in results.rglob("*.patch"):
        problems.append(f"{patch.relative_to(root)}: no .patch files in docs/results (history keeps them)")
    for device in sorted(p for p in results.iterdir() if p.is_dir()):
        for folder in sorted(p for p in device.iterdir()):
            rel = folder.relative_to(root / "docs").as_posix()
            if not folder.is_dir():
                problems.append(f"docs/{rel}: put it in a measurement folder (docs/results/<device>/<measurement>/)")
                continue
            if not re.search(re.escape(rel) + r"(?![\w.-])", cited):
                problems.append(f"docs/{rel}: no page cites it (cite it where its figures are, or remove it)")
            if not (folder / "COMMAND").is_file():
                problems.append(f"docs/{rel}: no COMMAND file (the command that made this output)")


def check_diary(root, pages, problems):
    for page in pages:
        for number, line in prose_lines(page):
            if DIARY.search(line) or PAGE_DIARY.search(line):
                problems.append(f"{page.relative_to(root)}:{number}: narrates the development: {line.strip()[:100]}")
    for folder in CODE_DIRS:
        for source in sorted((root / folder).rglob("*")):
            if source.suffix not in CODE_SUFFIXES or not source.is_file() or "build" in source.parts:
                continue
            for number, line in enumerate(source.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
                m = COMMENT.search(line)
                if m and DIARY.search(m.group(1)):
                    problems.append(f"{source.relative_to(root)}:{number}: a comment narrates the development: "
                                    f"{m.group(1).strip()[:100]}")


def check_length(root, pages, problems):
    for page in pages:
        n = len(page.read_text(encoding="utf-8").splitlines())
        if n > MAX_PAGE_LINES:
            problems.append(f"{page.relative_to(root)}: {n} lines; split the topic into pages of at most "
                            f"{MAX_PAGE_LINES}")


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parent.parent).resolve()
    pages = [root / "README.md"] + sorted(p for p in (root / "docs").rglob("*.md")
                                          if "results" not in p.relative_to(root / "docs").parts)
    problems = []
    check_links(root, pages, problems)
    check_results(root, pages, problems)
    check_diary(root, pages, problems)
    check_length(root, [p for p in pages if p.name != "README.md" or p.parent != root], problems)
    for p in problems:
        print(p)
    print(f"check-docs: {len(pages)} pages, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

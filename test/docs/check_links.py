#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Every relative link of README.md, CHANGELOG.md and docs/*.md leads somewhere.

  check_links.py

A link [text](TARGET) or ![alt](TARGET) whose TARGET is not a URL (scheme:) must name a file or
directory of the repository, relative to the page; a #FRAGMENT must be a heading of the target
page (GitHub's anchors: lower case, punctuation dropped, spaces as '-'). Links inside code
blocks and inline code are not links.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")


def pages():
    return [ROOT / "README.md", ROOT / "CHANGELOG.md"] + sorted((ROOT / "docs").glob("*.md"))


def prose_lines(path):
    """(line number, text) of the lines outside fenced code, inline code removed."""
    fenced = False
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if line.startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            yield number, re.sub(r"`[^`]*`", "", line)


def anchor(heading):
    text = re.sub(r"`|\*\*?|\[([^\]]*)\]\([^)]*\)", r"\1", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path):
    found = set()
    for _, line in prose_lines(path):
        if match := HEADING.match(line):
            name, n = anchor(match[1]), 1
            while name in found:  # GitHub numbers repeated headings: name-1, name-2, ...
                name, n = f"{anchor(match[1])}-{n}", n + 1
            found.add(name)
    return found


def main():
    problems, checked = [], 0
    for page in pages():
        for number, line in prose_lines(page):
            for target in LINK.findall(line):
                if re.match(r"[a-z][a-z0-9+.-]*:", target):
                    continue  # a URL
                checked += 1
                where = f"{page.relative_to(ROOT)}:{number}: {target}"
                file, _, fragment = target.partition("#")
                path = (page.parent / file).resolve() if file else page
                if not path.exists() or ROOT not in [path, *path.parents]:
                    problems.append(f"{where}: no such file in the repository")
                elif fragment and path.suffix == ".md" and fragment not in anchors(path):
                    problems.append(f"{where}: no heading '#{fragment}' in {path.name}")
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"check_links: {checked} relative links, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

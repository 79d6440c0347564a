#!/usr/bin/env python3
"""Checks the relative links of README.md and docs/**/*.md: each [text](path#anchor) names a file
or folder that exists and, for a Markdown file, a heading whose GitHub anchor is the anchor.
Prints one FAIL line per broken link and exits 1; --inject FILE:TARGET adds a link to check."""
import argparse
import pathlib
import re
import sys

LINK = re.compile(r'\[[^\]]*\]\(([^)\s]+)\)')
FENCE = re.compile(r'^(```|~~~)')


def slug(heading):
    text = re.sub(r'[`*_]|\[([^\]]*)\]\([^)]*\)', lambda m: m.group(1) or '', heading.strip().lower())
    return re.sub(r'[^\w\- ]', '', text).replace(' ', '-')


def prose_lines(path):
    inside = False
    for line in path.read_text(encoding='utf-8').splitlines():
        if FENCE.match(line):
            inside = not inside
            continue
        if not inside:
            yield line


def anchors(path):
    seen, out = {}, set()
    for line in prose_lines(path):
        m = re.match(r'^#{1,6}\s+(.*?)\s*#*$', line)
        if m:
            s = slug(m.group(1))
            n = seen.get(s, 0)
            seen[s] = n + 1
            out.add(s if n == 0 else f'{s}-{n}')
    return out


def check(root, source, target, problems):
    if re.match(r'^[a-z]+:', target):
        return  # http:, https:, mailto:
    path, _, anchor = target.partition('#')
    dest = (source.parent / path).resolve() if path else source
    rel = source.relative_to(root)
    if not dest.exists():
        problems.append(f'FAIL {rel}: {target}: {path} does not exist')
    elif anchor and dest.suffix == '.md' and anchor not in anchors(dest):
        problems.append(f"FAIL {rel}: {target}: no heading '{anchor}' in {dest.relative_to(root)}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--root', required=True)
    ap.add_argument('--inject', action='append', default=[])
    args = ap.parse_args()
    root = pathlib.Path(args.root).resolve()
    files = [root / 'README.md'] + sorted((root / 'docs').rglob('*.md'))
    problems = []
    for f in files:
        for line in prose_lines(f):
            for target in LINK.findall(line):
                check(root, f, target, problems)
    for item in args.inject:
        name, _, target = item.partition(':')
        check(root, root / name, target, problems)
    for p in problems:
        print(p)
    print(f'{len(files)} files checked, {len(problems)} broken links')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())

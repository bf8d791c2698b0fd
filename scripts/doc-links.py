#!/usr/bin/env python3
"""doc-links.py ROOT DOC: every relative link of the Markdown files under ROOT/DOC, one a line.

Prints "TARGET FROM" for each link that is not a web address or an anchor: TARGET is the path
the link leads to and FROM the file it is in, both as seen inside ROOT (an installed root), so
that a check can follow them there, symbolic links and all (scripts/package-test.sh).
"""
import os
import re
import sys

root, doc = sys.argv[1], sys.argv[2]
for folder, _, files in os.walk(root + doc):
    inside = folder[len(root):]
    for name in sorted(files):
        if not name.endswith(".md"):
            continue
        with open(os.path.join(folder, name), encoding="utf-8") as markdown:
            text = markdown.read()
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:|#", target):
                continue
            path = os.path.normpath(os.path.join(inside, target.split("#")[0]))
            print(path, os.path.join(inside, name))

#!/usr/bin/env python3
"""Reads a snapshot's library.bib as a reference manager would, with bibtexparser (PyPI).

Usage: read_bib.py LIBRARY_BIB

Prints JSON: {"failed": [...], "entries": [{"key", "type", "fields": {name: text}}]}, each field's
text as LaTeX reads it. Only the forms reader-snapshot writes are turned back into characters
(bibtexparser's own LaTeX decoder reads \\textbraceleft{} as nothing and ^ as a modifier letter).
"""
import json
import logging
import sys

import bibtexparser

# What LaTeX typesets for each form the writer uses, in the order that keeps them apart.
FORMS = [("\\textbackslash{}", "\\"), ("\\textbraceleft{}", "{"), ("\\textbraceright{}", "}"),
         ("\\textasciicircum{}", "^"), ("\\textasciitilde{}", "~"), ("{@}", "@"),
         ("\\%", "%"), ("\\&", "&"), ("\\$", "$"), ("\\#", "#"), ("\\_", "_")]


def as_latex_reads(text):
    out, i = [], 0
    while i < len(text):
        for form, char in FORMS:
            if text.startswith(form, i):
                out.append(char)
                i += len(form)
                break
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


class Said(logging.Handler):
    """What the parser says of a block it could not read, kept for the JSON (not on stderr)."""
    def __init__(self):
        super().__init__()
        self.lines = []

    def emit(self, record):
        self.lines.append(record.getMessage())


def main():
    said = Said()
    logging.getLogger().handlers = [said]
    library = bibtexparser.parse_file(sys.argv[1])
    print(json.dumps({
        "failed": [str(block.error) or block.raw[:200] for block in library.failed_blocks] + said.lines,
        "entries": [{"key": entry.key, "type": entry.entry_type,
                     "fields": {field.key: as_latex_reads(field.value) for field in entry.fields}}
                    for entry in library.entries],
    }))


if __name__ == "__main__":
    main()

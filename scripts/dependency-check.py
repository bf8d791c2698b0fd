#!/usr/bin/env python3
"""Every target of Package.swift names exactly the modules its Swift files import.

usage: dependency-check.py   (in the package's folder; it runs `swift package dump-package`)

SwiftPM's --explicit-target-dependency-import-check (which `make test` builds with) catches an
import of one of this package's targets that the importer does not name; it does not see the
products of other packages (NIOCore, Crypto…), nor a dependency named and never imported. This
script compares both ways for every target and prints a line per difference; exits 1 on any.
"""
import glob
import json
import re
import subprocess
import sys

# The platform's own modules, which no target names.
PLATFORM = {"Foundation", "FoundationEssentials", "FoundationXML", "FoundationNetworking", "Dispatch", "Glibc", "Musl", "Darwin",
            "Android", "Testing", "XCTest", "Synchronization", "_Concurrency", "os", "CoreFoundation"}
# Named for a reason the imports cannot show, each said in Package.swift.
NAMED_WITHOUT_IMPORT = {
    ("CThumbnail", "CVips"): "a C target: CVips gives its GLib headers by pkg-config",
    ("Export", "Subprocess"): "History's C shims' module map must be in sight in debug builds",
    ("reader-snapshot", "Subprocess"): "History's C shims' module map must be in sight in debug builds",
}
IMPORT = re.compile(r"^\s*(?:@testable\s+|@_spi\(\w+\)\s+|@preconcurrency\s+)*(?:package\s+|public\s+|internal\s+)?import\s+(?:struct\s+|enum\s+|class\s+|func\s+)?(\w+)")


def imports(folder):
    found = set()
    for path in glob.glob(folder + "/**/*.swift", recursive=True):
        inside_string = False
        for line in open(path, encoding="utf-8"):
            # A multi-line string literal (a Python script a test runs) imports nothing.
            if line.count('"""') % 2 == 1:
                inside_string = not inside_string
                continue
            if inside_string:
                continue
            match = IMPORT.match(line)
            if match:
                found.add(match.group(1))
    return found


def main():
    package = json.loads(subprocess.run(["swift", "package", "dump-package"], check=True, capture_output=True, text=True).stdout)
    problems = []
    for target in package["targets"]:
        name = target["name"]
        if target["type"] == "system":
            continue
        folder = target.get("path") or ("Tests/" if target["type"] == "test" else "Sources/") + name
        named = set()
        for dependency in target["dependencies"]:
            for kind, value in dependency.items():
                # A target is imported by its module's name: reader-snapshot as reader_snapshot.
                named.add(value[0].replace("-", "_"))
        used = imports(folder) - PLATFORM - {name.replace("-", "_")}
        for module in sorted(used - named):
            problems.append(f"{name} imports {module} and does not name it")
        for module in sorted(named - used):
            if (name, module) not in NAMED_WITHOUT_IMPORT:
                problems.append(f"{name} names {module} and imports it nowhere")
    for problem in problems:
        print(problem)
    print(f"dependency check: {len(package['targets'])} targets, {len(problems)} differences")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

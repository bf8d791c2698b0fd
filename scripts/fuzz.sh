#!/usr/bin/env bash
# Builds and runs the libFuzzer targets: notes (rich text → Markdown → cmark-gfm HTML) and API
# decoding. Usage: scripts/fuzz.sh [seconds per target, default 60]
# New inputs found are added to Fuzz/corpus/<target>/; crashes are written to .build-fuzz/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
out=.build-fuzz
mkdir -p "$out"
# The fuzz targets are built as one module from copies of the sources they need, without the
# imports of this package's own modules.
core="$out/sources"
rm -rf "$core" && mkdir -p "$core"
for file in Sources/Notes/*.swift Sources/ReaderAPI/APIModels.swift Sources/Support/JSONValue.swift Sources/Support/UntrustedText.swift; do
  sed -E '/^import (Support|Notes|ReaderAPI|LibraryArchive)$/d; s/^package //; s/([[:space:]])package /\1/' "$file" >"$core/$(basename "$file")"
done
flags=(-sanitize=fuzzer,address -parse-as-library -O -g
       -I Sources/CCmarkGFM -I Sources/CLibXML2 -Xcc -I/usr/include/libxml2
       -lcmark-gfm -lcmark-gfm-extensions -lxml2)
notes=($(for f in Sources/Notes/*.swift; do echo "$core/$(basename "$f")"; done) "$core/UntrustedText.swift")
swiftc "${flags[@]}" "${notes[@]}" Fuzz/FuzzNotes.swift -o "$out/fuzz-notes" 2>&1 | { grep -v "Cannot export local symbol" || true; }
swiftc "${flags[@]}" "${notes[@]}" "$core/APIModels.swift" "$core/JSONValue.swift" \
  Fuzz/FuzzAPIDecoding.swift -o "$out/fuzz-api" 2>&1 | { grep -v "Cannot export local symbol" || true; }
for target in notes api; do
  echo "== fuzz-$target for $seconds s"
  mkdir -p "$out/new-$target"
  "$out/fuzz-$target" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$out/" "$out/new-$target" "Fuzz/corpus/$target" 2>&1 | grep -E "^#[0-9]+.*(DONE|pulse)|ERROR|SUMMARY|Done" | tail -3
done

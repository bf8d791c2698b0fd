#!/usr/bin/env bash
# Builds and runs the libFuzzer targets: notes (rich text → Markdown → cmark-gfm HTML) and API
# decoding. Usage: scripts/fuzz.sh [seconds per target, default 60]
# New inputs found are added to Fuzz/corpus/<target>/; crashes are written to .build-fuzz/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
out=.build-fuzz
mkdir -p "$out"
core=Sources/ReaderSnapshotCore
flags=(-sanitize=fuzzer,address -parse-as-library -O -g
       -I Sources/CCmarkGFM -I Sources/CLibXML2 -Xcc -I/usr/include/libxml2
       -lcmark-gfm -lcmark-gfm-extensions -lxml2)
notes=("$core"/Notes/*.swift)
swiftc "${flags[@]}" "${notes[@]}" Fuzz/FuzzNotes.swift -o "$out/fuzz-notes" 2>&1 | { grep -v "Cannot export local symbol" || true; }
swiftc "${flags[@]}" "${notes[@]}" "$core/API/APIModels.swift" "$core/Support/JSONValue.swift" \
  "$core/Support/UntrustedText.swift" Fuzz/FuzzAPIDecoding.swift -o "$out/fuzz-api" 2>&1 | { grep -v "Cannot export local symbol" || true; }
for target in notes api; do
  echo "== fuzz-$target for $seconds s"
  mkdir -p "$out/new-$target"
  "$out/fuzz-$target" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$out/" "$out/new-$target" "Fuzz/corpus/$target" 2>&1 | grep -E "^#[0-9]+.*(DONE|pulse)|ERROR|SUMMARY|Done" | tail -3
done

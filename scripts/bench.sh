#!/usr/bin/env bash
# make bench: the release build against the sample server with a synthetic library, one table.
# Usage: scripts/bench.sh [books ...]   (default: 1000 10000)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -gt 0 ]; then sizes=("$@"); else sizes=(1000 10000); fi
latency_ms=5
concurrency=8
swift build -c release >/dev/null
bin=.build/release/reader-snapshot
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
export READER_PASSWORD=demo-password SOURCE_DATE_EPOCH=1700000000

seconds() { awk '/Elapsed \(wall clock\)/ { n = split($NF, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s }' "$1"; }
peak_mb() { awk '/Maximum resident set size/ { printf "%.0f", $NF / 1024 }' "$1"; }

printf '%-7s | %-34s | %-26s | %-24s | %-26s\n' books "crawl (wall, ideal, ratio, peak)" "render (total, per page)" "notes (ours, cmark-gfm)" "no-change re-run"
for books in "${sizes[@]}"; do
  log="$work/server-$books.log"
  $bin sample-server --port 0 --books "$books" --seed 1 --latency-ms $latency_ms --login-delay-ms 0 >"$log" 2>&1 &
  for _ in $(seq 100); do grep -q "^Sample Reader server:" "$log" && break; sleep 0.1; done
  url=$(awk '/^Sample Reader server:/ { print $4 }' "$log")
  out="$work/out-$books"
  # Exit code 2 (published with gaps) is expected: synthetic libraries have books on deleted shelves.
  /usr/bin/time -v $bin export --server "$url" --email demo@reader.example --output "$out" --concurrency $concurrency \
    --format json 2>"$work/crawl.time" || true
  requests=$(grep -o 'Requests: [0-9]*' "$work/crawl.time" | awk '{print $2}')
  crawl=$(seconds "$work/crawl.time"); crawl_peak=$(peak_mb "$work/crawl.time")
  ideal=$(awk -v r="$requests" -v l=$latency_ms -v c=$concurrency 'BEGIN { printf "%.2f", r * l / 1000 / c }')
  ratio=$(awk -v a="$crawl" -v b="$ideal" 'BEGIN { printf "%.2f", a / b }')
  /usr/bin/time -v $bin render --from "$out/library.json" --output "$work/render-$books" --format html,markdown -q 2>"$work/render.time" || true
  render=$(seconds "$work/render.time"); render_peak=$(peak_mb "$work/render.time")
  pages=$(find "$work/render-$books" -name '*.html' -o -name '*.md' | wc -l)
  per_page=$(awk -v t="$render" -v p="$pages" 'BEGIN { printf "%.3f", t * 1000 / p }')
  notes=$($bin bench-notes --from "$out/library.json" --markdown-out "$work/notes.md" | awk '{ print $(NF-1) }')
  mb=$(awk -v b="$(wc -c <"$work/notes.md")" 'BEGIN { print b / 1048576 }')
  cmark_s=$( { /usr/bin/time -f %e cmark-gfm -e table -e strikethrough -e autolink -e tagfilter -e tasklist "$work/notes.md" >/dev/null; } 2>&1 )
  cmark=$(awk -v m="$mb" -v s="$cmark_s" 'BEGIN { if (s == 0) s = 0.01; printf "%.1f", m / s }')
  $bin export --server "$url" --email demo@reader.example --output "$out" --concurrency $concurrency --format json 2>/dev/null || true
  /usr/bin/time -v $bin export --server "$url" --email demo@reader.example --output "$out" --concurrency $concurrency \
    --format json 2>"$work/again.time" || true
  again=$(seconds "$work/again.time"); again_bytes=$(grep -o '[0-9.]* [KMG]*B received' "$work/again.time" | head -1)
  printf '%-7s | %5.2f s, %5.2f s, x%-5s %4s MB | %6.2f s, %6s ms/page %3s MB | %6s MB/s, %6s MB/s | %5.2f s, %s\n' \
    "$books" "$crawl" "$ideal" "$ratio" "$crawl_peak" "$render" "$per_page" "$render_peak" "$notes" "$cmark" "$again" "$again_bytes"
  kill %1 2>/dev/null || true; wait 2>/dev/null || true
done

#!/usr/bin/env bash
# scripts/package-test.sh [--keep] [--refresh-root] [--no-apt-cache] [DEB]
#
# The proof that the Debian package installs and works on a bare Debian 12 without Swift: a fresh
# minbase root (debootstrap, made once and cached as .build/package-test/debian-12-minbase.tar,
# then extracted anew for every run), the package installed there with apt without its
# Recommends (so that a missing Depends fails), the tool run there (version, linking, demo in
# English and German, a three-night export against the sample server with
# --metrics-file), the manual page, the bash completion, the installed documentation's links and
# the systemd units checked; then the same root booted in a virtual machine (qemu, software
# emulation) where systemd is PID 1, and the units run there by scripts/package-vm-nights.sh
# (three nights, the timer, the journal, the user unit, the purge); on the host the install's
# size and lintian.
#
#   DEB             the package (default: the newest dist/reader-snapshot_*_amd64.deb)
#   --keep          keep the extracted root in .build/package-test/ to look at (it is unmounted all the same)
#   --refresh-root  make the cached minbase root again (a new debootstrap)
#   --no-apt-cache  download every package again (by default the .debs apt fetched are kept in
#                   .build/package-test/apt-archives and bind-mounted into the next root's apt cache)
#
# Runs as root (debootstrap, chroot, mount). Installs debootstrap, lintian, qemu-system-x86 and
# prometheus (for promtool) on the host when missing. The mirror is the one this machine's apt sources use
# (PACKAGE_TEST_MIRROR and PACKAGE_TEST_SECURITY_MIRROR override it). Copies of what the checks
# read (logs, the metrics files) are left in .build/package-test/last-run/.
# Exit 0 when every check passed; 1 at the first that failed, with a line saying which.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work="$here/.build/package-test"
cache_tar="$work/debian-12-minbase.tar"
results="$work/last-run"
suite=bookworm

keep=0 refresh=0 apt_cache=1 deb=""
while [ $# -gt 0 ]; do
  case "$1" in
    --keep) keep=1 ;;
    --refresh-root) refresh=1 ;;
    --no-apt-cache) apt_cache=0 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "package-test: unknown option $1 (see --help)" >&2; exit 64 ;;
    *) [ -z "$deb" ] || { echo "package-test: one package only" >&2; exit 64; }; deb=$1 ;;
  esac
  shift
done

# ---------------------------------------------------------------------------------------------
# Printing, timing, failing

passed=0
final_line=""
started_all=$EPOCHREALTIME
section() { printf '\n=== %s\n' "$*"; }
ok() { passed=$((passed + 1)); printf 'ok: %s\n' "$*"; }
note() { printf 'note: %s\n' "$*"; }
fail() {
  printf '\nFAIL: %s\n' "$*" >&2
  final_line=$(printf 'package-test: %d passed, 1 failed' "$passed")
  exit 1
}
since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f s", b - a }'; }
# Indents a command's output in the transcript.
indent() { sed 's/^/    /'; }

[ "$(id -u)" = 0 ] || { echo "package-test: run it as root (debootstrap, chroot and mount need it)" >&2; exit 77; }
# The machine is shared with builds: the package test waits for them.
renice -n 10 $$ >/dev/null 2>&1 || true

if [ -z "$deb" ]; then
  deb=$(ls -t "$here"/dist/reader-snapshot_*_amd64.deb 2>/dev/null | head -n 1 || true)
  [ -n "$deb" ] || { echo "package-test: no DEB given and none in dist/ (make deb)" >&2; exit 64; }
fi
[ -f "$deb" ] || { echo "package-test: $deb: no such file" >&2; exit 66; }
deb=$(realpath "$deb")
deb_given=$deb
deb_name=$(basename "$deb")
mkdir -p "$work"
rm -rf "$results"; mkdir -p "$results"
# Every step reads one copy, taken now: a package made again meanwhile does not mix into this run.
cp "$deb_given" "$results/$deb_name"; deb="$results/$deb_name"
package=$(dpkg-deb --field "$deb" Package) || fail "$deb is not a Debian package"
version=$(dpkg-deb --field "$deb" Version)
arch=$(dpkg-deb --field "$deb" Architecture)
upstream=${version#*:}; upstream=${upstream%-*}

section "Package"
echo "$deb_given (sha256 $(sha256sum "$deb" | cut -d' ' -f1), $(date -r "$deb_given" '+made %Y-%m-%d %H:%M:%S'))"
dpkg-deb --field "$deb" Package Version Architecture Depends Recommends Suggests Installed-Size | indent
[ "$package" = reader-snapshot ] || fail "the package is called $package, not reader-snapshot"
[ "$arch" = amd64 ] || fail "the package is for $arch, not amd64"

# ---------------------------------------------------------------------------------------------
# Cleanup: whatever happens, nothing stays mounted and nothing started here keeps running.

root=""            # the extracted root of this run
mounts=()          # what was mounted there, in order
server_pid=""      # the sample server
policy_made=""     # a policy-rc.d put on the host for an install, taken away again

# Unmounts what this run mounted in the root, the last first.
unmount_root() {
  local i
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
    umount "${mounts[i]}" 2>/dev/null || { sleep 1; umount "${mounts[i]}" 2>/dev/null; } || {
      echo "cleanup: ${mounts[i]} busy, detaching it (umount -l)"; umount -l "${mounts[i]}"; }
  done
  mounts=()
}

cleanup() {
  local rc=$? pid link left t=$EPOCHREALTIME
  set +e
  trap - EXIT INT TERM
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null
  fi
  if [ -n "$root" ] && [ -d "$root" ]; then
    # Any process still running in the root was started by this script: end it, by its id.
    for link in /proc/[0-9]*/root; do
      pid=${link#/proc/}; pid=${pid%/root}
      [ "$(readlink "$link" 2>/dev/null)" = "$root" ] || continue
      echo "cleanup: ending process $pid ($(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | cut -c1-80)) left in the root"
      kill "$pid" 2>/dev/null; sleep 1; kill -9 "$pid" 2>/dev/null
    done
    unmount_root
    left=$(findmnt -rn -o TARGET | grep -F "$root" || true)
    if [ -n "$left" ]; then
      printf 'FAIL: still mounted after cleanup:\n%s\n' "$left" >&2
      rc=1
    elif [ "$keep" = 1 ]; then
      echo "cleanup: nothing mounted under the root; kept at $root (--keep)"
    else
      t=$EPOCHREALTIME
      rm -rf --one-file-system "$root"
      echo "cleanup: nothing mounted under the root (findmnt); root removed in $(since "$t")"
    fi
  fi
  [ -z "$policy_made" ] || rm -f "$policy_made"
  [ -z "$root" ] || echo "cleanup took $(since "$t")"
  # The count is the transcript's last line, after the cleanup's, where CI looks for it.
  if [ "$rc" != 0 ] && [ -n "$final_line" ]; then final_line="package-test: $passed passed, 1 failed"; fi
  [ -z "$final_line" ] || printf '%s\n' "$final_line"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# A root left by a run that was killed outright: removed when nothing is mounted in it.
for old in "$work"/root.*; do
  [ -d "$old" ] || continue
  if findmnt -rn -o TARGET | grep -qF "$old"; then
    note "$old (an earlier run's root) still has mounts: left alone; see findmnt"
  else
    rm -rf --one-file-system "$old"
  fi
done

# ---------------------------------------------------------------------------------------------
# The host's tools

apt_updated=0
host_install() {
  if [ "$apt_updated" = 0 ]; then apt-get update -qq; apt_updated=1; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >"$results/host-apt.log" 2>&1 || {
    tail -n 20 "$results/host-apt.log" | indent; return 1; }
}

section "Host tools"
for tool in debootstrap:debootstrap lintian:lintian qemu-system-x86_64:qemu-system-x86 debugfs:e2fsprogs; do
  if ! command -v "${tool%%:*}" >/dev/null; then
    echo "installing ${tool#*:} on the host"
    host_install "${tool#*:}" || fail "could not install ${tool#*:} on the host"
  fi
done
# promtool is in Debian 12's prometheus package. Its postinst would start the server where no
# policy-rc.d forbids it: one is put in place for the install when there is none.
metrics_checker=""
if ! command -v promtool >/dev/null; then
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\n# package-test.sh: no service starts while prometheus installs\nexit 101\n' >/usr/sbin/policy-rc.d
    chmod 755 /usr/sbin/policy-rc.d
    policy_made=/usr/sbin/policy-rc.d
  fi
  echo "installing prometheus on the host (for promtool)"
  host_install prometheus || note "the prometheus package did not install"
  [ -z "$policy_made" ] || { rm -f "$policy_made"; policy_made=""; }
fi
if command -v promtool >/dev/null; then
  metrics_checker=promtool
else
  if ! /usr/bin/python3 -c 'import prometheus_client' 2>/dev/null; then
    echo "installing python3-prometheus-client on the host (promtool is not there)"
    host_install python3-prometheus-client || fail "neither promtool nor python3-prometheus-client could be installed"
  fi
  metrics_checker=python
fi
printf '%s\n' "debootstrap $(dpkg-query -W -f '${Version}' debootstrap)" \
  "lintian $(dpkg-query -W -f '${Version}' lintian)" \
  "metrics checked by: $( [ "$metrics_checker" = promtool ] && promtool --version 2>&1 | head -n 1 || echo "python3-prometheus-client (promtool missing)")" | indent

# ---------------------------------------------------------------------------------------------
# The mirror: the one this machine's apt sources use for Debian 12

# Prints "URI SUITE" for every deb source of the host.
host_sources() {
  local f
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    awk '
      function flush() { if (types ~ /(^| )deb( |$)/ && enabled != "no") { n = split(uris, u, " "); m = split(suites, s, " ");
                           for (i = 1; i <= n; i++) for (j = 1; j <= m; j++) print u[i], s[j] }
                         types = uris = suites = enabled = "" }
      /^#/ { next }
      /^[ \t]*$/ { flush(); next }
      { line = $0; key = tolower(line); sub(/:.*/, "", key); sub(/^[^:]*:[ \t]*/, "", line) }
      key == "types" { types = line } key == "uris" { uris = line } key == "suites" { suites = line } key == "enabled" { enabled = tolower(line) }
      END { flush() }' "$f"
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    sed -E -n 's/^[[:space:]]*deb[[:space:]]+(\[[^]]*\][[:space:]]+)?([^[:space:]]+)[[:space:]]+([^[:space:]]+).*/\2 \3/p' "$f"
  done
}
sources=$(host_sources)
mirror=${PACKAGE_TEST_MIRROR:-$(awk -v s="$suite" '$2 == s { print $1; exit }' <<<"$sources")}
mirror=${mirror:-http://deb.debian.org/debian}
security=${PACKAGE_TEST_SECURITY_MIRROR:-$(awk -v s="$suite-security" '$2 == s { print $1; exit }' <<<"$sources")}
security=${security:-http://deb.debian.org/debian-security}
section "Mirror"
echo "$mirror ($suite, $suite-updates), $security ($suite-security)"

# ---------------------------------------------------------------------------------------------
# 1. The minimal Debian 12 root: made once, extracted fresh for each run

section "1. A fresh Debian 12 minbase root"
if [ "$refresh" = 1 ] || [ ! -f "$cache_tar" ]; then
  boot="$work/bootstrap.tmp"
  rm -rf --one-file-system "$boot"
  echo "debootstrap --variant=minbase $suite (once; the log is $results/debootstrap.log)"
  t=$EPOCHREALTIME
  if ! debootstrap --variant=minbase "$suite" "$boot" "$mirror" >"$results/debootstrap.log" 2>&1; then
    tail -n 30 "$results/debootstrap.log" | indent
    findmnt -rn -o TARGET | grep -F "$boot" | sort -r | xargs -r -n 1 umount -l
    fail "debootstrap failed"
  fi
  echo "debootstrap took $(since "$t")"
  [ -z "$(findmnt -rn -o TARGET | grep -F "$boot")" ] || fail "debootstrap left mounts in $boot"
  t=$EPOCHREALTIME
  tar --numeric-owner -C "$boot" --exclude='./dev/*' -cf "$cache_tar.tmp" .
  mv "$cache_tar.tmp" "$cache_tar"
  rm -rf --one-file-system "$boot"
  echo "cached as $cache_tar ($(du -h "$cache_tar" | cut -f1)) in $(since "$t")"
else
  echo "cached root: $cache_tar ($(du -h "$cache_tar" | cut -f1), made $(date -r "$cache_tar" '+%Y-%m-%d %H:%M'); --refresh-root makes it again)"
fi
root=$(mktemp -d "$work/root.XXXXXX")
t=$EPOCHREALTIME
# Without /dev's nodes: the run mounts a /dev of its own there.
tar --numeric-owner --exclude='./dev/*' -xpf "$cache_tar" -C "$root"
chmod 755 "$root"
echo "extracted into $root in $(since "$t")"

# ---------------------------------------------------------------------------------------------
# 2. Mounts, network, apt

chroot_path=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
chroot_env=(env -i HOME=/root PATH="$chroot_path" LANG=C.UTF-8 TERM=dumb DEBIAN_FRONTEND=noninteractive)
# Runs a command inside the root with a clean environment (NAME=VALUE words may come first).
in_root() { chroot "$root" "${chroot_env[@]}" "$@"; }

section "2. Mounts, network and apt in the root"
mount -t proc proc "$root/proc"; mounts+=("$root/proc")
# A /dev of its own: the few nodes a program uses, not the host's disks.
mount -t tmpfs -o mode=755,nosuid,size=16m dev "$root/dev"; mounts+=("$root/dev")
for node in null:1:3 zero:1:5 full:1:7 random:1:8 urandom:1:9 tty:5:0; do
  IFS=: read -r name major minor <<<"$node"
  # Where the container refuses mknod, the host's node is bound there instead.
  mknod -m 666 "$root/dev/$name" c "$major" "$minor" 2>/dev/null || {
    touch "$root/dev/$name"; mount --bind "/dev/$name" "$root/dev/$name"; mounts+=("$root/dev/$name"); }
done
mkdir -m 755 "$root/dev/pts"; mkdir -m 1777 "$root/dev/shm"
ln -s /proc/self/fd "$root/dev/fd"
ln -s /proc/self/fd/0 "$root/dev/stdin"; ln -s /proc/self/fd/1 "$root/dev/stdout"; ln -s /proc/self/fd/2 "$root/dev/stderr"
ln -s pts/ptmx "$root/dev/ptmx"
if mount -t devpts -o newinstance,ptmxmode=0666,mode=620,gid=5 devpts "$root/dev/pts" 2>/dev/null; then
  mounts+=("$root/dev/pts")
else
  note "no devpts of its own here: the root has no /dev/pts (apt and dpkg do without)"
fi
if [ "$apt_cache" = 1 ]; then
  mkdir -p "$work/apt-archives/partial"
  mount --bind "$work/apt-archives" "$root/var/cache/apt/archives"; mounts+=("$root/var/cache/apt/archives")
fi
findmnt -rn -o TARGET,FSTYPE | grep -F "$root" | indent
cp -L /etc/resolv.conf "$root/etc/resolv.conf"
# debootstrap writes no /etc/hosts (the installer or the container engine does): Debian's own,
# without which "localhost" does not resolve there.
[ -s "$root/etc/hosts" ] || printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\nff02::1\t\tip6-allnodes\nff02::2\t\tip6-allrouters\n' >"$root/etc/hosts"
cat >"$root/etc/apt/sources.list" <<EOF
deb $mirror $suite main
deb $mirror $suite-updates main
deb $security $suite-security main
EOF
printf 'Acquire::Retries "3";\nDpkg::Use-Pty "false";\n' >"$root/etc/apt/apt.conf.d/90package-test"
# No service starts in the root (as in any chroot): an init script would start it on the host's kernel.
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"; chmod 755 "$root/usr/sbin/policy-rc.d"
cp "$deb" "$root/tmp/$deb_name"; chmod 644 "$root/tmp/$deb_name"

t=$EPOCHREALTIME
in_root apt-get update >"$results/apt-update.log" 2>&1 || { indent <"$results/apt-update.log"; fail "apt-get update failed in the root"; }
grep -E '^(Get|Hit):' "$results/apt-update.log" | indent
echo "apt-get update took $(since "$t")"

# Prints the packages apt added and its summary line, from an install's log.
apt_summary() { awk '/^The following NEW packages will be installed:/ { on = 1 } on { print } / newly installed, / { on = 0 }' "$1" | indent; }

# What an install adds to this bare root, as apt says before it asks (packages, MB): the line
# "N newly installed" and "After this operation, X MB".
adds() {
  in_root apt-get install --assume-no "$@" 2>&1 | awk '
    / newly installed, / { n = $3 } /^After this operation, / { sub(/^After this operation, /, ""); sub(/ of additional disk space will be used\./, ""); mb = $0 }
    END { if (n + 0 == 0) printf "nothing: a minimal Debian 12 has it"; else printf "%s packages, %s", n, mb }'
}
section "2. What the install adds to a bare Debian 12"
printf '    %-58s %s\n' "apt install ./$deb_name (Recommends on, apt's default):" "$(adds "/tmp/$deb_name")" \
  "apt install --no-install-recommends ./$deb_name:" "$(adds --no-install-recommends "/tmp/$deb_name")"
echo "    each of its Depends and Recommends alone (what it brings with it, Recommends off):"
for dependency in $(dpkg-deb --field "$deb" Depends Recommends | sed 's/^[A-Za-z]*: //' | tr ',|' '\n\n' | sed -n 's/^ *\([a-z0-9][a-z0-9.+-]*\).*/\1/p' | sort -u); do
  printf '      %-40s %s\n' "$dependency" "$(adds --no-install-recommends "$dependency")"
done

section "2. apt-get install --no-install-recommends ./$deb_name"
t=$EPOCHREALTIME
if ! in_root apt-get install -y --no-install-recommends "/tmp/$deb_name" >"$results/apt-install.log" 2>&1; then
  tail -n 40 "$results/apt-install.log" | indent
  fail "apt-get install of $deb_name failed in a bare Debian 12 (see $results/apt-install.log)"
fi
apt_summary "$results/apt-install.log"
echo "installed in $(since "$t")"
grep -E '^(W|E): ' "$results/apt-install.log" | indent || true
status=$(in_root dpkg-query -W -f '${db:Status-Status}' "$package")
[ "$status" = installed ] || fail "dpkg says $package is $status"
ok "$package $version installed by apt with its Depends"

section "2. No Swift in the root"
if in_root sh -c 'command -v swift'; then fail "swift is on the root's PATH"; fi
swift_libs=$(find "$root" -xdev \( -name 'libswiftCore.so*' -o -name 'libFoundation.so*' -o -name 'libswift_Concurrency.so*' \) -print)
[ -z "$swift_libs" ] || fail "Swift's runtime is in the root: $swift_libs"
ok "no swift command, no libswiftCore.so / libFoundation.so anywhere in the root"

section "2. What the package put in place"
for path in /usr/lib/reader-snapshot/reader-snapshot /usr/bin/reader-snapshot /usr/share/man/man1/reader-snapshot.1.gz \
  /usr/share/bash-completion/completions/reader-snapshot /usr/lib/systemd/user/reader-snapshot.service \
  /usr/lib/systemd/user/reader-snapshot.timer /lib/systemd/system/reader-snapshot@.service /lib/systemd/system/reader-snapshot@.timer; do
  [ -e "$root$path" ] || fail "the package does not install $path"
  printf '    %s\n' "$(cd "$root" && ls -ld ".$path" | sed 's| \./| /|')"
done
[ "$(in_root readlink -f /usr/bin/reader-snapshot)" = /usr/lib/reader-snapshot/reader-snapshot ] ||
  fail "/usr/bin/reader-snapshot does not lead to /usr/lib/reader-snapshot/reader-snapshot"
[ -x "$root/usr/lib/reader-snapshot/reader-snapshot" ] || fail "/usr/lib/reader-snapshot/reader-snapshot is not executable"
for dir in /usr/lib/reader-snapshot /usr/share/reader-snapshot; do
  [ ! -d "$root$dir" ] || echo "    $dir/: $(cd "$root$dir" && ls -F | tr '\n' ' ')"
done
ok "binary, /usr/bin link, manual page, bash completion and the four systemd units are installed"
bin_bytes=$(stat -c %s "$root/usr/lib/reader-snapshot/reader-snapshot")
bin_human=$(du -h "$root/usr/lib/reader-snapshot/reader-snapshot" | cut -f1)
dir_human=$(du -sh "$root/usr/lib/reader-snapshot" | cut -f1)

# ---------------------------------------------------------------------------------------------
# 3. The tool itself, before anything but the package's own Depends is installed

section "3. reader-snapshot --version"
out=$(in_root reader-snapshot --version 2>&1) || fail "reader-snapshot --version failed: $out"
echo "$out" | indent
grep -qF "$upstream" <<<"$out" || fail "reader-snapshot --version does not print $upstream"
ok "--version prints $upstream"

section "3. ldd /usr/lib/reader-snapshot/reader-snapshot"
rc=0; out=$(in_root ldd /usr/lib/reader-snapshot/reader-snapshot 2>&1) || rc=$?
echo "$out" | indent
grep -q 'not a dynamic executable' <<<"$out" && note "a static executable: nothing for ldd to list"
[ "$rc" = 0 ] || grep -q 'not a dynamic executable' <<<"$out" || fail "ldd failed ($rc)"
! grep -q 'not found' <<<"$out" || fail "ldd: a library the binary needs is not found"
! grep -qE 'libswift|libFoundation|lib_FoundationICU|libdispatch|libBlocksRuntime' <<<"$out" ||
  fail "the binary links Swift's runtime dynamically"
ok "no libswift, no libFoundation, nothing not found"

# Which libraries a run dlopened: LD_DEBUG's "calling init" lines of the run's own log.
loaded() { grep -h 'calling init:' "$root"/tmp/ld-"$1".* 2>/dev/null | sed 's/.*calling init: //' | sort -u; }

section "3. reader-snapshot demo --output /tmp/demo"
rc=0
in_root LD_DEBUG=files LD_DEBUG_OUTPUT=/tmp/ld-demo reader-snapshot demo --output /tmp/demo >"$results/demo.log" 2>&1 || rc=$?
indent <"$results/demo.log"
[ "$rc" = 0 ] || fail "reader-snapshot demo exited $rc"
demo="$root/tmp/demo"
for file in index.html library.json books.html; do [ -s "$demo/$file" ] || fail "the demo wrote no $file"; done
/usr/bin/python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d' "$demo/library.json" ||
  fail "the demo's library.json is not JSON"
pages=$(find "$demo/books" -name '*.html' 2>/dev/null | wc -l)
[ "$pages" -gt 0 ] || fail "the demo wrote no book page under books/"
thumbs=$(find "$demo/covers" -regextype posix-extended -regex '.*/[^/]+-[0-9]+\.(jpg|png)' 2>/dev/null)
[ -n "$thumbs" ] || fail "no thumbnail under covers/ (made with libvips): $(ls "$demo/covers" 2>/dev/null | head -n 5 | tr '\n' ' ')"
thumb=$(head -n 1 <<<"$thumbs")
magic=$(od -An -tx1 -N3 "$thumb" | tr -d ' ')
[ "$magic" = ffd8ff ] || [ "$magic" = 89504e ] || fail "$thumb is not a JPEG or PNG ($magic)"
echo "    $(ls "$demo" | wc -l) entries; $pages book pages; $(ls "$demo/covers" | wc -l) files in covers/, $(wc -l <<<"$thumbs") thumbnails, e.g. ${thumb#"$root"} ($(stat -c %s "$thumb") bytes)"
vips=$(loaded demo | grep -E '/libvips\.so\.42' || true)
[ -n "$vips" ] || fail "the demo did not load libvips.so.42 (LD_DEBUG: $(loaded demo | tr '\n' ' '))"
echo "    loaded: $vips"
ok "demo exited 0: index.html, library.json, $pages book pages, thumbnails by libvips"

section "3. reader-snapshot demo --output /tmp/demo-de --language de"
rc=0
in_root LD_DEBUG=files LD_DEBUG_OUTPUT=/tmp/ld-de reader-snapshot demo --output /tmp/demo-de --language de >"$results/demo-de.log" 2>&1 || rc=$?
indent <"$results/demo-de.log"
[ "$rc" = 0 ] || fail "reader-snapshot demo --language de exited $rc"
index_de="$root/tmp/demo-de/index.html"
[ -s "$index_de" ] || fail "the German demo wrote no index.html"
grep -q '<html[^>]*lang="de"' "$index_de" || fail 'the German index.html is not <html lang="de">'
for word in "Bücher" "Regale" "Schnappschuss vom"; do
  grep -qF "$word" "$index_de" || fail "the German index.html does not say \"$word\""
done
echo "    index.html: $(grep -oE '[0-9]+ Bücher auf [0-9]+ Regal[a-z]*' "$index_de" | head -n 1)"
icu=$(loaded de | grep -E '/libicui18n\.so\.72' || true)
[ -n "$icu" ] || fail "the German demo did not load libicui18n.so.72 (LD_DEBUG: $(loaded de | tr '\n' ' '))"
echo "    loaded: $icu"
ok "German pages (\"Bücher\", \"Regale\", \"Schnappschuss vom\"), ICU's libicui18n.so.72 loaded"

section "3. Three nights of export against the sample server (--metrics-file)"
mkdir -p "$root/tmp/metrics"
: >"$root/tmp/server.log"
chroot "$root" "${chroot_env[@]}" reader-snapshot sample-server --port 0 >"$root/tmp/server.log" 2>&1 &
server_pid=$!
url=""
for _ in $(seq 1 150); do
  url=$(sed -n 's|^Sample Reader server: \(http://127\.0\.0\.1:[0-9][0-9]*\)$|\1|p' "$root/tmp/server.log")
  [ -z "$url" ] || break
  kill -0 "$server_pid" 2>/dev/null || { indent <"$root/tmp/server.log"; fail "the sample server stopped at once"; }
  sleep 0.2
done
[ -n "$url" ] || { indent <"$root/tmp/server.log"; fail "the sample server printed no address in 30 s"; }
sleep 0.2
indent <"$root/tmp/server.log"
grep -q 'demo@reader\.example' "$root/tmp/server.log" && grep -q 'demo-password' "$root/tmp/server.log" ||
  fail "the sample server does not print its account (demo@reader.example / demo-password)"
echo "    (the sample server runs as process $server_pid)"

# night N EXPECTED...: one export into /tmp/library; its output, its exit code, a copy of its metrics.
night_rc=()
night() {
  local n=$1 rc=0; shift
  echo "--- night $n: expecting exit $(echo "$@" | sed 's/ / or /g')"
  in_root READER_PASSWORD=demo-password reader-snapshot export --server "$url" --email demo@reader.example \
    --output /tmp/library --metrics-file /tmp/metrics/reader.prom >"$results/night$n.log" 2>&1 || rc=$?
  indent <"$results/night$n.log"
  echo "    exit $rc"
  night_rc[n]=$rc
  [ -f "$root/tmp/metrics/reader.prom" ] || fail "night $n (exit $rc) wrote no metrics file"
  cp "$root/tmp/metrics/reader.prom" "$results/night$n.prom"
  case " $* " in *" $rc "*) ;; *) fail "night $n exited $rc, expected $*";; esac
}
night 1 2
[ -s "$root/tmp/library/index.html" ] || fail "night 1 wrote no /tmp/library/index.html"
night 2 0 2
kill "$server_pid"; rc=0; wait "$server_pid" || rc=$?; server_pid=""
echo "--- the sample server stopped (exit $rc)"
night 3 69
ok "export nights exited ${night_rc[1]}, ${night_rc[2]}, ${night_rc[3]} (2 = written with gaps; 69 = the server gone)"

# metric FILE NAME: the value of a series (with or without labels).
metric() { awk -v n="$2" '$1 == n || index($1, n "{") == 1 { v = $NF } END { if (v != "") print v }' "$1"; }
exit_metric() {
  local v
  for name in reader_snapshot_run_exit_code reader_snapshot_exit_code; do
    v=$(metric "$1" "$name"); [ -z "$v" ] || { echo "$v"; return; }
  done
}

section "3. The metrics files"
for n in 1 2 3; do
  echo "--- night $n: $(wc -l <"$results/night$n.prom") lines; checked by $metrics_checker"
  if [ "$metrics_checker" = promtool ]; then
    rc=0; out=$(promtool check metrics <"$results/night$n.prom" 2>&1) || rc=$?
    [ -z "$out" ] || echo "$out" | indent
    [ "$rc" = 0 ] || fail "promtool check metrics: night $n's file has problems (exit $rc)"
    echo "    promtool check metrics: exit 0, no problem"
  else
    /usr/bin/python3 - "$results/night$n.prom" <<'EOF' || fail "night $n's metrics file does not parse"
import sys
from prometheus_client.parser import text_string_to_metric_families
families = list(text_string_to_metric_families(open(sys.argv[1]).read()))
print("    prometheus_client parsed %d families, %d samples" % (len(families), sum(len(f.samples) for f in families)))
EOF
  fi
  ! grep -vE '^(#|reader_snapshot_|$)' "$results/night$n.prom" || fail "night $n's file has series not named reader_snapshot_*"
done
echo "--- night 2 (a good run):"; indent <"$results/night2.prom"
echo "--- night 3 (the failed run):"; indent <"$results/night3.prom"
# same A B: the two numbers are equal (the file writes 2 as "2.0"); false when either is missing.
same() { [ -n "$1" ] && [ -n "$2" ] && awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; exit !(d < 1e-6 && d > -1e-6) }'; }
e1=$(exit_metric "$results/night1.prom"); e2=$(exit_metric "$results/night2.prom"); e3=$(exit_metric "$results/night3.prom")
same "$e1" 2 || fail "night 1's exit-code series says ${e1:-nothing}, not 2"
same "$e2" "${night_rc[2]}" || fail "night 2's exit-code series says ${e2:-nothing}, not ${night_rc[2]}"
same "$e3" 69 || fail "night 3's exit-code series says ${e3:-nothing}, not 69"
s1=$(metric "$results/night1.prom" reader_snapshot_last_success_timestamp_seconds)
s2=$(metric "$results/night2.prom" reader_snapshot_last_success_timestamp_seconds)
s3=$(metric "$results/night3.prom" reader_snapshot_last_success_timestamp_seconds)
[ -n "$s2" ] || fail "night 2 (exit $e2) has no reader_snapshot_last_success_timestamp_seconds"
same "$s3" "$s2" || fail "night 3 (exit 69) says last success ${s3:-nothing}, not night 2's $s2"
echo "    exit codes 1-3: $e1, $e2, $e3; last success: $s1, $s2, then kept: $s3"
ok "metrics files valid; the failed night says 69 and keeps the last success ($s3)"

# ---------------------------------------------------------------------------------------------
# 3. Manual page, completion, systemd units: what these checks need, installed after the package

section "3. apt-get install man-db groff-base bash-completion systemd (for the checks only)"
t=$EPOCHREALTIME
if ! in_root apt-get install -y --no-install-recommends man-db groff-base bash-completion systemd >"$results/apt-checks.log" 2>&1; then
  tail -n 30 "$results/apt-checks.log" | indent; fail "could not install the checks' tools in the root"
fi
apt_summary "$results/apt-checks.log"
echo "installed in $(since "$t")"

section "3. man reader-snapshot (every groff warning on)"
rc=0; in_root MANWIDTH=80 man --warnings=w reader-snapshot >"$results/man.txt" 2>"$results/man.err" || rc=$?
[ "$rc" = 0 ] || { indent <"$results/man.err"; fail "man reader-snapshot exited $rc"; }
head -n 12 "$results/man.txt" | indent; echo "    [… $(wc -l <"$results/man.txt") lines]"
[ ! -s "$results/man.err" ] || { indent <"$results/man.err"; fail "man --warnings=w reader-snapshot warns"; }
out=$(in_root sh -c 'zcat /usr/share/man/man1/reader-snapshot.1.gz | groff -mandoc -ww -z' 2>&1)
[ -z "$out" ] || { echo "$out" | indent; fail "groff -mandoc -ww warns about the manual page"; }
out=$(in_root lexgrog /usr/share/man/man1/reader-snapshot.1.gz 2>&1) || { echo "$out" | indent; fail "lexgrog finds no NAME section (whatis/apropos will not list it)"; }
echo "$out" | indent
! grep -q ' - "' <<<"$out" || fail "the NAME line keeps its quotes: whatis and apropos would show them (.Nd \"…\" in the page's source)"
ok "man shows the page; no warning from man --warnings=w nor groff -ww; lexgrog reads its NAME line"

section "3. Bash completion"
out=$(in_root bash -c '
  source /usr/share/bash-completion/bash_completion
  source /usr/share/bash-completion/completions/reader-snapshot
  complete -p reader-snapshot' 2>&1) || { echo "$out" | indent; fail "sourcing the completion failed"; }
echo "$out" | indent
grep -q 'reader-snapshot$' <<<"$out" || fail "complete -p reader-snapshot shows nothing"
# Loaded on demand, as an interactive shell does the first time Tab is pressed, then used.
out=$(in_root bash -c '
  source /usr/share/bash-completion/bash_completion
  __load_completion reader-snapshot || { echo "bash-completion does not find it by name"; exit 1; }
  function=$(complete -p reader-snapshot | sed -n "s/.*-F \([^ ]*\).*/\1/p")
  COMP_WORDS=(reader-snapshot ""); COMP_CWORD=1; COMP_LINE="reader-snapshot "; COMP_POINT=${#COMP_LINE}
  "$function" reader-snapshot "" reader-snapshot
  printf "%s\n" "${COMPREPLY[@]}"' 2>&1) || { echo "$out" | indent; fail "the completion does not load on demand"; }
echo "    reader-snapshot <Tab>: $(tr '\n' ' ' <<<"$out")"
grep -qx export <<<"$out" && grep -qx demo <<<"$out" || fail "completing \"reader-snapshot \" does not offer export and demo"
ok "complete -p reader-snapshot; loaded on demand; offers the subcommands"

section "3. systemd units"
mkdir -p "$root/run/user/0"
verify() {
  local what=$1 rc=0 out; shift
  out=$(in_root XDG_RUNTIME_DIR=/run/user/0 systemd-analyze verify "$@" 2>&1) || rc=$?
  echo "--- systemd-analyze verify $*: exit $rc"
  [ -z "$out" ] || echo "$out" | indent
  [ "$rc" = 0 ] || fail "systemd-analyze verify of the $what failed"
  ! grep -q 'reader-snapshot' <<<"$out" || fail "systemd-analyze verify warns about the $what"
}
verify "user units" --user /usr/lib/systemd/user/reader-snapshot.service /usr/lib/systemd/user/reader-snapshot.timer
verify "template's instance" reader-snapshot@books.service reader-snapshot@books.timer
ok "systemd-analyze verify: user units and reader-snapshot@books"

# security UNIT-ARGS...: prints the exposure line; its number in $level.
security() {
  local rc=0 out
  out=$(in_root XDG_RUNTIME_DIR=/run/user/0 systemd-analyze security --offline=yes --no-pager "$@" 2>&1) || rc=$?
  echo "$out" >"$results/security-$(basename "${@: -1}").txt"
  grep -a 'Overall exposure level' <<<"$out" | indent || true
  [ "$rc" = 0 ] || { tail -n 5 <<<"$out" | indent; fail "systemd-analyze security $* exited $rc"; }
  level=$(grep -a 'Overall exposure level' <<<"$out" | sed -E 's/.*: ([0-9.]+) .*/\1/' | tail -n 1)
}
echo "--- systemd-analyze security --offline=yes"
level=""; security --user /usr/lib/systemd/user/reader-snapshot.service; user_level=$level
level=""; security reader-snapshot@books.service; tmpl_level=$level
[ -n "$user_level" ] && [ -n "$tmpl_level" ] || fail "systemd-analyze security printed no exposure level"
awk -v l="$tmpl_level" 'BEGIN { exit !(l <= 2.0) }' || fail "reader-snapshot@books.service's exposure level is $tmpl_level, above 2.0"
ok "exposure: reader-snapshot@books.service $tmpl_level (at most 2.0), user reader-snapshot.service $user_level"

section "3. The installed documentation, read offline"
# Every relative link of the installed README and docs leads to a file the package installed.
doc=/usr/share/doc/$package
[ -f "$root$doc/README.md" ] || fail "the package does not install $doc/README.md"
first_install=$(grep -m 1 -n 'apt install' "$root$doc/README.md" | cut -d: -f1)
first_make=$(grep -m 1 -n '^make demo' "$root$doc/README.md" | cut -d: -f1)
echo "    README.md: the first 'apt install' on line ${first_install:-none}, the first command 'make demo' on line ${first_make:-none}"
[ -n "$first_install" ] && { [ -z "$first_make" ] || [ "$first_install" -lt "$first_make" ]; } ||
  fail "the installed README does not begin with what a package user does (apt install before make demo)"
links=$(/usr/bin/python3 "$here/scripts/doc-links.py" "$root" "$doc")
count=0
while read -r target from; do
  count=$((count + 1))
  in_root test -e "$target" || fail "$from links to $target, which the package does not install"
done <<<"$links"
[ "$count" -gt 20 ] || fail "only $count links found in the installed documentation"
echo "    $count links in $(find "$root$doc" -name '*.md' | wc -l) Markdown files, each to an installed file"
ok "the installed README starts with apt install; its links and the docs' ($count) lead to installed files"

# ---------------------------------------------------------------------------------------------
# 5. Under systemd as PID 1: the same root, booted in a virtual machine

section "5. The root made bootable: a kernel, systemd as init, the package's Recommends"
recommends=$(dpkg-deb --field "$deb" Recommends | tr ',' '\n' | sed -n 's/^ *\([a-z0-9.+-]*\).*/\1/p' | tr '\n' ' ')
t=$EPOCHREALTIME
# systemd-sysv makes systemd the init; dbus lets logind keep a lingering user's manager, and
# dbus-user-session gives that manager the bus `systemctl --user` talks to.
# shellcheck disable=SC2086
if ! in_root apt-get install -y --no-install-recommends linux-image-amd64 systemd-sysv dbus dbus-user-session $recommends >"$results/apt-vm.log" 2>&1; then
  tail -n 30 "$results/apt-vm.log" | indent; fail "could not install a kernel and systemd in the root"
fi
grep ' newly installed, ' "$results/apt-vm.log" | indent
echo "    with the Recommends: $recommends; installed in $(since "$t")"
# In the machine, services start and stop as on any Debian: no policy-rc.d there.
rm -f "$root/usr/sbin/policy-rc.d"
install -m 755 "$here/scripts/package-vm-nights.sh" "$root/usr/local/sbin/vm-nights"
cat >"$root/etc/systemd/system/vm-nights.service" <<'UNIT'
[Unit]
Description=package-test: three nights and the user unit, under systemd
After=multi-user.target
[Service]
Type=oneshot
ExecStart=/usr/local/sbin/vm-nights
UNIT
mkdir -p "$root/etc/systemd/system/default.target.wants"
ln -sf /etc/systemd/system/vm-nights.service "$root/etc/systemd/system/default.target.wants/vm-nights.service"
printf '/dev/vda / ext4 rw,errors=remount-ro 0 1\n' >"$root/etc/fstab"
echo package-test-vm >"$root/etc/hostname"
kernel=$(ls "$root"/boot/vmlinuz-* | sort -V | tail -n 1); initrd=$(ls "$root"/boot/initrd.img-* | sort -V | tail -n 1)
[ -f "$kernel" ] && [ -f "$initrd" ] || fail "no kernel or initrd under /boot"
cp "$kernel" "$work/vmlinuz"; cp "$initrd" "$work/initrd.img"
unmount_root
image="$work/vm.img"
rm -f "$image"; truncate -s 6G "$image"
t=$EPOCHREALTIME
mkfs.ext4 -q -F -L vmroot -d "$root" "$image" || fail "mkfs.ext4 -d could not make the machine's disk"
echo "    $(basename "$kernel"); the root ($(du -sh "$root" | cut -f1)) on an ext4 image made in $(since "$t")"

section "5. Booting it: qemu-system-x86_64 -accel tcg, systemd as PID 1"
t=$EPOCHREALTIME
rc=0
timeout 1800 qemu-system-x86_64 -accel tcg,thread=multi -cpu max -smp 2 -m 2048 -nodefaults -no-reboot \
  -kernel "$work/vmlinuz" -initrd "$work/initrd.img" \
  -append "root=/dev/vda rw console=ttyS0 panic=-1 systemd.show_status=false" \
  -drive "file=$image,format=raw,if=virtio" -nic none -display none -serial "file:$results/vm-console.log" || rc=$?
echo "    qemu exited $rc after $(since "$t"); the console is in $results/vm-console.log"
debugfs -R "dump /root/vm-nights.log $results/vm-nights.log" "$image" >/dev/null 2>&1 || true
rm -f "$image"
[ -s "$results/vm-nights.log" ] || { tail -n 40 "$results/vm-console.log" | indent; fail "the machine left no /root/vm-nights.log (qemu exit $rc)"; }
indent <"$results/vm-nights.log"
summary=$(tail -n 1 "$results/vm-nights.log")
vm_passed=$(sed -n 's/^vm-nights: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p' <<<"$summary")
vm_failed=$(sed -n 's/^vm-nights: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p' <<<"$summary")
[ -n "$vm_failed" ] || fail "the machine's checks did not finish: $summary"
[ "$vm_failed" = 0 ] || fail "under systemd: $vm_failed of the machine's checks failed (see above)"
passed=$((passed + vm_passed))
ok "under systemd as PID 1: the machine's $vm_passed checks passed (three nights, the timer, the journal, the user unit, the purge)"

# ---------------------------------------------------------------------------------------------
# 4. On the host: sizes and lintian

section "4. Sizes"
deb_bytes=$(stat -c %s "$deb")
printf '    %-44s %8s  %10d bytes\n' "$deb_name" "$(du -h "$deb" | cut -f1)" "$deb_bytes"
printf '    %-44s %8s  %10d bytes\n' "/usr/lib/reader-snapshot/reader-snapshot" "$bin_human" "$bin_bytes"
printf '    %-44s %8s\n' "/usr/lib/reader-snapshot/ (with the bundles)" "$dir_human"
printf '    %-44s %8s KiB\n' "Installed-Size" "$(dpkg-deb --field "$deb" Installed-Size)"
echo "    the root's size after the package and its Depends: $(sed -n 's/^After this operation, //p' "$results/apt-install.log")"

section "4. lintian $deb_name"
t=$EPOCHREALTIME
rc=0; lintian --display-info --show-overrides --tag-display-limit 0 "$deb" >"$results/lintian.txt" 2>&1 || rc=$?
grep -v 'running with root privileges is not recommended' "$results/lintian.txt" | indent || echo "    (no tag)"
counts=$(awk '/^[EWIPXO]: / { n[substr($0, 1, 1)]++ } END { printf "%d errors, %d warnings, %d info, %d overridden", n["E"], n["W"], n["I"], n["O"] }' "$results/lintian.txt")
echo "    $counts ($(since "$t"))"
! grep -q '^E: ' "$results/lintian.txt" || fail "lintian reports errors"
ok "lintian: no error ($counts)"

section "Done"
echo "total $(since "$started_all"); logs and metrics files in $results"
final_line=$(printf 'package-test: %d passed, 0 failed' "$passed")

#!/bin/bash
# Runs inside the Debian 12 virtual machine that scripts/package-test.sh boots, where systemd is
# PID 1 and the package was installed with apt (its Recommends too), as a user's machine has it.
# It drives the units as an admin would: the system instance reader-snapshot@books (a written
# night, a quiet night, a night with the server gone), its timer, the metrics copied for
# node_exporter, the history, the journal, `systemd-analyze security`; then the user unit of a
# user with lingering on; then `apt-get purge`. Each check prints "ok: …" or "FAIL: …" and the
# host reads them back; the last line is "vm-nights: N passed, M failed". The machine powers off
# at the end, whatever happened.
set -u
exec >/root/vm-nights.log 2>&1

passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok: $*"; }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }
section() { printf '\n=== %s\n' "$*"; }
indent() { sed 's/^/    /'; }
finish() {
  printf '\nvm-nights: %d passed, %d failed\n' "$passed" "$failed"
  sync
  systemctl poweroff --no-block
}
trap finish EXIT

unit=reader-snapshot@books.service
state=/var/lib/private/reader-snapshot/books

# The sample Reader server in a unit of its own, on a port the kernel picks; its address is the
# first line it prints.
start_server() {
  systemctl stop sample-server.service 2>/dev/null
  systemctl reset-failed sample-server.service 2>/dev/null
  local since
  since=$(date '+%Y-%m-%d %H:%M:%S')
  systemd-run --quiet --unit=sample-server /usr/bin/reader-snapshot sample-server --port 0
  url=""
  for _ in $(seq 1 600); do
    url=$(journalctl --since "$since" -u sample-server.service -o cat | sed -n 's|^Sample Reader server: \(http://127\.0\.0\.1:[0-9]*\)$|\1|p' | tail -n 1)
    [ -n "$url" ] && return 0
    sleep 0.5
  done
  return 1
}

# night N EXPECTED [LINE]: starts the instance and waits for it; its exit code is ExecMainStatus.
# What its processes wrote (stdout, stderr, syslog) is what the journal holds under the run's
# invocation id; journald may take a moment to store a stream's last lines, so a night that must
# have written LINE (a pattern) is read again until it shows, for ten seconds at most.
night() {
  local n=$1 expected=$2 line=${3:-} code invocation
  systemctl start "$unit" 2>/dev/null
  code=$(systemctl show -p ExecMainStatus --value "$unit")
  invocation=$(systemctl show -p InvocationID --value "$unit")
  for _ in $(seq 1 20); do
    journalctl --sync
    journalctl _SYSTEMD_INVOCATION_ID="$invocation" -o cat >"/root/journal-night$n.txt"
    { [ -z "$line" ] || grep -q "$line" "/root/journal-night$n.txt"; } && break
    sleep 0.5
  done
  echo "--- night $n: $unit exited $code; it wrote $(wc -l <"/root/journal-night$n.txt") lines to the journal"
  night_code[n]=$code
  [ "$code" = "$expected" ] && ok "night $n exited $code" || bad "night $n exited $code, expected $expected"
}

section "The machine"
echo "PID 1: $(cat /proc/1/comm); $(uname -sr); $(systemctl is-system-running 2>&1)"
echo "reader-snapshot $(dpkg-query -W -f '${Version}' reader-snapshot); libvips42 $(dpkg-query -W -f '${Version}' libvips42 2>/dev/null || echo missing)"
[ "$(cat /proc/1/comm)" = systemd ] && ok "systemd is PID 1" || bad "PID 1 is $(cat /proc/1/comm)"

section "The system unit, reader-snapshot@books"
if start_server; then ok "sample server at $url"; else bad "the sample server printed no address"; fi
# The admin's steps, as the README gives them: the example conf, the password, the timer.
install -m 600 /usr/share/doc/reader-snapshot/examples/library.conf /etc/reader-snapshot/books.conf
sed -i -e "s|^READER_SERVER=.*|READER_SERVER=$url|" -e 's|^READER_EMAIL=.*|READER_EMAIL=demo@reader.example|' /etc/reader-snapshot/books.conf
(umask 077; printf 'demo-password\n' >/etc/reader-snapshot/books.password)
# node_exporter's textfile folder, as prometheus-node-exporter makes it.
install -d -m 755 /var/lib/prometheus/node-exporter
systemctl enable --now reader-snapshot@books.timer 2>&1 | indent
timers=$(systemctl list-timers --all --no-pager reader-snapshot@books.timer)
echo "$timers" | indent
grep -q 'reader-snapshot@books.timer' <<<"$timers" && ok "the timer is listed" || bad "systemctl list-timers does not list reader-snapshot@books.timer"

declare -a night_code
night 1 2 '^warning: Written with gaps'
[ -s "$state/library/index.html" ] && ok "night 1 wrote $state/library/index.html" || bad "night 1 wrote no index.html"
# The sample library's gaps are still there the next night: written with gaps, but nothing new to say.
night 2 2
systemctl stop sample-server.service
night 3 69 '^error: '

section "The journal of the three nights (what the service's processes wrote)"
for n in 1 2 3; do echo "--- night $n:"; indent <"/root/journal-night$n.txt"; done
# Everything the service's processes wrote since the machine started, the timer's start included.
journalctl -b _SYSTEMD_UNIT="$unit" -o cat >/root/journal-nights.txt
[ ! -s /root/journal-night2.txt ] && ok "the quiet night wrote nothing to the journal" || bad "the quiet night wrote to the journal"
grep -q '^warning: Written with gaps' /root/journal-night1.txt && ok "night 1 says it was written with gaps" || bad "night 1 does not say 'Written with gaps'"
grep -q '^error: ' /root/journal-night3.txt && ok "night 3 says why it failed" || bad "night 3 wrote no error line"
if grep -q 'thread priority' /root/journal-nights.txt; then bad "the journal holds Dispatch's thread-priority lines"; else ok "no 'Failed to set thread priority' line"; fi
# Every line is the tool's own: a warning or an error, or the indented lines that follow one.
others=$(grep -vE '^(warning: |error: |  |- |…)' /root/journal-nights.txt || true)
[ -z "$others" ] && ok "every line in the journal is the tool's (warning:, error:, or what follows one)" ||
  bad "lines in the journal that are not the tool's: $(head -n 3 <<<"$others" | tr '\n' '|')"

section "What the nights left"
prom=/var/lib/prometheus/node-exporter/reader-snapshot-books.prom
if [ -f "$prom" ]; then
  grep -E '^reader_snapshot_(run_)?exit_code' "$prom" | indent
  grep -qE '^reader_snapshot_(run_)?exit_code(\{[^}]*\})? 69' "$prom" && ok "node_exporter's folder has the last night's metrics (exit code 69)" ||
    bad "the metrics copied for node_exporter do not say 69"
else
  bad "no $prom"
fi
history=$state/.library.history.git
if [ -d "$history" ]; then
  echo "    $(git --git-dir="$history" log --oneline | wc -l) commits in $history"
  ok "the history is kept beside the snapshot"
else
  bad "no history at $history: $(ls -a "$state" | tr '\n' ' ')"
fi

section "systemd-analyze security $unit"
systemd-analyze security --no-pager "$unit" >/root/security.txt 2>&1
tail -n 1 /root/security.txt | indent
level=$(sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p' /root/security.txt)
awk -v l="${level:-99}" 'BEGIN { exit !(l <= 2.0) }' && ok "exposure $level (at most 2.0)" || bad "exposure ${level:-unknown}, above 2.0"

section "The user unit, for a user with lingering on"
useradd --create-home reader
uid=$(id -u reader)
loginctl enable-linger reader
for _ in $(seq 1 120); do systemctl is-active --quiet "user@$uid.service" && break; sleep 0.5; done
start_server || bad "the sample server did not start again"
runuser -u reader -- sh -c "mkdir -p ~/.config/reader-snapshot && umask 077 &&
  printf 'READER_SERVER=%s\nREADER_EMAIL=demo@reader.example\n' '$url' >~/.config/reader-snapshot/library.conf &&
  printf 'demo-password\n' >~/.config/reader-snapshot/password"
user_systemctl() { runuser -u reader -- env XDG_RUNTIME_DIR="/run/user/$uid" systemctl --user "$@"; }
user_cursor=$(journalctl -n 1 --show-cursor -o cat | sed -n 's/^-- cursor: //p')
user_systemctl enable --now reader-snapshot.timer 2>&1 | indent
user_systemctl start reader-snapshot.service 2>/dev/null
code=$(user_systemctl show -p ExecMainStatus --value reader-snapshot.service)
echo "--- reader's reader-snapshot.service exited $code"
[ "$code" = 2 ] && ok "the user unit's first night exited 2" || bad "the user unit's night exited $code, expected 2"
[ -s /home/reader/reader/library/index.html ] && ok "it wrote ~reader/reader/library" || bad "no ~reader/reader/library/index.html"
user_systemctl list-timers --no-pager 2>&1 | grep -q reader-snapshot.timer && ok "the user's timer is listed" || bad "the user's timer is not listed"
journalctl --after-cursor "$user_cursor" _SYSTEMD_USER_UNIT=reader-snapshot.service -o cat >/root/journal-user.txt
indent </root/journal-user.txt
grep -q 'thread priority' /root/journal-user.txt && bad "the user unit's journal holds thread-priority lines" || ok "the user unit's journal has no thread-priority line"
systemctl stop sample-server.service

section "apt-get purge reader-snapshot"
DEBIAN_FRONTEND=noninteractive apt-get purge -y reader-snapshot 2>&1 | grep -E '^(Removing|Purging|W: |E: )' | indent
[ ! -e /usr/bin/reader-snapshot ] && ok "the program is gone" || bad "/usr/bin/reader-snapshot is still there"
links=$(find /etc/systemd/system -name 'reader-snapshot@*' 2>/dev/null)
[ -z "$links" ] && ok "no enable link left under /etc/systemd/system" || bad "links left: $links"
[ ! -e /etc/reader-snapshot ] && ok "/etc/reader-snapshot (settings and password) is gone" || bad "/etc/reader-snapshot is still there: $(ls /etc/reader-snapshot)"
left=$(systemctl list-units --all --no-legend --no-pager 'reader-snapshot@*')
[ -z "$left" ] && ok "no reader-snapshot unit is loaded" || bad "units still loaded after the purge: $left"
[ -s "$state/library/index.html" ] && ok "the snapshot in $state is kept" || bad "the snapshot was removed"

#!/usr/bin/env python3
"""Runs the console blocks of Markdown files as written, and compares what they print.

usage: run_console.py FILE.md...

Every ```console block of each file is run in one bash, command by command, as a reader would type
them: its `$ ` lines are the commands; the lines below one are what it prints (standard output and
standard error as a terminal shows them). The shell starts in a new, empty folder that is its HOME
and stands for /home/you: that path is written /home/you in what it prints. PATH is this script's
(the test puts the built tool first), and nothing else of the caller's environment is passed.

Each block runs in a network namespace of its own, with a loopback of its own (`unshare --net`,
and `--map-root-user` when not run as root), so that a port it names (the Quick start's 8484) is
never one that another test, or anything else on the machine, has taken: the README shows the
port a reader types, and the block is run as written. Where no namespace can be made (a container
without the right to make one), the blocks run on the machine's loopback, and the script says so.

In a block, `…` within a line stands for any text (a duration, a size), and a line beginning with
`[…` for any number of lines. A command ending in `&` runs in the background, and the next one is
typed once the lines shown for it have come. A block preceded by a line
`<!-- console: not run: REASON -->` is not run, and is listed with its reason.

Prints each block's commands and a line per difference; the last line is
"console: N blocks run, M differ, K not run". Exits 1 when any differs.
"""
import os
import queue
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time

MARK = "@@console-step-done@@"
HOME = "/home/you"


def blocks(path):
    """Each console block of the file: (line number, the skip reason or None, its lines)."""
    lines = open(path, encoding="utf-8").read().split("\n")
    found = []
    index = 0
    while index < len(lines):
        if lines[index].strip() == "```console":
            start = index
            end = next(i for i in range(index + 1, len(lines)) if lines[i].strip() == "```")
            before = next((lines[i] for i in range(start - 1, -1, -1) if lines[i].strip()), "")
            skip = re.match(r"<!-- console: not run: (.*) -->", before.strip())
            found.append((start + 1, skip.group(1) if skip else None, lines[start + 1:end]))
            index = end
        index += 1
    return found


def steps(lines):
    """The block as (command, the lines it prints)."""
    result = []
    for line in lines:
        if line.startswith("$ "):
            result.append((line[2:], []))
        elif result:
            result[-1][1].append(line)
        elif line.strip():
            raise ValueError(f"a line before the first command: {line!r}")
    return result


def matches(expected, actual):
    """Whether the printed lines are the block's, `…` and `[…` lines standing for what varies."""
    if not expected:
        return not actual
    first = expected[0]
    if first.startswith("[…"):
        return any(matches(expected[1:], actual[skip:]) for skip in range(len(actual) + 1))
    if not actual:
        return False
    pattern = "^" + ".*?".join(re.escape(part) for part in first.split("…")) + "$"
    return re.match(pattern, actual[0]) is not None and matches(expected[1:], actual[1:])


# Run inside the new namespace: brings its loopback up (a new namespace has one, down), then
# becomes the command it is given. Through ioctl, so that no `ip` (iproute2) is needed.
LOOPBACK_UP = """\
import fcntl, os, socket, struct, sys
probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
request = struct.pack("16sH22x", b"lo", 0)
flags = struct.unpack("16sH22x", fcntl.ioctl(probe, 0x8913, request))[1]  # SIOCGIFFLAGS
fcntl.ioctl(probe, 0x8914, struct.pack("16sH22x", b"lo", flags | 0x1))  # SIOCSIFFLAGS, IFF_UP
probe.close()
os.execvp(sys.argv[1], sys.argv[1:])
"""


def isolation():
    """The words that start a command in a network namespace of its own with its loopback up, or
    None and why there is none."""
    unshare = ["unshare", "--net"] + ([] if os.geteuid() == 0 else ["--map-root-user"])
    command = unshare + [sys.executable, "-c", LOOPBACK_UP]
    try:
        # The loopback is up when a port bound on it can be connected to.
        probe = subprocess.run(command + [sys.executable, "-c", "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen();"
                                          " socket.create_connection(s.getsockname(), timeout=5)"],
                               capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as error:
        return None, str(error)
    if probe.returncode != 0:
        return None, (probe.stderr.strip().splitlines() or [f"exit {probe.returncode}"])[-1]
    return command, None


class Shell:
    """One bash, typed into; what it prints read line by line."""

    def __init__(self, home, isolated):
        environment = {"PATH": os.environ["PATH"], "HOME": home, "LANG": "C.UTF-8", "TERM": "dumb", "USER": "you"}
        self.process = subprocess.Popen((isolated or []) + ["bash", "--norc", "--noprofile"], cwd=home, env=environment, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
        self.lines = queue.Queue()
        self.home = home
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        for raw in self.process.stdout:
            text = raw.decode("utf-8", "replace").rstrip("\n")
            # What a command printed without a newline at its end runs into the mark.
            if MARK in text and text != MARK:
                self.lines.put(text.replace(MARK, ""))
                text = MARK
            self.lines.put(text.replace(self.home, HOME))
        self.lines.put(None)

    def type(self, command):
        # The mark keeps the command's exit status for the next command's $?.
        self.process.stdin.write(f"{command}\n__status=$?; printf '%s\\n' '{MARK}'; (exit $__status)\n".encode())
        self.process.stdin.flush()

    def run(self, command, wanted, seconds=300):
        """What `command` prints; for a command in the background, until `wanted` lines came."""
        self.type(command)
        printed, marked = [], False
        background = command.rstrip().endswith("&")
        # A job in the background that prints less than it should (a server whose port is taken)
        # is not waited for long.
        deadline = time.time() + (30 if background else seconds)
        quiet_since = time.time()
        while time.time() < deadline:
            # A job in the background has printed its lines once they came and half a second
            # passed without more.
            if marked and (not background or (len(printed) >= wanted and time.time() - quiet_since > 0.5)):
                break
            try:
                line = self.lines.get(timeout=0.1)
            except queue.Empty:
                continue
            quiet_since = time.time()
            if line is None:
                break
            if line == MARK:
                marked = True
            else:
                printed.append(line)
        # Lines a command's background job may still print are the next command's to read.
        return printed

    def stop(self):
        # The shell ends at the end of its input; what a block left running goes with its group
        # (SIGKILL: a caller may have left SIGTERM ignored, and the children inherit that).
        self.process.stdin.close()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait(timeout=10)


def run_block(lines, isolated):
    """Runs one block (in a network namespace of its own, when `isolated`); gives its differences."""
    problems = []
    with tempfile.TemporaryDirectory(prefix="console-") as folder:
        home = os.path.join(folder, "you")
        os.mkdir(home)
        shell = Shell(home, isolated)
        try:
            for command, expected in steps(lines):
                print(f"  $ {command}")
                wanted = sum(1 for line in expected if not line.startswith("[…"))
                printed = shell.run(command, wanted)
                if not matches(expected, printed):
                    problems.append(f"$ {command}\n    the block shows:\n"
                                    + "".join(f"      {line}\n" for line in expected)
                                    + "    it printed:\n" + "".join(f"      {line}\n" for line in printed))
                    break
        finally:
            shell.stop()
    return problems


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 64
    run, differ, skipped = 0, 0, 0
    isolated, why = isolation()
    if isolated:
        print("console: each block runs in a network namespace of its own")
    else:
        print(f"console: no network namespace ({why}): the blocks run on this machine's loopback, where a port they name may be taken")
    for path in sys.argv[1:]:
        for line, skip, lines in blocks(path):
            where = f"{os.path.basename(path)}:{line}"
            if skip:
                skipped += 1
                print(f"{where}: not run: {skip}")
                continue
            print(f"{where}:")
            run += 1
            problems = run_block(lines, isolated)
            if problems:
                differ += 1
                for problem in problems:
                    print(f"DIFFERS {where}: {problem}")
    print(f"console: {run} blocks run, {differ} differ, {skipped} not run")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())

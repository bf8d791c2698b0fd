#!/usr/bin/env python3
"""Runs the console blocks of Markdown files as written, and compares what they print.

usage: run_console.py FILE.md...

Every ```console block of each file is run in one bash, command by command, as a reader would type
them: its `$ ` lines are the commands; the lines below one are what it prints (standard output and
standard error as a terminal shows them). The shell starts in a new, empty folder that is its HOME
and stands for /home/you: that path is written /home/you in what it prints. PATH is this script's
(the test puts the built tool first), and nothing else of the caller's environment is passed.

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


class Shell:
    """One bash, typed into; what it prints read line by line."""

    def __init__(self, home):
        environment = {"PATH": os.environ["PATH"], "HOME": home, "LANG": "C.UTF-8", "TERM": "dumb", "USER": "you"}
        self.process = subprocess.Popen(["bash", "--norc", "--noprofile"], cwd=home, env=environment, stdin=subprocess.PIPE,
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


def run_block(lines):
    """Runs one block; gives its differences."""
    problems = []
    with tempfile.TemporaryDirectory(prefix="console-") as folder:
        home = os.path.join(folder, "you")
        os.mkdir(home)
        shell = Shell(home)
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
    for path in sys.argv[1:]:
        for line, skip, lines in blocks(path):
            where = f"{os.path.basename(path)}:{line}"
            if skip:
                skipped += 1
                print(f"{where}: not run: {skip}")
                continue
            print(f"{where}:")
            run += 1
            problems = run_block(lines)
            if problems:
                differ += 1
                for problem in problems:
                    print(f"DIFFERS {where}: {problem}")
    print(f"console: {run} blocks run, {differ} differ, {skipped} not run")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())

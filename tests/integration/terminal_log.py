#!/usr/bin/env python3
"""Runs a build on a terminal or a pipe and tells what it showed, and when.

  terminal_log.py run --pty|--pipe LOG COMMAND...
      runs COMMAND with its stdout and stderr on a new pseudo-terminal
      (100 columns, TERM=xterm, its controlling terminal) or on a pipe, and
      writes to LOG what came out, chunk by chunk, each with the seconds since
      the start; exits with COMMAND's status
  terminal_log.py during LOG REGEX
      true if text matching REGEX came out at least twice, different each
      time, the first at least 1 s before COMMAND ended: updates that arrived
      while it ran (how soon after the start depends on the machine's load,
      so no bound is set on that); prints each with its time
  terminal_log.py screen LOG
      prints the lines the terminal shows at the end (carriage returns and
      "erase to the end of the line" applied)
"""
import fcntl
import json
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time


def run(mode, log, command):
    start = time.monotonic()
    chunks = []
    if mode == "--pty":
        pid, fd = pty.fork()
        if pid == 0:
            os.environ["TERM"] = "xterm"
            os.execvp(command[0], command)
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 100, 0, 0))
    else:
        child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        fd = child.stdout.fileno()
    while True:
        select.select([fd], [], [])
        try:
            data = os.read(fd, 65536)
        except OSError:  # the terminal's last process has gone
            data = b""
        if not data:
            break
        chunks.append([time.monotonic() - start, data.decode("utf-8", "replace")])
    if mode == "--pty":
        status = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    else:
        status = child.wait()
    with open(log, "w") as out:
        json.dump({"end": time.monotonic() - start, "chunks": chunks}, out)
    return status


def during(log, pattern):
    with open(log) as data:
        recorded = json.load(data)
    text, times = "", []
    for when, chunk in recorded["chunks"]:
        text += chunk
        times.append((len(text), when))
    seen = []
    for match in re.finditer(pattern, text):
        when = next(t for end, t in times if end >= match.end())
        print(f"{when:6.2f}s {match.group(0)!r}")
        if not seen or seen[-1][1] != match.group(0):
            seen.append((when, match.group(0)))
    print(f"{recorded['end']:6.2f}s the command ended")
    return len(seen) >= 2 and seen[0][0] <= recorded["end"] - 1


def screen(log):
    with open(log) as data:
        recorded = json.load(data)
    lines, column = [""], 0
    text = "".join(chunk for _, chunk in recorded["chunks"])
    for token in re.findall(r"\x1b\[K|\x1b\[[0-9;]*[A-Za-z]|.|\n", text, re.S):
        if token == "\r":
            column = 0
        elif token == "\n":
            lines.append("")
            column = 0
        elif token == "\x1b[K":
            lines[-1] = lines[-1][:column]
        elif token.startswith("\x1b"):
            pass  # colours
        else:
            line = lines[-1].ljust(column)
            lines[-1] = line[:column] + token + line[column + 1:]
            column += 1
    for line in lines:
        print(line)
    return True


def main(args):
    if args[0] == "run":
        return run(args[1], args[2], args[3:])
    if args[0] == "during":
        return 0 if during(args[1], args[2]) else 1
    if args[0] == "screen":
        return 0 if screen(args[1]) else 1
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

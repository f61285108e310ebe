#!/usr/bin/env python3
"""Drive a command in a pseudo-terminal with a script of steps (stdlib only).

Usage:
  pty-drive.py [--env NAME=VALUE]... [--steps JSON] [--exit-timeout SECONDS] -- COMMAND [ARG]...

The child runs in a new pty (TERM=xterm, window 100 columns x 30 rows), with this
process's environment plus each --env. The steps, a JSON list, come from --steps or, if
it is missing, from stdin:
  {"send": "text"}                    write text (UTF-8) to the terminal: "\\t", "\\r", "\\u0004", "\\u001b[A" ...
  {"wait": "text", "timeout": 5}      wait until text appears in the output (ANSI escape
                                      sequences, \\r and BEL removed) after the end of the
                                      previous wait's match; timeout defaults to 5 s
  {"sleep": 0.2}                      sleep, collecting output
  {"wait_url": "http://…", "contains": "text", "timeout": 5}
                                      poll the URL (GET, every 50 ms, collecting output
                                      meanwhile) until its body contains text: e.g. a sample
                                      upstream's /_admin/received, to act once a request
                                      has reached the server rather than after a guessed sleep
After the last step it waits (--exit-timeout, default 10 s) for the child to exit, prints
everything captured (raw bytes decoded as UTF-8 with errors="replace") to stdout, and
exits with the child's status (128+N if killed by signal N). On a wait timeout, or if the
child does not exit in time, it prints what was captured, a note on stderr, kills the
child and exits 124.
"""
import fcntl
import json
import os
import pty
import re
import select
import signal
import struct
import sys
import termios
import time
import urllib.request

ROWS, COLUMNS = 30, 100
ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78MDEc]")


def visible(raw: bytes) -> str:
    text = raw.decode("utf-8", errors="replace")
    return ANSI.sub("", text).replace("\r", "").replace("\x07", "")


def parse_args(argv):
    env, steps, exit_timeout = {}, None, 10.0
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            return env, steps, exit_timeout, argv[i + 1:]
        if arg == "--env":
            name, _, value = argv[i + 1].partition("=")
            env[name] = value
            i += 2
        elif arg == "--steps":
            steps = json.loads(argv[i + 1])
            i += 2
        elif arg == "--exit-timeout":
            exit_timeout = float(argv[i + 1])
            i += 2
        else:
            return env, steps, exit_timeout, argv[i:]
    return env, steps, exit_timeout, []


class Child:
    def __init__(self, command, env):
        full_env = dict(os.environ)
        full_env.update(env)
        full_env["TERM"] = "xterm"
        full_env["COLUMNS"], full_env["LINES"] = str(COLUMNS), str(ROWS)
        pid, fd = pty.fork()
        if pid == 0:
            try:
                fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
                os.execvpe(command[0], command, full_env)
            except BaseException as error:  # noqa: BLE001 - report anything, then die
                os.write(2, f"pty-drive: cannot run {command[0]}: {error}\n".encode())
            finally:
                os._exit(127)
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
        self.pid, self.fd = pid, fd
        self.output = bytearray()
        self.closed = False
        self.status = None

    def pump(self, seconds):
        """Collects output for up to `seconds` (returns early once there was some)."""
        if self.closed:
            time.sleep(min(seconds, 0.05))
            return
        ready, _, _ = select.select([self.fd], [], [], max(0.0, seconds))
        if not ready:
            return
        try:
            data = os.read(self.fd, 65536)
        except OSError:  # EIO: the child closed its side
            data = b""
        if data:
            self.output += data
        else:
            self.closed = True

    def send(self, text):
        data = text.encode("utf-8")
        while data:
            written = os.write(self.fd, data)
            data = data[written:]

    def poll_exit(self):
        if self.status is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid == self.pid:
                code = os.waitstatus_to_exitcode(status)
                self.status = code if code >= 0 else 128 - code
        return self.status

    def kill(self):
        if self.poll_exit() is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(self.pid, 0)


def finish(child, status, note=None):
    sys.stdout.write(child.output.decode("utf-8", errors="replace"))
    sys.stdout.flush()
    if note:
        sys.stderr.write(f"pty-drive: {note}\n")
    sys.exit(status)


def main():
    env, steps, exit_timeout, command = parse_args(sys.argv[1:])
    if not command:
        sys.stderr.write(__doc__)
        sys.exit(2)
    if steps is None:
        steps = json.load(sys.stdin)
    child = Child(command, env)
    position = 0  # in the visible text: where the next wait starts looking
    for step in steps:
        if "send" in step:
            child.send(step["send"])
        elif "wait" in step:
            deadline = time.monotonic() + float(step.get("timeout", 5))
            while True:
                text = visible(bytes(child.output))
                found = text.find(step["wait"], position)
                if found >= 0:
                    position = found + len(step["wait"])
                    break
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    child.kill()
                    finish(child, 124, f"timed out waiting for {step['wait']!r}")
                child.pump(min(remaining, 0.1))
        elif "wait_url" in step:
            deadline = time.monotonic() + float(step.get("timeout", 5))
            while True:
                try:
                    # No proxy: the URL is a loopback test server.
                    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
                    with opener.open(step["wait_url"], timeout=2) as response:
                        body = response.read().decode("utf-8", errors="replace")
                except OSError:
                    body = ""
                if step["contains"] in body:
                    break
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    child.kill()
                    finish(child, 124, f"timed out waiting for {step['contains']!r} at {step['wait_url']}")
                child.pump(min(remaining, 0.05))
        elif "sleep" in step:
            deadline = time.monotonic() + float(step["sleep"])
            while (remaining := deadline - time.monotonic()) > 0:
                child.pump(remaining)
        else:
            child.kill()
            finish(child, 2, f"unknown step {step!r}")
    deadline = time.monotonic() + exit_timeout
    while child.poll_exit() is None or not child.closed:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            if child.poll_exit() is not None:
                break  # exited; a grandchild may still hold the terminal open
            child.kill()
            finish(child, 124, "timed out waiting for the command to exit")
        child.pump(min(remaining, 0.1))
    finish(child, child.status)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""`fetchlog serve`'s resident memory with stream clients that never read (issue 33).

    swift build && Tools/serve-idle-clients.py .build/debug/fetchlog [--clients 200] [--seconds 60] [--rcvbuf 4096] [--slice 200]

Makes a store holding the bundled sample log, starts `FETCHLOG serve` on it, opens CLIENTS
connections to /api/stream that read nothing after `: subscribed` (each socket's receive
buffer set to RCVBUF bytes before it connects: this machine's kernel on the client side
holds little; the server's send buffer on loopback still takes about 2 MB), then for
SECONDS imports SLICE events at a time (`log import`, one process after the other) from an
export of events whose `/api/log` rows are about 2 KiB (`fetchlog-bench --padded-log`,
built beside FETCHLOG). Prints the serve process's VmRSS before, every 10 s, its peak
(VmHWM), 3 s after the clients closed, and the events appended.
"""
import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def memory(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(field)


def mib(n):
    return f"{n / (1 << 20):.0f} MiB"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("fetchlog")
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--slice", type=int, default=200)
    parser.add_argument("--events", type=int, default=40000)
    parser.add_argument("--rcvbuf", type=int, default=4096)
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="serve-idle-")
    store = os.path.join(work, "store")
    subprocess.run([args.fetchlog, "--store", store, "log", "import",
                    os.path.join(ROOT, "Sources/fetchlog/Resources/sample-log.ndjson")], check=True, capture_output=True)
    export = os.path.join(work, "padded.ndjson")
    subprocess.run([os.path.join(os.path.dirname(args.fetchlog), "fetchlog-bench"), "--padded-log", str(args.events), export], check=True)
    with open(export) as f:
        lines = f.readlines()
    slices = []
    for k, start in enumerate(range(0, len(lines), args.slice)):
        path = os.path.join(work, f"slice-{k}.ndjson")
        with open(path, "w") as f:
            f.writelines(lines[start:start + args.slice])
        slices.append(path)
    del lines
    serve = subprocess.Popen([args.fetchlog, "--store", store, "serve", "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    base = serve.stdout.readline().strip()
    port = int(base.rsplit(":", 1)[1])

    clients = []
    for _ in range(args.clients):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, args.rcvbuf)
        s.connect(("127.0.0.1", port))
        s.sendall(f"GET /api/stream HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        got = b""
        while b": subscribed" not in got:
            got += s.recv(4096)
        clients.append(s)
    before = memory(serve.pid, "VmRSS")
    first = json.load(urllib.request.urlopen(base + "/api/status"))  # the server answers
    print(f"{args.clients} clients subscribed; serve VmRSS {mib(before)}", flush=True)

    stop = threading.Event()

    def importer():
        for path in slices:
            if stop.is_set():
                return
            subprocess.run([args.fetchlog, "--store", store, "log", "import", path], capture_output=True)

    threads = [threading.Thread(target=importer)]
    for t in threads:
        t.start()
    start = time.monotonic()
    samples = []
    while time.monotonic() - start < args.seconds:
        time.sleep(10 if args.seconds >= 20 else 1)
        samples.append((round(time.monotonic() - start), memory(serve.pid, "VmRSS")))
        print(f"  {samples[-1][0]:>3} s: VmRSS {mib(samples[-1][1])}", flush=True)
    stop.set()
    for t in threads:
        t.join()
    during = memory(serve.pid, "VmRSS")
    peak = memory(serve.pid, "VmHWM")
    last = json.load(urllib.request.urlopen(base + "/api/log?from=1&limit=1"))
    for s in clients:
        s.close()
    # The server notices each close when it next writes, or at once for a connection with
    # bytes waiting (the peer's RST); give it a moment and a request of its own.
    time.sleep(3)
    json.load(urllib.request.urlopen(base + "/api/status"))
    after = memory(serve.pid, "VmRSS")
    stats = subprocess.run([args.fetchlog, "--store", store, "--format", "json", "log", "tail", "-n", "1"], capture_output=True, text=True).stdout
    last_seq = json.loads(stats)[0]["seq"] if stats.strip() else 0
    print(json.dumps({"clients": args.clients, "seconds": args.seconds, "slice": args.slice, "rcvbuf": args.rcvbuf,
                      "rssBefore": mib(before), "rssAtEnd": mib(during), "peak": mib(peak), "rssAfterClose": mib(after),
                      "eventsAppended": last_seq - 13}, indent=1))
    serve.terminate()
    serve.wait()
    del first, last


if __name__ == "__main__":
    sys.exit(main())

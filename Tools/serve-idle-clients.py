#!/usr/bin/env python3
"""`fetchlog serve`'s resident memory with stream clients that never read (issue 33).

    Tools/serve-idle-clients.py FETCHLOG [--clients 200] [--seconds 60] [--fetchers 4] [--rcvbuf 4096]

Makes a store holding the bundled sample log, starts the sample upstream
(`FETCHLOG upstream serve`) and `FETCHLOG serve` on it, opens CLIENTS connections to
/api/stream that read nothing after `: subscribed` (each socket's receive buffer set to
RCVBUF bytes before it connects, so what they are not sent waits in the server, not in
this machine's kernel), then for SECONDS runs FETCHERS loops of
`fetch tvmaze shows --pages all` against the upstream (each run five events: four pages
revalidated and the end of the list). Prints the serve process's VmRSS before, each 10 s,
its peak (VmHWM), after the clients close, and the events appended.
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
    parser.add_argument("--fetchers", type=int, default=4)
    parser.add_argument("--rcvbuf", type=int, default=4096)
    args = parser.parse_args()

    store = os.path.join(tempfile.mkdtemp(prefix="serve-idle-"), "store")
    subprocess.run([args.fetchlog, "--store", store, "log", "import",
                    os.path.join(ROOT, "Sources/fetchlog/Resources/sample-log.ndjson")], check=True, capture_output=True)
    upstream = subprocess.Popen([args.fetchlog, "upstream", "serve", "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    upstream_base = upstream.stdout.readline().strip()
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

    def fetcher():
        while not stop.is_set():
            subprocess.run([args.fetchlog, "--store", store, "--upstream", upstream_base, "fetch", "tvmaze", "shows", "--pages", "all"],
                           capture_output=True)

    threads = [threading.Thread(target=fetcher) for _ in range(args.fetchers)]
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
    print(json.dumps({"clients": args.clients, "seconds": args.seconds, "fetchers": args.fetchers, "rcvbuf": args.rcvbuf,
                      "rssBefore": mib(before), "rssAtEnd": mib(during), "peak": mib(peak), "rssAfterClose": mib(after),
                      "lastEvent": stats.strip()[:200]}, indent=1))
    serve.terminate()
    upstream.terminate()
    serve.wait()
    upstream.wait()
    del first, last


if __name__ == "__main__":
    sys.exit(main())

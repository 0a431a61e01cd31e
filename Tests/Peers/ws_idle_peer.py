#!/usr/bin/env python3
"""Holds many idle WebSockets open against one server: a crowd of phones with the app in the foreground.

Opens COUNT WebSocket connections to ws://127.0.0.1:PORT/PATH (RFC 6455 §4.1 handshake over raw
sockets, so the client costs little), from source addresses 127.0.0.2.. (a new one every 20,000
sockets), answers nothing, and prints one JSON line: {"open": n, "failed": m}. Then it reads commands,
one per line, from stdin:
  close N   closes the first N still-open sockets, prints {"open": n}
  check     prints {"open": n}: how many the server has not closed
  pong S    for S seconds answers every PING with a PONG (a live phone), then prints {"open": n, "pings": p}
  quit      closes everything and exits
PATH may carry a query; "{i}" in it is replaced by the socket's index (e.g. device_id=d{i}).

usage: ws_idle_peer.py PORT PATH COUNT
"""
import base64
import json
import os
import select
import socket
import sys
import time

port, path, count = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
buffers = {}
gone = set()  # sockets the server closed


def readable(socks, timeout):
    """The sockets of `socks` with something to read (poll(2): select() stops at descriptor 1024)."""
    poller = select.poll()
    by_fd = {s.fileno(): s for s in socks}
    for fd in by_fd:
        poller.register(fd, select.POLLIN)
    return [by_fd[fd] for fd, _ in poller.poll(timeout * 1000)]


def answer_pings(seconds):
    """Reads server frames for `seconds` (one pass for 0), answering each PING (opcode 0x9) with a masked
    PONG that echoes its payload (RFC 6455 §5.5.3)."""
    pings, deadline = 0, time.monotonic() + seconds
    while True:
        for s in readable(sockets, min(0.5, seconds)):
            try:
                data = s.recv(65536)
            except OSError:
                data = b""
            if not data:
                gone.add(s)
                continue
            buf = buffers.get(s, b"") + data
            while len(buf) >= 2 and len(buf) >= 2 + (buf[1] & 0x7F) and (buf[1] & 0x7F) < 126:
                size = buf[1] & 0x7F
                opcode, payload, buf = buf[0] & 0x0F, buf[2:2 + size], buf[2 + size:]
                if opcode == 0x9:
                    pings += 1
                    s.sendall(bytes([0x8A, 0x80 | len(payload)]) + b"\0\0\0\0" + payload)
            buffers[s] = buf
        if time.monotonic() >= deadline:
            return pings


sockets, failed = [], 0
pending = {}
for index in range(count):
    source = "127.0.0.%d" % (2 + index // 20000)
    try:
        sock = socket.socket()
        sock.bind((source, 0))
        sock.connect(("127.0.0.1", port))
    except OSError:
        failed += 1
        continue
    key = base64.b64encode(os.urandom(16)).decode()
    request = (f"GET {path.replace('{i}', str(index))} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
               f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
               f"Sec-WebSocket-Version: 13\r\n\r\n")
    sock.sendall(request.encode())
    pending[sock] = b""
    if index % 500 == 499:
        answer_pings(0)  # sockets opened first are PINGed while the rest still open
    # Read answers as we go so the server's send buffers never fill.
    while len(pending) > 200 or (index == count - 1 and pending):
        ready = readable(list(pending), 10)
        if not ready:
            break
        for s in ready:
            data = s.recv(4096)
            pending[s] += data
            if b"\r\n\r\n" in pending[s] or not data:
                if pending[s].startswith(b"HTTP/1.1 101"):
                    sockets.append(s)
                else:
                    failed += 1
                    s.close()
                del pending[s]
for s in pending:
    failed += 1
    s.close()


def still_open():
    """The sockets the server has not closed; PINGs waiting on them are answered, not dropped."""
    answer_pings(0)
    return [s for s in sockets if s not in gone]


print(json.dumps({"open": len(sockets), "failed": failed}), flush=True)
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "close":
        n = int(words[1])
        for s in sockets[:n]:
            s.close()
        sockets = sockets[n:]
    elif words[0] == "quit":
        break
    pings = answer_pings(float(words[1])) if words[0] == "pong" else None
    sockets = still_open()
    print(json.dumps({"open": len(sockets)} if pings is None else {"open": len(sockets), "pings": pings}), flush=True)
for s in sockets:
    s.close()

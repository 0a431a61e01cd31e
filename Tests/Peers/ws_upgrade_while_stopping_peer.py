#!/usr/bin/env python3
"""Sends a WebSocket upgrade (RFC 6455 §4.1) to a server that is shutting down, over a raw socket: first a
plain request on each of a few kept-alive HTTP/1.1 connections, then a socket upgraded to /v1/events that never
answers the server's close frame (so the graceful phase lasts its full bound of 2 s), then SIGTERM to the server's
PID, and then the upgrade on one kept-alive connection after another, a quarter second apart, until one is not
accepted (the phase may begin a moment after the signal). Prints one JSON line with that upgrade's answer:
  {"status": 503, "content_type": "application/problem+json", "body": "..."}   ({"status": null} if none came)

usage: ws_upgrade_while_stopping_peer.py PORT PID TOKEN
"""
import json
import os
import signal
import socket
import sys
import time

port, pid, token = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
upgrade = (f"GET /v1/events?device_id={{}} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
           f"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
           f"Authorization: Bearer {token}\r\n\r\n")


def read_response(sock):
    """Reads one HTTP/1.1 response with a Content-Length body; returns (status, headers, body) or None."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            return None
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    length = int(headers.get("content-length", "0"))
    while len(body) < length:
        chunk = sock.recv(4096)
        if not chunk:
            break
        body += chunk
    return int(lines[0].split()[1]), headers, body


kept = []
for _ in range(8):
    connection = socket.create_connection(("127.0.0.1", port), timeout=5)
    connection.sendall(f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
    read_response(connection)
    kept.append(connection)
silent = socket.create_connection(("127.0.0.1", port), timeout=5)
silent.sendall(upgrade.format("silent").encode())
silent.recv(4096)
os.kill(pid, signal.SIGTERM)
answer = None
for index, connection in enumerate(kept):
    time.sleep(0.25)
    connection.sendall(upgrade.format(f"late{index}").encode())
    try:
        answer = read_response(connection)
    except OSError:
        answer = None
    if answer is None or answer[0] != 101:
        break
if answer is None:
    print(json.dumps({"status": None}))
else:
    status, headers, body = answer
    print(json.dumps({"status": status, "content_type": headers.get("content-type"),
                      "body": body.decode("utf-8", "replace")}))

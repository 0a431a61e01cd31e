#!/usr/bin/env python3
"""A WebSocket client that completes the handshake (RFC 6455 §4.1) over a raw socket and then never
answers anything, not even PINGs or a close frame: a phone that vanished. Prints JSON: whether the server closed the
connection, after how many seconds, whether a PING frame (opcode 0x9) arrived first, and the status code of
the server's close frame (opcode 0x8, RFC 6455 §5.5.1) if one arrived ("close_code", else null).

Usage: ws_silent_peer.py PORT PATH [TIMEOUT]"""
import base64
import json
import os
import socket
import sys
import time

port, path = int(sys.argv[1]), sys.argv[2]
timeout = float(sys.argv[3]) if len(sys.argv) > 3 else 20
key = base64.b64encode(os.urandom(16)).decode()
sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
sock.sendall((f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
              f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
started = time.monotonic()
data = b""
while b"\r\n\r\n" not in data:
    data += sock.recv(4096)
upgraded = data.startswith(b"HTTP/1.1 101")
data = data.split(b"\r\n\r\n", 1)[1]
pinged, closed, close_code = False, False, None
try:
    while True:
        # Server frames are unmasked; PINGs and close frames are short (payload length < 126).
        while len(data) >= 2 and (data[1] & 0x7F) < 126 and len(data) >= 2 + (data[1] & 0x7F):
            opcode, size = data[0] & 0x0F, data[1] & 0x7F
            if opcode == 0x9:
                pinged = True
            if opcode == 0x8 and size >= 2:
                close_code = (data[2] << 8) | data[3]
            data = data[2 + size:]
        chunk = sock.recv(4096)
        if not chunk:
            closed = True
            break
        data += chunk
except (socket.timeout, ConnectionError):
    closed = isinstance(sys.exc_info()[1], ConnectionError)
print(json.dumps({"upgraded": upgraded, "pinged": pinged, "closed": closed, "close_code": close_code,
                  "seconds": round(time.monotonic() - started, 2)}))

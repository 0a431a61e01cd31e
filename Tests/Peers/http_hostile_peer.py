"""A hostile HTTP/1.1 and WebSocket peer on raw sockets (Python's socket module only), for the limits
that a well-behaved client library never exercises: pipelined writes, trickling bodies, unmasked frames,
connection floods. Each command prints one JSON object on stdout.

    python3 http_hostile_peer.py raw PORT LITERAL [SECONDS]
        Sends the Python bytes literal in one write, reads until the server closes (or SECONDS pass,
        default 5): {"data": text (latin-1), "closed": bool}.
    python3 http_hostile_peer.py trickle PORT PATH SECONDS_PER_BYTE LIMIT
        Sends a POST head announcing 1000 body bytes, then one byte every SECONDS_PER_BYTE until the
        server answers or closes, or LIMIT seconds pass: {"elapsed": s, "data": text, "closed": bool}.
    python3 http_hostile_peer.py unmasked PORT PATH
        Opens a WebSocket (RFC 6455 §4.1 handshake by hand) and sends one text frame WITHOUT the mask
        that §5.1 requires of a client: {"handshake": status line, "close_code": int or null,
        "closed": bool, "echoed": text or null}.
    python3 http_hostile_peer.py flood PORT SOURCE COUNT
        Opens COUNT connections from the local address SOURCE and, after a second, counts those the
        server has closed: {"opened": n, "closed": n}.
"""
import ast
import base64
import json
import os
import socket
import sys
import time


def read_all(sock, seconds):
    sock.settimeout(seconds)
    data = b""
    closed = False
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            break
        except ConnectionResetError:
            closed = True
            break
        if not chunk:
            closed = True
            break
        data += chunk
    return data, closed


def raw(port, literal, seconds=5.0):
    payload = ast.literal_eval(literal)
    sock = socket.create_connection(("127.0.0.1", port))
    sock.sendall(payload)
    data, closed = read_all(sock, seconds)
    print(json.dumps({"data": data.decode("latin-1"), "closed": closed}))


def trickle(port, path, per_byte, limit):
    sock = socket.create_connection(("127.0.0.1", port))
    sock.sendall(f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                 f"Content-Length: 1000\r\n\r\n".encode())
    started = time.monotonic()
    data = b""
    closed = False
    sock.settimeout(per_byte)
    while time.monotonic() - started < limit:
        try:
            chunk = sock.recv(65536)
            if not chunk:
                closed = True
                break
            data += chunk
            if b"\r\n\r\n" in data:
                rest, _ = read_all(sock, 1)
                data += rest
                break
        except socket.timeout:
            try:
                sock.sendall(b" ")
            except (BrokenPipeError, ConnectionResetError):
                closed = True
                break
        except ConnectionResetError:
            closed = True
            break
    print(json.dumps({"elapsed": time.monotonic() - started, "data": data.decode("latin-1"), "closed": closed}))


def unmasked(port, path):
    sock = socket.create_connection(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                 f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode())
    sock.settimeout(5)
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(1)
        if not chunk:
            break
        head += chunk
    status = head.split(b"\r\n", 1)[0].decode("latin-1")
    text = b"hello"
    # FIN + text opcode, then a length byte with the mask bit (0x80) clear.
    sock.sendall(bytes([0x81, len(text)]) + text)
    data, closed = read_all(sock, 3)
    close_code = None
    echoed = None
    index = 0
    while index + 2 <= len(data):
        opcode = data[index] & 0x0F
        length = data[index + 1] & 0x7F
        payload = data[index + 2:index + 2 + length]
        if opcode == 0x8 and len(payload) >= 2:
            close_code = int.from_bytes(payload[:2], "big")
        elif opcode == 0x1:
            echoed = payload.decode("utf-8", "replace")
        index += 2 + length
    print(json.dumps({"handshake": status, "close_code": close_code, "closed": closed, "echoed": echoed}))


def flood(port, source, count):
    sockets = []
    for _ in range(count):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind((source, 0))
        sock.connect(("127.0.0.1", port))
        sockets.append(sock)
    time.sleep(1)
    closed = 0
    for sock in sockets:
        sock.setblocking(False)
        try:
            if sock.recv(1) == b"":
                closed += 1
        except BlockingIOError:
            pass
        except ConnectionResetError:
            closed += 1
    print(json.dumps({"opened": len(sockets), "closed": closed}))
    for sock in sockets:
        sock.close()


def main():
    command, port = sys.argv[1], int(sys.argv[2])
    if command == "raw":
        raw(port, sys.argv[3], float(sys.argv[4]) if len(sys.argv) > 4 else 5.0)
    elif command == "trickle":
        trickle(port, sys.argv[3], float(sys.argv[4]), float(sys.argv[5]))
    elif command == "unmasked":
        unmasked(port, sys.argv[3])
    elif command == "flood":
        flood(port, sys.argv[3], int(sys.argv[4]))
    else:
        sys.exit(f"unknown command {command}")


if __name__ == "__main__":
    main()

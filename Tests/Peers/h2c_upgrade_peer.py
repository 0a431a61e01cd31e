#!/usr/bin/env python3
"""An HTTP/1.1 client that asks to upgrade to cleartext HTTP/2 (`Upgrade: h2c`, RFC 7540 §3.2) the way the `h2`
library prescribes: its HTTP2-Settings header comes from `H2Connection.initiate_upgrade_connection()`. If the server
switches protocols, the peer goes on in HTTP/2 with `h2` and reads stream 1's answer; if not, it reads the HTTP/1.1
answer.

Usage: h2c_upgrade_peer.py PORT METHOD PATH [BODY] [--token TOKEN]

Prints one JSON object: {"switched": bool, "status": int or null, "version": "HTTP/1.1" or "h2" or null,
"body": text, "closed": bool}. Exits 0 whenever the server answered something, 1 when the connection ended or
stalled (5 s) without an answer.
"""
import argparse
import json
import socket
import sys

import h2.config
import h2.connection
import h2.events


def read_http1(sock, buffered):
    data = buffered
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return None, data, True
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    status = int(lines[0].split(" ")[1])
    closed = False
    if status != 101:
        length = int(headers.get("content-length", "0"))
        while len(rest) < length:
            chunk = sock.recv(65536)
            if not chunk:
                closed = True
                break
            rest += chunk
    return (lines[0], status, headers), rest, closed


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int)
    parser.add_argument("method")
    parser.add_argument("path")
    parser.add_argument("body", nargs="?", default="")
    parser.add_argument("--token")
    args = parser.parse_args()

    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    settings = conn.initiate_upgrade_connection()
    body = args.body.encode()
    lines = [f"{args.method} {args.path} HTTP/1.1", f"Host: 127.0.0.1:{args.port}",
             "Connection: Upgrade, HTTP2-Settings", "Upgrade: h2c", f"HTTP2-Settings: {settings.decode()}"]
    if args.token:
        lines.append(f"Authorization: Bearer {args.token}")
    if body:
        lines += ["Content-Type: application/json", f"Content-Length: {len(body)}"]
    sock = socket.create_connection(("127.0.0.1", args.port), timeout=5)
    result = {"switched": False, "status": None, "version": None, "body": "", "closed": False}
    try:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        head, rest, closed = read_http1(sock, b"")
        if head is None:
            result["closed"] = True
            print(json.dumps(result))
            return 1
        status_line, status, _ = head
        if status != 101:
            result.update(status=status, version=status_line.split(" ")[0], body=rest.decode("utf-8", "replace"),
                          closed=closed)
            print(json.dumps(result))
            return 0
        # Switched: stream 1 carries the upgraded request's answer (RFC 7540 §3.2).
        result["switched"] = True
        sock.sendall(conn.data_to_send())
        received = b""
        pending = rest
        while True:
            events = conn.receive_data(pending) if pending else []
            pending = b""
            for event in events:
                if isinstance(event, h2.events.ResponseReceived) and event.stream_id == 1:
                    result["status"] = int(dict(event.headers)[b":status"])
                    result["version"] = "h2"
                elif isinstance(event, h2.events.DataReceived) and event.stream_id == 1:
                    received += event.data
                elif isinstance(event, (h2.events.StreamEnded, h2.events.StreamReset)) and event.stream_id == 1:
                    result["body"] = received.decode("utf-8", "replace")
                    print(json.dumps(result))
                    return 0 if result["status"] is not None else 1
            sock.sendall(conn.data_to_send())
            pending = sock.recv(65536)
            if not pending:
                result["closed"] = True
                print(json.dumps(result))
                return 1
    except (socket.timeout, ConnectionError) as error:
        result["closed"] = True
        result["body"] = str(error)
        print(json.dumps(result))
        return 1
    finally:
        sock.close()


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""A hostile WebSocket client for the event socket: each attack opens its own connection with a valid token,
completes the handshake (RFC 6455 §4.1) over a raw socket, then sends something a client must not, and
records how the server ended it. Prints one JSON object: {attack: {"close_code": n or null, "dropped": bool,
"seconds": s, "upgraded": bool}}, where close_code is the status of the server's close frame (RFC 6455
§5.5.1) and dropped means the TCP connection ended (or was reset) without one.

Attacks (frames from a client must be masked, RFC 6455 §5.1-5.5; the server's limit is 4 KiB a message):
  reserved_bits      a text frame with RSV1 set and no extension agreed          (§5.2: fail, 1002)
  unknown_opcode     opcode 0x3                                                  (§5.2: fail, 1002)
  long_control       a PING with 126 bytes of payload                            (§5.5: at most 125)
  fragmented_control a PING without FIN                                          (§5.5: must not be fragmented)
  orphan_continuation a continuation frame with no message started               (§5.4)
  bad_utf8           a text frame that is not UTF-8                              (§8.1: 1007)
  huge_length        a header announcing 2^62 bytes, then 16 of them             (over the limit: 1009 at once)
  oversized_fragments 3 fragments of 2 KiB, 6 KiB in all                         (over the limit: 1009)
  half_header        one byte of a frame header, then the client closes          (nothing to answer)
  ping_flood         20,000 masked PINGs in one burst, never reading             (the server must stay up)
  binary_flood       2,000 binary frames of 1 KiB, never reading

Usage: ws_fuzz_peer.py PORT PATH [TIMEOUT]     PATH carries the token: /v1/events?access_token=…&device_id=…
"""
import base64
import json
import os
import socket
import struct
import sys
import time

port, path = int(sys.argv[1]), sys.argv[2]
timeout = float(sys.argv[3]) if len(sys.argv) > 3 else 10


def frame(opcode, payload, fin=True, rsv=0, mask=True, length=None):
    """A client frame; `length` overrides the announced length (payload is still what is sent)."""
    size = len(payload) if length is None else length
    first = (0x80 if fin else 0) | (rsv << 4) | opcode
    if size < 126:
        header = struct.pack("!BB", first, (0x80 if mask else 0) | size)
    elif size < 1 << 16:
        header = struct.pack("!BBH", first, (0x80 if mask else 0) | 126, size)
    else:
        header = struct.pack("!BBQ", first, (0x80 if mask else 0) | 127, size)
    if not mask:
        return header + payload
    key = os.urandom(4)
    return header + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


def connect(device):
    sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((f"GET {path}&device_id={device} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                  f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    return sock, data.startswith(b"HTTP/1.1 101"), data.split(b"\r\n\r\n", 1)[-1]


def outcome(sock, data, started):
    """Reads until the server closes: the close frame's code, if one came first."""
    close_code, dropped = None, False
    try:
        while True:
            while len(data) >= 2:
                opcode, size = data[0] & 0x0F, data[1] & 0x7F
                offset = 2
                if size == 126:
                    if len(data) < 4:
                        break
                    size, offset = struct.unpack("!H", data[2:4])[0], 4
                elif size == 127:
                    if len(data) < 10:
                        break
                    size, offset = struct.unpack("!Q", data[2:10])[0], 10
                if len(data) < offset + size:
                    break
                if opcode == 0x8:
                    close_code = struct.unpack("!H", data[offset:offset + 2])[0] if size >= 2 else 1005
                    return {"close_code": close_code, "dropped": False, "seconds": round(time.monotonic() - started, 3)}
                data = data[offset + size:]
            chunk = sock.recv(65536)
            if not chunk:
                dropped = True
                break
            data += chunk
    except (ConnectionResetError, BrokenPipeError):
        dropped = True
    except socket.timeout:
        pass
    return {"close_code": close_code, "dropped": dropped, "seconds": round(time.monotonic() - started, 3)}


def attack(name, payloads, then_close=False):
    sock, upgraded, rest = connect(name.replace("_", "-"))
    started = time.monotonic()
    result = {"upgraded": upgraded}
    try:
        for payload in payloads:
            sock.sendall(payload)
        if then_close:
            sock.close()
            result.update({"close_code": None, "dropped": True, "seconds": 0})
            return result
    except (ConnectionResetError, BrokenPipeError):
        result.update({"close_code": None, "dropped": True, "seconds": round(time.monotonic() - started, 3)})
        return result
    result.update(outcome(sock, rest, started))
    sock.close()
    return result


results = {
    "reserved_bits": attack("reserved_bits", [frame(0x1, b"hello", rsv=4)]),
    "unknown_opcode": attack("unknown_opcode", [frame(0x3, b"x")]),
    "long_control": attack("long_control", [frame(0x9, b"p" * 126)]),
    "fragmented_control": attack("fragmented_control", [frame(0x9, b"p", fin=False)]),
    "orphan_continuation": attack("orphan_continuation", [frame(0x0, b"x")]),
    "bad_utf8": attack("bad_utf8", [frame(0x1, b"\xff\xfe\xfd")]),
    "huge_length": attack("huge_length", [frame(0x2, b"", length=1 << 62) + b"0123456789abcdef"]),
    "oversized_fragments": attack("oversized_fragments", [frame(0x2, b"a" * 2048, fin=False),
                                                          frame(0x0, b"b" * 2048, fin=False),
                                                          frame(0x0, b"c" * 2048)]),
    "half_header": attack("half_header", [b"\x81"], then_close=True),
    "ping_flood": attack("ping_flood", [b"".join(frame(0x9, b"f") for _ in range(20000)),
                                        frame(0x8, struct.pack("!H", 1000))]),
    "binary_flood": attack("binary_flood", [b"".join(frame(0x2, b"z" * 1024) for _ in range(2000)),
                                            frame(0x8, struct.pack("!H", 1000))]),
}
print(json.dumps(results))

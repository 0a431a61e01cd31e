#!/usr/bin/env python3
"""Independent HTTP/2 client peer for HTTP2ServerTests, built on the `h2` package over `ssl` sockets.

Usage: h2_server_client_peer.py --port PORT --ca CA_PEM SCENARIO [options]

Connects to 127.0.0.1:PORT with TLS (server name "localhost", verified against CA_PEM, ALPN "h2"),
runs one scenario and prints one JSON object on stdout. Exit status 0 means the scenario ran to its end;
the test decides whether the observed behaviour is right. Every socket operation has a timeout
(--timeout, seconds), so the peer never hangs a test.

Scenarios:
  concurrent --streams N      N POST /echo?i=K streams at once on one connection, bodies sent as DATA
                              without content-length, header x-echo: K. Reports every response.
  slow-fast                   GET /slow, then at once GET /fast on the same connection; reports when each
                              response completed (seconds since the requests were sent).
  settings                    GET /limit, then waits for a SETTINGS change of MAX_CONCURRENT_STREAMS; then
                              opens a second connection and reports its initial value too.
  goaway --requests N [--sequential]
                              N GETs to /echo?i=K, all in one write (or each after the previous response);
                              reads until the server closes; reports GOAWAY, responses and resets.
  upload --bytes N            POST /echo with an N-byte body (no content-length), respecting flow control;
                              stops at the response or a reset; reports both.
  reset                       GET /slow, resets it at once (CANCEL), waits 1.5 s, then GET /fast on the same
                              connection; reports both (the reset one should have no response).
  hold                        GET /never, then waits until the connection closes; reports whether a GOAWAY
                              came first.
  alpn --offer P,Q|none       TLS handshake offering only those protocols; reports the outcome.
  bad-preface                 TLS with ALPN h2, then an HTTP/1.1 request instead of the HTTP/2 preface.
  plain-tcp                   An HTTP/1.1 request on a plain TCP connection (no TLS at all).
  silent                      A TCP connection that never sends anything; reports when the server closed it.

JSON keys (where they apply): responses [{stream_id, status, headers, body, reset, elapsed}], goaway
{last_stream_id, error_code}, closed, initial / updated / new_connection (MAX_CONCURRENT_STREAMS values),
handshake ("ok" or "failed"), error, alpn, bytes_received, sent_bytes, requests_sent, elapsed (seconds).

After the server's GOAWAY, `h2` refuses every later frame, so this peer splits input into frames itself and,
once a GOAWAY arrived, decodes the rest with hyperframe and h2's own HPACK decoder (same dynamic table).
"""

import argparse
import json
import socket
import ssl
import sys
import time

import h2.config
import h2.errors
import h2.connection
import h2.events
import h2.exceptions
import h2.settings
from hyperframe.frame import DataFrame, Frame, GoAwayFrame, HeadersFrame, RstStreamFrame

TIMEOUT = 20.0


class Client:
    """One HTTP/2 connection with per-stream results."""

    def __init__(self, port, cafile, alpn=("h2",)):
        context = ssl.create_default_context(cafile=cafile)
        context.set_alpn_protocols(list(alpn))
        raw = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
        self.sock = context.wrap_socket(raw, server_hostname="localhost")
        self.port = port
        config = h2.config.H2Configuration(client_side=True, header_encoding="utf-8")
        self.conn = h2.connection.H2Connection(config=config)
        self.conn.initiate_connection()
        self.flush()
        self.buffer = b""
        self.streams = {}
        self.goaway = None
        self.closed = False
        self.settings_changes = []  # MAX_CONCURRENT_STREAMS values, in the order SETTINGS frames set them
        self.started = time.monotonic()

    def flush(self):
        data = self.conn.data_to_send()
        if data:
            self.sock.sendall(data)

    def request(self, method, path, headers=(), body=None, end_stream=True):
        stream_id = self.conn.get_next_available_stream_id()
        fields = [(":method", method), (":path", path), (":scheme", "https"),
                  (":authority", "localhost:%d" % self.port)] + list(headers)
        self.conn.send_headers(stream_id, fields, end_stream=end_stream and body is None)
        if body is not None:
            self.conn.send_data(stream_id, body, end_stream=end_stream)
        self.streams[stream_id] = {"stream_id": stream_id, "status": None, "headers": {}, "body": b"",
                                   "ended": False, "reset": None, "elapsed": None, "sent_at": time.monotonic()}
        return stream_id

    def done(self, stream_id):
        stream = self.streams[stream_id]
        return stream["ended"] or stream["reset"] is not None

    def read_once(self, timeout=None):
        """Reads what arrives within `timeout` seconds (default: the global timeout) and handles it."""
        self.sock.settimeout(TIMEOUT if timeout is None else timeout)
        try:
            data = self.sock.recv(65536)
        except (socket.timeout, ssl.SSLWantReadError):
            return
        except (ConnectionError, ssl.SSLError, OSError):
            data = b""
        if not data:
            self.closed = True
            return
        self.buffer += data
        while len(self.buffer) >= 9:
            total = 9 + int.from_bytes(self.buffer[:3], "big")
            if len(self.buffer) < total:
                break
            frame, self.buffer = self.buffer[:total], self.buffer[total:]
            if self.goaway is None:
                self.handle(self.conn.receive_data(frame))
                self.flush()
            else:
                self.handle_raw(frame)

    def read_until(self, predicate, deadline=None):
        deadline = deadline or time.monotonic() + TIMEOUT
        while not predicate() and not self.closed and time.monotonic() < deadline:
            self.read_once(timeout=max(0.01, deadline - time.monotonic()))
        return predicate()

    def handle(self, events):
        for event in events:
            if isinstance(event, h2.events.ResponseReceived):
                self.on_headers(event.stream_id, event.headers)
            elif isinstance(event, h2.events.DataReceived):
                self.on_data(event.stream_id, event.data)
                self.conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            elif isinstance(event, h2.events.StreamEnded):
                self.on_end(event.stream_id)
            elif isinstance(event, h2.events.StreamReset):
                if event.stream_id in self.streams:
                    self.streams[event.stream_id]["reset"] = int(event.error_code)
            elif isinstance(event, h2.events.RemoteSettingsChanged):
                change = event.changed_settings.get(h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS)
                if change is not None:
                    self.settings_changes.append(change.new_value)
            elif isinstance(event, h2.events.ConnectionTerminated):
                self.goaway = {"last_stream_id": event.last_stream_id, "error_code": int(event.error_code)}

    def handle_raw(self, data):
        frame, _ = Frame.parse_frame_header(memoryview(data[:9]))
        frame.parse_body(memoryview(data[9:]))
        if isinstance(frame, HeadersFrame):
            self.on_headers(frame.stream_id, self.conn.decoder.decode(frame.data))
        elif isinstance(frame, DataFrame):
            self.on_data(frame.stream_id, frame.data)
        elif isinstance(frame, RstStreamFrame) and frame.stream_id in self.streams:
            self.streams[frame.stream_id]["reset"] = frame.error_code
        elif isinstance(frame, GoAwayFrame):
            self.goaway = {"last_stream_id": frame.last_stream_id, "error_code": frame.error_code}
        if isinstance(frame, (HeadersFrame, DataFrame)) and "END_STREAM" in frame.flags:
            self.on_end(frame.stream_id)

    def on_headers(self, stream_id, headers):
        if stream_id not in self.streams:
            return
        for name, value in headers:
            name = name.decode() if isinstance(name, bytes) else name
            value = value.decode() if isinstance(value, bytes) else value
            if name == ":status":
                self.streams[stream_id]["status"] = int(value)
            else:
                self.streams[stream_id]["headers"][name] = value

    def on_data(self, stream_id, data):
        if stream_id in self.streams:
            self.streams[stream_id]["body"] += data

    def on_end(self, stream_id):
        if stream_id in self.streams:
            stream = self.streams[stream_id]
            stream["ended"] = True
            stream["elapsed"] = time.monotonic() - stream["sent_at"]

    def responses(self):
        result = []
        for stream in sorted(self.streams.values(), key=lambda s: s["stream_id"]):
            result.append({"stream_id": stream["stream_id"], "status": stream["status"], "headers": stream["headers"],
                           "body": stream["body"].decode("utf-8", "replace"), "reset": stream["reset"],
                           "elapsed": stream["elapsed"]})
        return result

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


def concurrent(args):
    client = Client(args.port, args.ca)
    client.read_until(lambda: client.conn.remote_settings.max_concurrent_streams is not None)
    ids = []
    for index in range(args.streams):
        ids.append(client.request("POST", "/echo?i=%d" % index, headers=[("x-echo", str(index))],
                                  body=("body-%d" % index).encode()))
    client.flush()
    client.read_until(lambda: all(client.done(i) for i in ids))
    report = {"responses": client.responses(), "closed": client.closed,
              "initial": client.conn.remote_settings.max_concurrent_streams}
    client.close()
    return report


def slow_fast(args):
    client = Client(args.port, args.ca)
    slow = client.request("GET", "/slow")
    fast = client.request("GET", "/fast")
    client.flush()
    client.read_until(lambda: client.done(slow) and client.done(fast))
    report = {"responses": client.responses(), "closed": client.closed}
    client.close()
    return report


def settings(args):
    first = Client(args.port, args.ca)
    first.read_until(lambda: len(first.settings_changes) >= 1)
    initial = first.settings_changes[0] if first.settings_changes else None
    stream = first.request("GET", "/limit")
    first.flush()
    first.read_until(lambda: first.done(stream) and len(first.settings_changes) >= 2)
    updated = first.settings_changes[1] if len(first.settings_changes) >= 2 else None
    second = Client(args.port, args.ca)
    second.read_until(lambda: len(second.settings_changes) >= 1)
    fresh = second.settings_changes[0] if second.settings_changes else None
    report = {"initial": initial, "updated": updated, "new_connection": fresh, "responses": first.responses()}
    first.close()
    second.close()
    return report


def goaway(args):
    client = Client(args.port, args.ca)
    sent = 0
    for index in range(args.requests):
        if client.goaway is not None:
            break  # h2 allows no new stream after GOAWAY; the rest are reported as not sent
        stream = client.request("GET", "/echo?i=%d" % index)
        sent += 1
        if args.sequential:
            client.flush()
            client.read_until(lambda: client.done(stream) or client.goaway is not None)
    client.flush()
    client.read_until(lambda: False)  # until the server closes (or the timeout)
    report = {"responses": client.responses(), "goaway": client.goaway, "closed": client.closed,
              "requests_sent": sent}
    client.close()
    return report


def upload(args):
    client = Client(args.port, args.ca)
    stream = client.request("POST", "/echo", end_stream=False)
    client.flush()
    remaining = args.bytes
    sent = 0
    deadline = time.monotonic() + TIMEOUT
    while remaining > 0 and not client.done(stream) and not client.closed and time.monotonic() < deadline:
        try:
            window = client.conn.local_flow_control_window(stream)
        except h2.exceptions.StreamClosedError:
            break
        chunk = min(remaining, window, client.conn.max_outbound_frame_size)
        if chunk <= 0:
            client.read_once()
            continue
        try:
            client.conn.send_data(stream, b"x" * chunk, end_stream=(chunk == remaining))
        except h2.exceptions.StreamClosedError:
            break
        client.flush()
        remaining -= chunk
        sent += chunk
        client.read_once(timeout=0.01)
    client.read_until(lambda: client.done(stream))
    report = {"responses": client.responses(), "sent_bytes": sent, "closed": client.closed}
    client.close()
    return report


def reset(args):
    client = Client(args.port, args.ca)
    slow = client.request("GET", "/slow")
    client.flush()
    client.conn.reset_stream(slow, error_code=h2.errors.ErrorCodes.CANCEL)
    client.flush()
    client.read_until(lambda: False, deadline=time.monotonic() + 1.5)
    fast = client.request("GET", "/fast")
    client.flush()
    client.read_until(lambda: client.done(fast))
    report = {"responses": client.responses(), "closed": client.closed, "goaway": client.goaway}
    client.close()
    return report


def hold(args):
    client = Client(args.port, args.ca)
    client.request("GET", "/never")
    client.flush()
    client.read_until(lambda: False)
    report = {"responses": client.responses(), "goaway": client.goaway, "closed": client.closed}
    client.close()
    return report


def alpn(args):
    started = time.monotonic()
    offer = [] if args.offer == "none" else args.offer.split(",")
    context = ssl.create_default_context(cafile=args.ca)
    if offer:
        context.set_alpn_protocols(offer)
    raw = socket.create_connection(("127.0.0.1", args.port), timeout=TIMEOUT)
    report = {"handshake": "failed", "error": None, "alpn": None, "bytes_received": 0, "closed": False}
    try:
        sock = context.wrap_socket(raw, server_hostname="localhost")
        report["handshake"] = "ok"
        report["alpn"] = sock.selected_alpn_protocol()
        if not offer:
            # No ALPN: HTTP/2 with prior knowledge (RFC 9113 §3.3), as APNs clients such as aioapns do.
            conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True))
            conn.initiate_connection()
            conn.send_headers(1, [(":method", "GET"), (":path", "/empty"), (":scheme", "https"),
                                  (":authority", "localhost")], end_stream=True)
            sock.sendall(conn.data_to_send())
            while report.get("status") is None:
                data = sock.recv(65536)
                if not data:
                    break
                report["bytes_received"] += len(data)
                for event in conn.receive_data(data):
                    if isinstance(event, h2.events.ResponseReceived):
                        report["status"] = int(dict(event.headers)[b":status"])
                sock.sendall(conn.data_to_send())
            sock.close()
            report["closed"] = True
            report["elapsed"] = time.monotonic() - started
            return report
        received = 0
        try:
            while True:
                data = sock.recv(65536)
                if not data:
                    break
                received += len(data)
        except (ConnectionError, ssl.SSLError, OSError) as error:
            report["error"] = str(error)
        report["bytes_received"] = received
        report["closed"] = True
        sock.close()
    except (ssl.SSLError, ConnectionError, OSError) as error:
        report["error"] = str(error)
        raw.close()
    report["elapsed"] = time.monotonic() - started
    return report


def read_to_end(sock):
    received = b""
    try:
        while True:
            data = sock.recv(65536)
            if not data:
                return received, True
            received += data
    except (ConnectionError, ssl.SSLError, OSError):
        return received, True


def bad_preface(args):
    context = ssl.create_default_context(cafile=args.ca)
    context.set_alpn_protocols(["h2"])
    raw = socket.create_connection(("127.0.0.1", args.port), timeout=TIMEOUT)
    sock = context.wrap_socket(raw, server_hostname="localhost")
    sock.sendall(b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")
    received, closed = read_to_end(sock)
    sock.close()
    return {"handshake": "ok", "alpn": "h2", "bytes_received": len(received), "closed": closed}


def plain_tcp(args):
    sock = socket.create_connection(("127.0.0.1", args.port), timeout=TIMEOUT)
    sock.sendall(b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")
    received, closed = read_to_end(sock)
    sock.close()
    return {"bytes_received": len(received), "closed": closed}


def silent(args):
    started = time.monotonic()
    sock = socket.create_connection(("127.0.0.1", args.port), timeout=TIMEOUT)
    received, closed = read_to_end(sock)
    sock.close()
    return {"bytes_received": len(received), "closed": closed, "elapsed": time.monotonic() - started}


def main():
    global TIMEOUT
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--ca", required=True)
    parser.add_argument("--timeout", type=float, default=20.0)
    sub = parser.add_subparsers(dest="scenario", required=True)
    sub.add_parser("concurrent").add_argument("--streams", type=int, default=200)
    sub.add_parser("slow-fast")
    sub.add_parser("settings")
    parser_goaway = sub.add_parser("goaway")
    parser_goaway.add_argument("--requests", type=int, default=5)
    parser_goaway.add_argument("--sequential", action="store_true")
    sub.add_parser("upload").add_argument("--bytes", type=int, required=True)
    sub.add_parser("reset")
    sub.add_parser("hold")
    sub.add_parser("alpn").add_argument("--offer", required=True)
    sub.add_parser("bad-preface")
    sub.add_parser("plain-tcp")
    sub.add_parser("silent")
    args = parser.parse_args()
    TIMEOUT = args.timeout
    scenarios = {"concurrent": concurrent, "slow-fast": slow_fast, "settings": settings, "goaway": goaway,
                 "upload": upload, "reset": reset, "hold": hold, "alpn": alpn, "bad-preface": bad_preface, "plain-tcp": plain_tcp, "silent": silent}
    json.dump(scenarios[args.scenario](args), sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""A protocol fuzzer that attacks a running server with malformed HTTP/1.1, h2c upgrades, HTTP/2 prefaces and
HTTP/2 frames, and reports whether the server ever died or stopped answering a well-behaved client. Well-formed
HTTP/2 frames and header blocks come from the `h2` library (its `hpack` encoder and its `hyperframe` frames);
only the deliberately malformed frames are packed by hand (struct).

    python3 protocol_fuzz_peer.py --port PORT [--host 127.0.0.1] [--tls --ca CA.pem] [--pid PID]
        [--seed N] [--rounds N] [--probe-path /healthz] [--probe-timeout 2.0] [--families a,b,c]
        [--case TEXT[,TEXT]] [--skip TEXT[,TEXT]] [--list] [--linger 0.05] [--verbose]

--port, --host   the server under attack (loopback: this is a test peer, not a scanner).
--tls --ca       speak TLS (certificate checked against CA.pem; without --ca it is not checked). Attack
                 connections offer the ALPN the family needs: `http1` and `h2c` offer http/1.1 (and without ALPN
                 when a server refuses it), `preface` and `frames` offer h2.
--pid PID        the server's process: after every case (and during floods) it must exist and not be a zombie
                 (os.kill(PID, 0), /proc/PID/stat state). Without --pid, a probe refused twice (ECONNREFUSED)
                 counts as a death.
--seed N         (default 1) seeds the random cases; round i is made by random.Random("SEED:i") alone, so
                 `--seed S --rounds N --case <family>/random-i` replays one of them.
--rounds N       (default 0) random mutated cases after the deterministic ones, their families chosen with
                 random.Random(SEED). `make fuzz` runs 5000.
--probe-path     (default /healthz) what the probe asks for; the sandboxes answer /sandbox/stats.
--probe-timeout  (default 2.0 s) a probe must have a complete response within this.
--families       comma-separated subset of http1,h2c,preface,frames (default all, in that order):
    http1    malformed HTTP/1.1 heads and bodies: control bytes in names, values and targets, obs-fold, huge and
             many headers (past 8 KiB and 32 KiB), absurd methods and versions, long, absolute-form and `*`
             targets, chunked with Content-Length, bad chunk sizes, conflicting Content-Length, short and long
             bodies, pipelining, connections closed or reset half-way, slow heads abandoned, bad WebSocket
             upgrades, `Upgrade: foo`, truncations and duplications of valid requests.
    h2c      `Upgrade: h2c` requests (GET, POST with a body, with and without HTTP2-Settings, invalid base64, the
             `Connection: Upgrade, HTTP2-Settings` curl sends) each followed by nothing, the client preface and
             SETTINGS, the preface and a request, the preface and garbage frames, or garbage bytes; then the same
             in one write. `curl --http2 http://HOST:PORT/healthz` once crashed `ringer serve` (SIGSEGV) the way
             h2c/get-curl+preface-settings and h2c/minimal-settings-after-upgrade do: any non-empty HTTP2-Settings,
             then the preface and a SETTINGS frame after the 101.
    preface  HTTP/2 prior knowledge (`PRI * HTTP/2.0...`), truncated and corrupted prefaces (on TLS: after
             ALPN h2).
    frames   after a valid preface (TLS with ALPN h2, otherwise prior knowledge on cleartext, which a server may
             refuse): rapid reset (CVE-2023-44487), CONTINUATION floods (CVE-2024-27316 class), header lists of
             hundreds of KiB, HPACK bombs and malformed HPACK, SETTINGS, PING, PRIORITY, empty-DATA and
             WINDOW_UPDATE floods, WINDOW_UPDATE overflow and zero, wrong lengths, unknown types, DATA on
             stream 0 and idle streams, even and decreasing stream ids, PRIORITY self-dependency, random bytes.
             frames/data-over-window-256k used to abort libwebsockets 4.1.6's HTTP/2 (an assertion in
             lws_buflist_use_segment, one run in 1 to 25) on the FCM sandbox's HTTP/1.1 port, which then offered h2
             by ALPN; the LibWebSockets server now offers http/1.1 only.
--case TEXT      run only the cases whose name contains one of these texts (family/name).
--skip TEXT      leave out the cases whose name contains one of these texts (a known killer, to look for others).
--list           print every deterministic case name and exit.
--linger S       (default 0.05) how long an attack connection keeps reading after the server went quiet.
--verbose        one line per case on stderr (bytes sent and received, whether the server closed).

Each attack connection has a short socket timeout of its own (a server stalling or closing it is fine); only the
probe matters: after every case, and every half second during a flood, a fresh connection asks for --probe-path
(HTTP/1.1 GET; over TLS with ALPN http/1.1, or h2 through the h2 library when the server only speaks h2) and must
have a complete response within --probe-timeout. Any status counts as an answer; statuses are counted.

Prints one JSON object on stdout at the end:
    {"cases": n, "families": {name: cases}, "died_after": case or null, "probe_failures": [{"after": case,
     "error": text, "ms": n}], "max_probe_ms": n, "seconds": total, "probes": n, "probe_statuses": {status: n},
     "slowest_probe_after": case, "rss_kib": {"start", "end", "max"} (with --pid, else nulls),
     "rss_growth": [{"case": case, "kib": n}] (the 5 cases after which the server's resident memory grew most, 1 MiB
     or more), "unreachable": attack connections that could not be opened (TLS refused, ...), "peer_errors": this
     peer's own bugs (a traceback on stderr; the case is skipped)}
On a death it stops at once and prints what the case sent (hex, truncated) on stderr; a failed probe's case is
printed the same way (the first few). Exit 0 when the server never died and every probe was answered, 1
otherwise, 2 when the server did not answer the first probe (nothing was attacked).
"""

import argparse
import base64
import json
import os
import random
import socket
import ssl
import struct
import sys
import time
import traceback

import h2.config
import h2.connection
import h2.events
import h2.settings
import hpack
from hyperframe import frame as hf

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
FAMILIES = ["http1", "h2c", "preface", "frames"]
MAX_WRITES_KEPT = 40          # per case, for the death report
BYTES_KEPT_PER_WRITE = 4096


class Died(Exception):
    pass


class AlpnRefused(Exception):
    pass


def now():
    return time.monotonic()


# --------------------------------------------------------------------------------------------------------------
# HTTP/2 encoding: well-formed frames from h2/hyperframe/hpack, malformed ones by hand.

def raw_frame(ftype, flags, stream_id, payload=b"", length=None):
    """A frame packed by hand: for lengths, flags, stream ids and payloads no conforming encoder would produce."""
    if length is None:
        length = len(payload)
    return (struct.pack(">I", length & 0xFFFFFF)[1:] + bytes([ftype & 0xFF, flags & 0xFF])
            + struct.pack(">I", stream_id & 0xFFFFFFFF) + payload)


def h2_client():
    """An h2 client connection used only as an encoder (it is never fed what the server sends), with outbound
    header validation off so it encodes whatever header list a case asks for."""
    config = h2.config.H2Configuration(client_side=True, header_encoding=None, validate_outbound_headers=False,
                                       normalize_outbound_headers=False, split_outbound_cookies=False,
                                       validate_inbound_headers=False)
    return h2.connection.H2Connection(config=config)


def h2_start(settings=None):
    """(connection, bytes): the client preface and SETTINGS frame from h2."""
    conn = h2_client()
    conn.initiate_connection()
    if settings:
        conn.update_settings(settings)
    return conn, conn.data_to_send()


def hpack_block(headers, huffman=False):
    return hpack.Encoder().encode(headers, huffman=huffman)


def hpack_int(value, prefix_bits, first_byte_flags):
    """An HPACK integer (RFC 7541 §5.1) by hand, for values no encoder emits."""
    limit = (1 << prefix_bits) - 1
    if value < limit:
        return bytes([first_byte_flags | value])
    out = [first_byte_flags | limit]
    value -= limit
    while value >= 128:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def ser(frame):
    return frame.serialize()


FRAME_NAMES = {0: "DATA", 1: "HEADERS", 2: "PRIORITY", 3: "RST_STREAM", 4: "SETTINGS", 5: "PUSH_PROMISE", 6: "PING",
               7: "GOAWAY", 8: "WINDOW_UPDATE", 9: "CONTINUATION"}


def describe_reply(head):
    """What the server sent first, for --verbose: an HTTP/1 status line, or the HTTP/2 frames' types (a GOAWAY with
    its error code)."""
    if not head:
        return "nothing"
    if head[:5] == b"HTTP/":
        return repr(head.split(b"\r\n")[0][:60])
    names, pos = [], 0
    while pos + 9 <= len(head) and len(names) < 12:
        length = int.from_bytes(head[pos:pos + 3], "big")
        ftype = head[pos + 3]
        name = FRAME_NAMES.get(ftype, f"type{ftype}")
        if ftype == 7 and pos + 17 <= len(head):
            name += f"({int.from_bytes(head[pos + 13:pos + 17], 'big')})"
        elif ftype == 3 and pos + 13 <= len(head):
            name += f"({int.from_bytes(head[pos + 9:pos + 13], 'big')})"
        names.append(name)
        pos += 9 + length
    return " ".join(names) if names else repr(head[:40])


def header_frames(stream_id, block, end_stream=True, max_size=16384):
    """A header block as one HEADERS frame and as many CONTINUATION frames as it needs (hyperframe)."""
    first, rest = block[:max_size], block[max_size:]
    flags = ["END_STREAM"] if end_stream else []
    if not rest:
        flags.append("END_HEADERS")
    out = [ser(hf.HeadersFrame(stream_id, data=first, flags=flags))]
    while rest:
        chunk, rest = rest[:max_size], rest[max_size:]
        out.append(ser(hf.ContinuationFrame(stream_id, data=chunk, flags=[] if rest else ["END_HEADERS"])))
    return b"".join(out)


# --------------------------------------------------------------------------------------------------------------
# One attack connection.

class Link:
    def __init__(self, fz, sock):
        self.fz = fz
        self.sock = sock
        self.closed = False        # the server closed it (or it broke)
        self.stalled = False       # a write timed out
        self.received = 0
        self.head = b""
        self.sock.settimeout(fz.attack_timeout)
        fz.links.add(self)

    def send(self, data):
        if self.closed or self.stalled:
            return False
        self.fz.record(data)
        try:
            self.sock.sendall(data)
            return True
        except socket.timeout:
            self.stalled = True
        except (OSError, ValueError):
            self.closed = True
        return False

    def _got(self, data):
        self.received += len(data)
        if len(self.head) < 2048:
            self.head += data[:2048 - len(self.head)]

    def pump(self):
        """Reads whatever is there without waiting, and throws it away."""
        if self.closed:
            return
        try:
            self.sock.settimeout(0.0)
            for _ in range(64):
                data = self.sock.recv(262144)
                if not data:
                    self.closed = True
                    break
                self._got(data)
        except (BlockingIOError, ssl.SSLWantReadError, ssl.SSLWantWriteError, InterruptedError):
            pass
        except (OSError, ValueError):
            self.closed = True
        finally:
            try:
                self.sock.settimeout(self.fz.attack_timeout)
            except OSError:
                pass

    def drain(self, quiet=None, limit=None):
        """Reads until the server closes, goes quiet for `quiet` seconds, or `limit` seconds pass."""
        quiet = self.fz.linger if quiet is None else quiet
        limit = max(quiet * 5, 0.25) if limit is None else limit
        end = now() + limit
        last = now()
        try:
            while not self.closed:
                wait = min(end, last + quiet) - now()
                if wait <= 0:
                    break
                self.sock.settimeout(wait)
                try:
                    data = self.sock.recv(262144)
                except (socket.timeout, ssl.SSLWantReadError):
                    break
                except (OSError, ValueError):
                    self.closed = True
                    break
                if not data:
                    self.closed = True
                    break
                self._got(data)
                last = now()
        finally:
            try:
                self.sock.settimeout(self.fz.attack_timeout)
            except OSError:
                pass

    def half_close(self):
        try:
            self.sock.shutdown(socket.SHUT_WR)
        except (OSError, ValueError):
            pass

    def close(self, reset=False):
        try:
            if reset:
                self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except (OSError, ValueError):
            pass
        try:
            self.sock.close()
        except OSError:
            pass
        self.fz.links.discard(self)
        self.fz.note_link(self)


# --------------------------------------------------------------------------------------------------------------
# The fuzzer: connections, probes, the death check, the run.

class Fuzzer:
    def __init__(self, args):
        self.args = args
        self.host = args.host
        self.port = args.port
        self.tls = args.tls
        self.authority = (f"[{args.host}]" if ":" in args.host else args.host) + f":{args.port}"
        self.attack_timeout = 1.0
        self.linger = args.linger
        self.ssl_contexts = {}
        self.alpn_choice = {}
        self.probe_mode = None
        self.case = None
        self.writes = []
        self.bytes_sent = 0
        self.cases = 0
        self.per_family = {}
        self.failures = []
        self.failure_dumps = 0
        self.died_after = None
        self.probes = 0
        self.max_probe_ms = 0
        self.slowest_probe_after = None
        self.rss_start = self.rss_end = self.rss_max = None
        self.rss_growth = []
        self.statuses = {}
        self.unreachable = 0
        self.peer_errors = 0
        self.links = set()   # attack connections not closed yet: closed after each case whatever happened
        self.started = now()
        self.last_link = None

    # ---- what a case sent

    def record(self, data):
        self.bytes_sent += len(data)
        if len(self.writes) < MAX_WRITES_KEPT:
            self.writes.append((len(data), bytes(data[:BYTES_KEPT_PER_WRITE])))

    def note_link(self, link):
        self.last_link = link

    def dump_case(self, why):
        out = sys.stderr
        print(f"--- {why}: case {self.case}: {len(self.writes)} writes kept, {self.bytes_sent} bytes sent", file=out)
        for i, (size, data) in enumerate(self.writes[:16]):
            shown = data[:256]
            print(f"  write {i}: {size} bytes: {shown.hex()}{'...' if size > len(shown) else ''}", file=out)
            print(f"           {shown!r}{'...' if size > len(shown) else ''}", file=out)
        if len(self.writes) > 16:
            print(f"  ... {len(self.writes) - 16} more writes kept (of more, maybe)", file=out)
        out.flush()

    # ---- connections

    def ssl_context(self, alpn):
        key = tuple(alpn) if alpn else ()
        if key not in self.ssl_contexts:
            if self.args.ca:
                ctx = ssl.create_default_context(cafile=self.args.ca)
            else:
                ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
                ctx.check_hostname = False
                ctx.verify_mode = ssl.CERT_NONE
            if alpn:
                ctx.set_alpn_protocols(list(alpn))
            self.ssl_contexts[key] = ctx
        return self.ssl_contexts[key]

    def tcp(self, timeout):
        return socket.create_connection((self.host, self.port), timeout=timeout)

    def alpn_candidates(self, kind):
        if kind == "h2":
            return [("h2",)]
        if kind == "h2any":
            return [("h2",), ("h2", "http/1.1")]
        return [("http/1.1",), ()]

    def connect(self, kind="http1"):
        """A new attack connection, or None when it cannot be opened (counted as unreachable)."""
        candidates = self.alpn_candidates(kind) if self.tls else [None]
        if self.tls and kind in self.alpn_choice:
            chosen = self.alpn_choice[kind]
            candidates = [chosen] + [c for c in candidates if c != chosen]
        for alpn in candidates:
            try:
                sock = self.tcp(self.attack_timeout)
            except OSError:
                self.unreachable += 1
                return None
            if alpn is None:
                return Link(self, sock)
            try:
                sock.settimeout(self.attack_timeout)
                tls = self.ssl_context(alpn).wrap_socket(sock, server_hostname=self.host)
            except (ssl.SSLError, OSError):
                try:
                    sock.close()
                except OSError:
                    pass
                continue
            self.alpn_choice[kind] = alpn
            return Link(self, tls)
        self.unreachable += 1
        return None

    # ---- the death check

    def alive(self):
        pid = self.args.pid
        if pid is None:
            return True
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            pass
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                stat = f.read()
            state = stat.rsplit(b")", 1)[1].split()[0]
            if state in (b"Z", b"X", b"x"):
                return False
        except FileNotFoundError:
            return False
        except (OSError, IndexError):
            pass
        return True

    def rss_kib(self):
        if self.args.pid is None:
            return None
        try:
            with open(f"/proc/{self.args.pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1])
        except (OSError, ValueError):
            pass
        return None

    def check_alive(self):
        if not self.alive():
            self.died_after = self.case
            raise Died(f"process {self.args.pid} is gone")

    # ---- the probe

    def probe_request(self):
        return (f"GET {self.args.probe_path} HTTP/1.1\r\nHost: {self.authority}\r\n"
                f"User-Agent: ringer-protocol-fuzz-probe\r\nAccept: */*\r\nConnection: close\r\n\r\n").encode()

    def probe_connect(self, deadline, alpn):
        sock = self.tcp(max(0.001, deadline - now()))
        if not self.tls:
            return sock
        sock.settimeout(max(0.001, deadline - now()))
        try:
            tls = self.ssl_context(alpn).wrap_socket(sock, server_hostname=self.host)
        except ssl.SSLError as e:
            sock.close()
            text = str(e)
            if "NO_APPLICATION_PROTOCOL" in text.upper() or "no application protocol" in text:
                raise AlpnRefused(text)
            raise
        except BaseException:
            sock.close()
            raise
        chosen = tls.selected_alpn_protocol()
        if alpn == ("h2",) and chosen != "h2":
            tls.close()
            raise AlpnRefused(f"ALPN h2 not selected ({chosen})")
        if alpn == ("http/1.1",) and chosen not in (None, "http/1.1"):
            tls.close()
            raise AlpnRefused(f"ALPN {chosen} selected")
        return tls

    @staticmethod
    def _recv(sock, deadline):
        left = deadline - now()
        if left <= 0:
            raise socket.timeout("probe timed out")
        sock.settimeout(left)
        return sock.recv(65536)

    def probe_http1(self, deadline):
        sock = self.probe_connect(deadline, ("http/1.1",))
        try:
            sock.settimeout(max(0.001, deadline - now()))
            sock.sendall(self.probe_request())
            buf = b""
            while True:
                while b"\r\n\r\n" not in buf:
                    data = self._recv(sock, deadline)
                    if not data:
                        raise EOFError(f"closed before a complete head ({len(buf)} bytes)")
                    buf += data
                head, buf = buf.split(b"\r\n\r\n", 1)
                lines = head.split(b"\r\n")
                parts = lines[0].split(b" ", 2)
                if len(parts) < 2 or not parts[0].startswith(b"HTTP/") or not parts[1].isdigit():
                    raise ValueError(f"not an HTTP/1.1 status line: {lines[0][:80]!r}")
                status = int(parts[1])
                if 100 <= status < 200 and status != 101:
                    continue
                break
            fields = {}
            for line in lines[1:]:
                name, _, value = line.partition(b":")
                fields[name.strip().lower()] = value.strip()
            if status in (101, 204, 304):
                return status
            if b"chunked" in fields.get(b"transfer-encoding", b"").lower():
                while True:
                    while b"\r\n" not in buf:
                        data = self._recv(sock, deadline)
                        if not data:
                            raise EOFError("closed inside a chunked body")
                        buf += data
                    size_line, rest = buf.split(b"\r\n", 1)
                    size = int(size_line.split(b";")[0].strip() or b"0", 16)
                    if size == 0:
                        while b"\r\n\r\n" not in b"\r\n" + rest:
                            data = self._recv(sock, deadline)
                            if not data:
                                return status  # the server closed after the last chunk: complete enough
                            rest += data
                        return status
                    while len(rest) < size + 2:
                        data = self._recv(sock, deadline)
                        if not data:
                            raise EOFError("closed inside a chunk")
                        rest += data
                    buf = rest[size + 2:]
            if b"content-length" in fields:
                length = int(fields[b"content-length"])
                while len(buf) < length:
                    data = self._recv(sock, deadline)
                    if not data:
                        raise EOFError(f"closed after {len(buf)} of {length} body bytes")
                    buf += data
                return status
            while True:  # no length: the body ends when the server closes
                data = self._recv(sock, deadline)
                if not data:
                    return status
        finally:
            sock.close()

    def probe_h2(self, deadline):
        sock = self.probe_connect(deadline, ("h2",))
        try:
            conn = h2_client()
            conn.initiate_connection()
            conn.send_headers(1, self.request_headers(), end_stream=True)
            sock.settimeout(max(0.001, deadline - now()))
            sock.sendall(conn.data_to_send())
            status = None
            while True:
                data = self._recv(sock, deadline)
                if not data:
                    raise EOFError("closed before the response ended")
                for event in conn.receive_data(data):
                    if isinstance(event, h2.events.ResponseReceived) and event.stream_id == 1:
                        status = int(dict(event.headers)[b":status"])
                    elif isinstance(event, h2.events.DataReceived):
                        conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                    elif isinstance(event, h2.events.StreamEnded) and event.stream_id == 1:
                        if status is None:
                            raise ValueError("stream ended without a status")
                        return status
                    elif isinstance(event, h2.events.StreamReset) and event.stream_id == 1:
                        raise ValueError(f"stream reset ({event.error_code})")
                    elif isinstance(event, h2.events.ConnectionTerminated):
                        raise ValueError(f"GOAWAY ({event.error_code})")
                pending = conn.data_to_send()
                if pending:
                    sock.sendall(pending)
        finally:
            sock.close()

    def probe_once(self):
        """(ok, status or error text, milliseconds, refused)."""
        start = now()
        deadline = start + self.args.probe_timeout
        if not self.tls:
            modes = ["http1"]
        elif self.probe_mode:
            modes = [self.probe_mode] + [m for m in ("http1", "h2") if m != self.probe_mode]
        else:
            modes = ["http1", "h2"]
        errors = []
        refused = False
        for mode in modes:
            try:
                status = self.probe_http1(deadline) if mode == "http1" else self.probe_h2(deadline)
                self.probe_mode = mode
                return True, status, (now() - start) * 1000, False
            except AlpnRefused as e:
                errors.append(f"{mode}: ALPN refused ({e})")
                continue
            except ConnectionRefusedError as e:
                errors.append(f"{mode}: connection refused ({e})")
                refused = True
                break
            except socket.timeout:
                errors.append(f"{mode}: no complete response within {self.args.probe_timeout} s")
                break
            except Exception as e:  # any other failure is the probe's answer
                errors.append(f"{mode}: {type(e).__name__}: {e}")
                break
        return False, "; ".join(errors), (now() - start) * 1000, refused

    def probe(self, after):
        self.check_alive()
        ok, result, ms, refused = self.probe_once()
        self.probes += 1
        if ms > self.max_probe_ms:
            self.max_probe_ms = ms
            self.slowest_probe_after = after
        if ok:
            self.statuses[str(result)] = self.statuses.get(str(result), 0) + 1
            self.check_alive()
            return True
        self.check_alive()
        if refused and self.args.pid is None:
            time.sleep(0.3)
            ok2, _, _, refused2 = self.probe_once()
            if not ok2 and refused2:
                self.died_after = self.case
                raise Died("the port refuses connections")
        self.failures.append({"after": after, "error": result, "ms": round(ms)})
        print(f"probe failed after {after}: {result} ({round(ms)} ms)", file=sys.stderr)
        if self.failure_dumps < 5:
            self.failure_dumps += 1
            self.dump_case("probe failed")
        return False

    def probe_during(self, label):
        self.probe(f"{self.case} (during: {label})")

    # ---- request helpers for cases

    def request_headers(self, path=None, method=b"GET", extra=()):
        path = path if path is not None else self.args.probe_path
        if isinstance(path, str):
            path = path.encode()
        if isinstance(method, str):
            method = method.encode()
        return [(b":method", method), (b":scheme", b"https" if self.tls else b"http"),
                (b":authority", self.authority.encode()), (b":path", path)] + list(extra)

    def flood(self, link, pieces, label="flood", batch=32768, probe_every=0.5):
        """Sends an iterable of byte strings in batches, reading (and discarding) what comes back between
        batches and probing every probe_every seconds. Returns the number of pieces that went out."""
        buf = []
        size = 0
        sent = 0
        count = 0
        last_probe = now()
        for piece in pieces:
            buf.append(piece)
            size += len(piece)
            count += 1
            if size >= batch:
                if not link.send(b"".join(buf)):
                    return sent
                sent = count
                buf, size = [], 0
                link.pump()
                if now() - last_probe >= probe_every:
                    self.probe_during(f"{label}, {sent} sent")
                    last_probe = now()
        if buf and link.send(b"".join(buf)):
            sent = count
        link.pump()
        return sent

    # ---- the run

    def run_case(self, family, name, fn):
        self.case = f"{family}/{name}"
        self.writes = []
        self.bytes_sent = 0
        self.last_link = None
        before = self.rss_kib()
        started = now()
        try:
            fn(self)
        except Died:
            raise
        except (OSError, ValueError, ssl.SSLError) as e:  # the attack's own connection failing is expected
            if self.args.verbose:
                print(f"  ({self.case}: {type(e).__name__}: {e})", file=sys.stderr)
        except Exception:  # a bug of this peer's: say so, and go on with the next case
            self.peer_errors += 1
            print(f"peer error in {self.case}:\n{traceback.format_exc()}", file=sys.stderr)
        finally:
            for link in list(self.links):
                link.close(reset=True)
        self.cases += 1
        self.per_family[family] = self.per_family.get(family, 0) + 1
        if self.args.verbose:
            link = self.last_link
            got = (f"{link.received} bytes back{' closed' if link.closed else ''}: {describe_reply(link.head)}"
                   if link else "no connection")
            print(f"{self.case}: sent {self.bytes_sent}, {got} ({(now() - started) * 1000:.0f} ms)", file=sys.stderr)
        self.probe(self.case)
        after = self.rss_kib()
        if after is not None:
            self.rss_max = max(self.rss_max or 0, after)
            self.rss_end = after
            if before is not None and after - before >= 1024:
                self.rss_growth.append({"case": self.case, "kib": after - before})
                self.rss_growth = sorted(self.rss_growth, key=lambda g: -g["kib"])[:5]

    def result(self):
        return {"cases": self.cases, "families": self.per_family, "died_after": self.died_after,
                "probe_failures": self.failures, "max_probe_ms": round(self.max_probe_ms),
                "seconds": round(now() - self.started, 2), "probes": self.probes,
                "slowest_probe_after": self.slowest_probe_after,
                "rss_kib": {"start": self.rss_start, "end": self.rss_end, "max": self.rss_max},
                "rss_growth": self.rss_growth,
                "probe_statuses": self.statuses, "unreachable": self.unreachable,
                "peer_errors": self.peer_errors}


# --------------------------------------------------------------------------------------------------------------
# Case helpers.

def shot(kind, *parts, pause=0.0, close="normal", quiet=None, limit=None):
    """A case: one connection, the parts written one by one (pause seconds apart), then:
    close="normal" read until quiet and close; "reset" read then RST; "now" close at once; "reset-now" RST at
    once; "half" shut down the write side, then read."""
    def run(fz):
        link = fz.connect(kind)
        if link is None:
            return
        for i, part in enumerate(parts):
            if i and pause:
                time.sleep(pause)
            if not link.send(part):
                break
            link.pump()
        if close == "half":
            link.half_close()
        if close in ("normal", "reset", "half"):
            link.drain(quiet=quiet, limit=limit)
        link.close(reset=close.startswith("reset"))
    return run


def http_request(method=b"GET", target=b"/", version=b"HTTP/1.1", headers=(), body=b"", host=None):
    lines = [method + b" " + target + (b" " + version if version else b"")]
    if host is not None:
        lines.append(b"Host: " + host)
    for h in headers:
        lines.append(h)
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


# --------------------------------------------------------------------------------------------------------------
# Family http1.

CTL = [("nul", b"\x00"), ("cr", b"\r"), ("lf", b"\n"), ("soh", b"\x01"), ("esc", b"\x1b"), ("us", b"\x1f"),
       ("del", b"\x7f"), ("ff", b"\xff"), ("vt", b"\x0b")]


def http1_corpus(fz):
    p = fz.args.probe_path.encode()
    host = fz.authority.encode()
    post_body = b'{"callee":"bob","kind":"audio"}'
    return [
        http_request(target=p, host=host, headers=[b"User-Agent: fuzz", b"Accept: */*"]),
        http_request(b"POST", b"/v1/calls", host=host,
                     headers=[b"Content-Type: application/json", b"Content-Length: %d" % len(post_body)],
                     body=post_body),
        http_request(b"POST", p, host=host, headers=[b"Transfer-Encoding: chunked"],
                     body=b"5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"),
        http_request(target=b"/v1/events", host=host,
                     headers=[b"Upgrade: websocket", b"Connection: Upgrade", b"Sec-WebSocket-Version: 13",
                              b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=="]),
        http_request(target=p, host=host, headers=[b"Connection: Upgrade, HTTP2-Settings", b"Upgrade: h2c",
                                                   b"HTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA"]),
        http_request(b"PUT", b"/v1/devices/d1", host=host,
                     headers=[b"Authorization: Bearer abc.def.ghi", b"Content-Type: application/json",
                              b"Content-Length: 2", b"Idempotency-Key: k"], body=b"{}"),
    ]


def http1_cases(fz):
    p = fz.args.probe_path.encode()
    host = fz.authority.encode()
    get = http_request(target=p, host=host, headers=[b"User-Agent: fuzz", b"Accept: */*"])
    cases = []

    def add(name, *parts, **kw):
        cases.append((name, shot("http1", *parts, **kw)))

    def req(method=b"GET", target=p, version=b"HTTP/1.1", headers=(), body=b"", with_host=True):
        return http_request(method, target, version, headers, body, host if with_host else None)

    add("baseline-get", get)
    add("baseline-post", http1_corpus(fz)[1])
    # control bytes in header names, values and the target
    for label, c in CTL:
        add(f"ctl-{label}-in-name", req(headers=[b"X-F" + c + b"oo: a"]))
        add(f"ctl-{label}-in-value", req(headers=[b"X-Foo: a" + c + b"b"]))
        add(f"ctl-{label}-in-target", req(target=p + c + b"x"))
    add("lf-injects-header", req(headers=[b"X-Foo: a\nContent-Length: 5"], body=b"abcde"))
    add("cr-injects-header", req(headers=[b"X-Foo: a\rTransfer-Encoding: chunked"]))
    add("ctl-in-method", req(method=b"G\x00T"))
    add("ctl-in-version", req(version=b"HTTP/1.\x001"))
    for label, t in [("space", p + b" x"), ("tab", p + b"\tx"), ("pct00", p + b"%00"), ("pct0d0a", p + b"%0d%0aX: y"),
                     ("pct-bad", b"/%zz%"), ("dotdot", b"/../../../etc/passwd"), ("dotdot-enc", b"/..%2f..%2f"),
                     ("backslash", b"\\healthz"), ("empty", b""), ("fragment", p + b"#frag"),
                     ("utf8", "/\u00e9\u2603".encode()),
                     ("query-1000", p + b"?" + b"&".join(b"a%d=%d" % (i, i) for i in range(1000))),
                     ("pct-nul-query", p + b"?a=%00"), ("double-slash", b"//" + p.lstrip(b"/"))]:
        add(f"target-{label}", req(target=t))
    # obs-fold and line endings
    add("obs-fold", req(headers=[b"X-Foo: a", b"  folded"]))
    add("obs-fold-first-line", req(headers=[b" X-Foo: a"], with_host=False) )
    add("obs-fold-host", req(headers=[b"\tevil"]))
    add("bare-lf", get.replace(b"\r\n", b"\n"))
    add("bare-cr", get.replace(b"\r\n", b"\r"))
    add("mixed-line-endings", get.replace(b"\r\n", b"\n", 2))
    # huge and many headers
    add("header-9k", req(headers=[b"X-Big: " + b"a" * 9 * 1024]))
    add("header-33k", req(headers=[b"X-Big: " + b"a" * 33 * 1024]))
    add("header-300k", req(headers=[b"X-Big: " + b"a" * 300 * 1024]))
    add("header-name-9k", req(headers=[b"X" * 9 * 1024 + b": a"]))
    add("headers-200-past-8k", req(headers=[b"X-H%d: %s" % (i, b"v" * 40) for i in range(200)]))
    add("headers-1000-past-32k", req(headers=[b"X-H%d: %s" % (i, b"v" * 40) for i in range(1000)]))
    add("headers-10000-tiny", req(headers=[b"a:b"] * 10000))
    add("header-no-colon", req(headers=[b"NoColonHere"]))
    add("header-empty-name", req(headers=[b": value"]))
    add("header-space-before-colon", req(headers=[b"Host : evil"], with_host=False))
    add("host-missing", req(with_host=False))
    add("host-twice", req(headers=[b"Host: other"]))
    add("host-empty", req(headers=[b"Host:"], with_host=False))
    add("host-bad", req(headers=[b"Host: a b@c:99999"], with_host=False))
    # methods and versions
    for label, m in [("unknown", b"FOO"), ("lowercase", b"get"), ("long-10k", b"A" * 10000), ("pri", b"PRI"),
                     ("connect", b"CONNECT"), ("trace", b"TRACE"), ("empty", b""), ("8bit", b"G\xc3\x89T"),
                     ("brew", b"BREW"), ("delete", b"DELETE"), ("patch", b"PATCH"), ("head", b"HEAD")]:
        add(f"method-{label}", req(method=m))
    add("connect-authority", req(method=b"CONNECT", target=b"127.0.0.1:22"))
    for label, v in [("1.0", b"HTTP/1.0"), ("0.9", None), ("2.0", b"HTTP/2.0"), ("9.9", b"HTTP/9.9"),
                     ("garbage", b"HTTP/1.1x"), ("1.10", b"HTTP/1.10"), ("lower", b"http/1.1"),
                     ("long", b"HTTP/" + b"1" * 5000)]:
        add(f"version-{label}", req(version=v) if v else b"GET " + p + b"\r\n")
    add("request-line-extra-spaces", b"GET  " + p + b"  HTTP/1.1\r\nHost: " + host + b"\r\n\r\n")
    # long and odd targets
    add("target-8k", req(target=p + b"?" + b"a" * 8 * 1024))
    add("target-64k", req(target=p + b"?" + b"a" * 64 * 1024))
    add("target-256k", req(target=b"/" + b"a" * 256 * 1024))
    add("absolute-form", req(target=b"http://" + host + p))
    add("absolute-form-https", req(target=b"https://example.invalid:99999" + p))
    add("absolute-form-broken", req(target=b"http://[::1" + p))
    add("star-get", req(target=b"*"))
    add("star-options", req(method=b"OPTIONS", target=b"*"))
    # Transfer-Encoding and Content-Length
    chunked = b"5\r\nhello\r\n0\r\n\r\n"
    add("te-chunked-and-cl", req(b"POST", headers=[b"Transfer-Encoding: chunked", b"Content-Length: 3"], body=chunked))
    add("cl-then-te-smuggle", req(b"POST", headers=[b"Content-Length: 6", b"Transfer-Encoding: chunked"],
                                  body=b"0\r\n\r\nG" + get))
    for label, size in [("zz", b"zz"), ("negative", b"-1"), ("huge", b"ffffffffffffffffffffffff"),
                        ("hex-prefix", b"0x5"), ("space", b" 5"), ("ext", b"5;ext=" + b"e" * 5000), ("empty", b""),
                        ("long-zeros", b"0" * 5000 + b"5")]:
        add(f"chunk-size-{label}", req(b"POST", headers=[b"Transfer-Encoding: chunked"],
                                       body=size + b"\r\nhello\r\n0\r\n\r\n"))
    add("chunk-data-longer", req(b"POST", headers=[b"Transfer-Encoding: chunked"], body=b"2\r\nhello\r\n0\r\n\r\n"))
    add("chunk-missing-crlf", req(b"POST", headers=[b"Transfer-Encoding: chunked"], body=b"5\r\nhello0\r\n\r\n"))
    add("chunk-no-end-then-close", req(b"POST", headers=[b"Transfer-Encoding: chunked"], body=b"5\r\nhello\r\n"),
        close="now")
    add("chunk-trailer-40k", req(b"POST", headers=[b"Transfer-Encoding: chunked"],
                                  body=b"0\r\nX-T: " + b"t" * 40 * 1024 + b"\r\n\r\n"))
    add("chunks-20000-tiny", req(b"POST", headers=[b"Transfer-Encoding: chunked"],
                                  body=b"1\r\na\r\n" * 20000 + b"0\r\n\r\n"))
    for label, te in [("double", b"chunked, chunked"), ("gzip", b"gzip"), ("identity", b"identity"),
                      ("unknown", b"foo"), ("gzip-chunked", b"gzip, chunked"), ("caps", b"CHUNKED"),
                      ("padded", b" chunked \t"), ("comma", b",chunked")]:
        add(f"te-{label}", req(b"POST", headers=[b"Transfer-Encoding: " + te], body=chunked))
    add("te-twice", req(b"POST", headers=[b"Transfer-Encoding: chunked", b"Transfer-Encoding: identity"], body=chunked))
    add("te-obs-fold", req(b"POST", headers=[b"Transfer-Encoding:", b" chunked"], body=chunked))
    add("te-space-colon", req(b"POST", headers=[b"Transfer-Encoding : chunked"], body=chunked))
    add("te-http10", req(b"POST", version=b"HTTP/1.0", headers=[b"Transfer-Encoding: chunked"], body=chunked))
    for label, cls in [("different", [b"Content-Length: 2", b"Content-Length: 5"]),
                       ("same", [b"Content-Length: 5", b"Content-Length: 5"]), ("list", [b"Content-Length: 5, 5"]),
                       ("negative", [b"Content-Length: -5"]), ("plus", [b"Content-Length: +5"]),
                       ("huge", [b"Content-Length: 99999999999999999999999"]),
                       ("int64-max", [b"Content-Length: 9223372036854775807"]),
                       ("uint64-wrap", [b"Content-Length: 18446744073709551621"]), ("hex", [b"Content-Length: 0x5"]),
                       ("inner-space", [b"Content-Length: 5 5"]), ("empty", [b"Content-Length:"]),
                       ("letters", [b"Content-Length: five"]), ("zeros", [b"Content-Length: 00000000000000000005"]),
                       ("tab", [b"Content-Length:\t5\t"])]:
        add(f"cl-{label}", req(b"POST", headers=cls, body=b"hello"))
    add("cl-over-64k", req(b"POST", headers=[b"Content-Length: 70000"], body=b"x" * 70000))
    add("cl-on-get", req(headers=[b"Content-Length: 5"], body=b"hello"))
    add("body-short-then-close", req(b"POST", headers=[b"Content-Length: 100"], body=b"only10byte"), close="now")
    add("body-short-then-wait", req(b"POST", headers=[b"Content-Length: 100"], body=b"only10byte"))
    add("body-short-then-reset", req(b"POST", headers=[b"Content-Length: 100"], body=b"only10byte"), close="reset-now")
    add("body-long-garbage", req(b"POST", headers=[b"Content-Length: 2"], body=b"{}\x00\xff\x01garbage" * 10))
    add("body-long-request", req(b"POST", headers=[b"Content-Length: 2"], body=b"{}" + get))
    # pipelining
    post = req(b"POST", headers=[b"Content-Length: 5"], body=b"hello")
    add("pipeline-get-then-post", get + post)
    add("pipeline-post-then-get", post + get)
    add("pipeline-100-gets", get * 100)
    add("pipeline-1000-gets", get * 1000)
    add("pipeline-get-then-garbage", get + b"\x00\xff" * 100)
    add("pipeline-post-chunked-then-get", req(b"POST", headers=[b"Transfer-Encoding: chunked"], body=chunked) + get)
    add("pipeline-get-then-half", get + get[:10], close="now")
    # closed half-way, slow heads
    add("head-half-then-close", get[:len(get) // 2], close="now")
    add("head-half-then-reset", get[:len(get) // 2], close="reset-now")
    add("request-then-half-close", get, close="half")
    add("request-then-reset", get, close="reset-now")
    add("connect-then-close", b"", close="now")
    add("connect-then-reset", b"", close="reset-now")
    add("slow-head-abandoned", get[:5], get[5:12], get[12:20], pause=0.05, close="now")
    add("slow-body-abandoned", post[:-3], post[-3:-2], pause=0.05, close="reset-now")
    cases.append(("slowloris-20-open", slowloris(20, get)))
    # upgrades
    ws = [b"Upgrade: websocket", b"Connection: Upgrade", b"Sec-WebSocket-Version: 13"]
    for label, extra in [("no-key", []), ("short-key", [b"Sec-WebSocket-Key: c2hvcnQ="]),
                         ("bad-base64", [b"Sec-WebSocket-Key: !!!!!!!!!!!!!!!!!!!!!!=="]),
                         ("huge-key", [b"Sec-WebSocket-Key: " + b"A" * 20000]),
                         ("two-keys", [b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", b"Sec-WebSocket-Key: eA=="])]:
        add(f"ws-{label}", req(target=b"/v1/events", headers=ws + extra))
    key = [b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=="]
    add("ws-version-99", req(target=b"/v1/events", headers=[b"Upgrade: websocket", b"Connection: Upgrade",
                                                              b"Sec-WebSocket-Version: 99"] + key))
    add("ws-no-connection", req(target=b"/v1/events",
                                headers=[b"Upgrade: websocket", b"Sec-WebSocket-Version: 13"] + key))
    add("ws-on-probe-path", req(headers=ws + key))
    add("ws-post-with-body", req(b"POST", target=b"/v1/events", headers=ws + key + [b"Content-Length: 5"],
                                 body=b"hello"))
    add("ws-token-then-garbage-frames", req(target=b"/v1/events?access_token=x.y.z", headers=ws + key),
        b"\x81\xff" + b"\xff" * 8 + b"\x00" * 64 + b"\x88\x80\x00\x00\x00\x00")
    add("upgrade-foo", req(headers=[b"Upgrade: foo", b"Connection: Upgrade"]))
    add("upgrade-empty", req(headers=[b"Upgrade:", b"Connection: Upgrade"]))
    add("upgrade-h2-over-cleartext", req(headers=[b"Upgrade: h2", b"Connection: Upgrade"]))
    add("upgrade-many", req(headers=[b"Upgrade: " + b", ".join([b"foo/1"] * 2000), b"Connection: Upgrade"]))
    add("connection-upgrade-only", req(headers=[b"Connection: Upgrade"]))
    add("connection-header-list-huge", req(headers=[b"Connection: " + b",".join(b"x-%d" % i for i in range(3000))]))
    add("expect-100-continue", req(b"POST", headers=[b"Expect: 100-continue", b"Content-Length: 5"]), b"hello",
        pause=0.05)
    add("expect-100-no-body", req(b"POST", headers=[b"Expect: 100-continue", b"Content-Length: 5"]))
    add("expect-unknown", req(b"POST", headers=[b"Expect: the-unexpected", b"Content-Length: 5"], body=b"hello"))
    # garbage, truncations and duplications of valid requests
    rng = random.Random(f"{fz.args.seed}:http1-fixed")
    add("only-crlf", b"\r\n" * 2000)
    add("crlf-then-get", b"\r\n" * 10 + get)
    add("nul-64k", b"\x00" * 65536)
    add("random-4k", bytes(rng.getrandbits(8) for _ in range(4096)))
    add("tls-hello-on-cleartext",
        b"\x16\x03\x01\x00\x2f\x01\x00\x00\x2b\x03\x03" + bytes(32) + b"\x00\x00\x02\x00\x2f\x01\x00")
    add("sslv2-hello", b"\x80\x2e\x01\x00\x02\x00\x15\x00\x00\x00\x10" + bytes(37))
    for cut in (1, 4, 15, len(get) - 3, len(get) - 1):
        add(f"truncated-get-{cut}", get[:cut])
    add("duplicated-request-line", get.split(b"\r\n")[0] + b"\r\n" + get)
    add("duplicated-head", get[:-2] + get[get.index(b"\r\n") + 2:])
    add("head-repeated-500", get[:-2] * 500)
    for i in range(4):
        data = bytearray(get)
        for _ in range(3):
            pos = rng.randrange(len(data))
            data[pos] ^= 1 << rng.randrange(8)
        add(f"bitflip-{i}", bytes(data))
    return cases


def slowloris(n, get):
    def run(fz):
        links = []
        try:
            for i in range(n):
                link = fz.connect("http1")
                if link is None:
                    break
                links.append(link)
                link.send(get[: 3 + i % (len(get) - 6)])
            fz.probe_during(f"{len(links)} partial heads open")
            time.sleep(0.1)
            for link in links:
                link.send(b"X")
            fz.probe_during(f"{len(links)} partial heads open, one more byte each")
        finally:
            for link in links:
                link.close(reset=True)
    return run


def mutate(rng, data, corpus):
    data = bytearray(data)
    for _ in range(rng.randint(1, 5)):
        if not data:
            data = bytearray(rng.choice(corpus))
        op = rng.randrange(12)
        pos = rng.randrange(len(data) + 1)
        if op == 0:     # bit flip
            if pos < len(data):
                data[pos] ^= 1 << rng.randrange(8)
        elif op == 1:   # a byte replaced
            if pos < len(data):
                data[pos] = rng.choice([0, 9, 10, 13, 0x20, 0x3A, 0x7F, 0xFF, rng.randrange(256)])
        elif op == 2:   # control bytes inserted
            data[pos:pos] = bytes(rng.choice([0, 1, 9, 10, 13, 0x7F]) for _ in range(rng.randint(1, 4)))
        elif op == 3:   # a range deleted
            data[pos:pos + rng.randint(1, 32)] = b""
        elif op == 4:   # a range duplicated
            end = min(len(data), pos + rng.randint(1, 64))
            data[pos:pos] = data[pos:end] * rng.randint(1, 50)
        elif op == 5:   # truncated
            del data[pos:]
        elif op == 6:   # a long header line
            at = data.find(b"\r\n")
            if at >= 0:
                data[at + 2:at + 2] = b"X-L: " + b"A" * rng.choice([10, 1000, 8200, 33000, 70000]) + b"\r\n"
        elif op == 7:   # a header line repeated
            lines = bytes(data).split(b"\r\n")
            if len(lines) > 2:
                i = rng.randrange(1, len(lines))
                lines[i:i] = [lines[i]] * rng.choice([2, 10, 500])
                data = bytearray(b"\r\n".join(lines))
        elif op == 8:   # a number changed
            digits = [i for i, b in enumerate(data) if 48 <= b <= 57]
            if digits:
                i = rng.choice(digits)
                data[i:i + 1] = str(rng.choice([0, 1, -1, 65535, 65537, 2 ** 31, 2 ** 63, 10 ** 30])).encode()
        elif op == 9:   # two lines swapped
            lines = bytes(data).split(b"\r\n")
            if len(lines) > 2:
                i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
                lines[i], lines[j] = lines[j], lines[i]
                data = bytearray(b"\r\n".join(lines))
        elif op == 10:  # spliced with another request
            other = rng.choice(corpus)
            data = data[:pos] + bytearray(other[rng.randrange(len(other)):])
        else:           # random bytes inserted
            data[pos:pos] = bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 16)))
    return bytes(data)


def random_delivery(rng, kind, data):
    """A case writing data in 1-4 pieces, then closing in a random way."""
    cuts = []
    if len(data) > 1:
        cuts = sorted(rng.sample(range(1, len(data)), min(rng.randint(0, 3), len(data) - 1)))
    parts, prev = [], 0
    for c in cuts + [len(data)]:
        parts.append(data[prev:c])
        prev = c
    close = rng.choice(["normal", "normal", "normal", "now", "reset", "reset-now", "half"])
    return shot(kind, *parts, pause=rng.choice([0, 0, 0, 0.01]), close=close)


def http1_random(fz, rng):
    corpus = http1_corpus(fz)
    return random_delivery(rng, "http1", mutate(rng, rng.choice(corpus), corpus))


# --------------------------------------------------------------------------------------------------------------
# Family h2c.

def h2c_requests(fz):
    p = fz.args.probe_path.encode()
    host = fz.authority.encode()
    settings = b"HTTP2-Settings: " + h2_client().initiate_upgrade_connection()   # the value from h2
    up = [b"Connection: Upgrade, HTTP2-Settings", b"Upgrade: h2c"]
    body = b'{"a":1}'
    ws = [b"Sec-WebSocket-Version: 13", b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=="]

    def get(headers, method=b"GET", target=p, version=b"HTTP/1.1", body=b""):
        return http_request(method, target, version, headers, body, host)

    return [
        ("get-curl", get([b"User-Agent: curl/7.88.1", b"Accept: */*"] + up + [settings])),
        ("get-no-settings", get([b"Connection: Upgrade", b"Upgrade: h2c"])),
        ("get-settings-no-token", get([b"Connection: Upgrade", b"Upgrade: h2c", settings])),
        ("get-bad-base64", get(up + [b"HTTP2-Settings: !!!not*base64!!!"])),
        ("get-padded-base64", get(up + [b"HTTP2-Settings: " + base64.b64encode(b"\x00\x03\x00\x00\x00\x64")])),
        ("get-settings-odd-length",
         get(up + [b"HTTP2-Settings: " + base64.urlsafe_b64encode(b"\x00\x03\x00\x00\x00").rstrip(b"=")])),
        ("get-settings-empty", get(up + [b"HTTP2-Settings:"])),
        ("get-settings-20k", get(up + [b"HTTP2-Settings: " + b"AAMAAABk" * 2560])),
        ("get-settings-twice", get(up + [settings] * 2)),
        ("post-body", get(up + [settings, b"Content-Type: application/json", b"Content-Length: %d" % len(body)],
                          method=b"POST", body=body)),
        ("post-chunked", get(up + [settings, b"Transfer-Encoding: chunked"], method=b"POST",
                             body=b"7\r\n" + body + b"\r\n0\r\n\r\n")),
        ("post-body-short", get(up + [settings, b"Content-Length: 100"], method=b"POST", body=body)),
        ("upgrade-keepalive", get([b"Connection: keep-alive", b"Upgrade: h2c", settings])),
        ("upgrade-h2c-websocket",
         get([b"Connection: Upgrade, HTTP2-Settings", b"Upgrade: h2c, websocket", settings] + ws)),
        ("http10", get(up + [settings], version=b"HTTP/1.0")),
        ("options-star", get(up + [settings], method=b"OPTIONS", target=b"*")),
        ("events-path", get(up + [settings], target=b"/v1/events")),
    ]


def garbage_frames(rng):
    out = [raw_frame(rng.choice([0x0B, 0x42, 0xFF]), rng.randrange(256), rng.randrange(8),
                     bytes(rng.getrandbits(8) for _ in range(rng.randrange(40))))
           for _ in range(4)]
    out.append(raw_frame(0x1, 0x4, 1, b"\xff\xff\xff", length=1000))
    out.append(raw_frame(0x0, 0x0, 0, b"data on stream zero"))
    out.append(raw_frame(0x8, 0x0, 0, b"\x00\x00\x00"))
    return b"".join(out)


def h2c_followups(fz, rng):
    conn, start = h2_start()
    conn2, start2 = h2_start()
    conn2.send_headers(3, fz.request_headers(), end_stream=True)
    request = start2 + conn2.data_to_send()
    return [
        ("nothing", []),
        ("preface-settings", [start]),
        ("preface-request", [request]),
        ("preface-garbage-frames", [PREFACE + garbage_frames(rng)]),
        ("garbage", [bytes(rng.getrandbits(8) for _ in range(512))]),
    ]


def h2c_cases(fz):
    rng = random.Random(f"{fz.args.seed}:h2c-fixed")
    cases = []
    for rname, request in h2c_requests(fz):
        for fname, after in h2c_followups(fz, rng):
            cases.append((f"{rname}+{fname}", shot("http1", request, *after, pause=0.01)))
    # the same, in one write: the server sees the HTTP/2 bytes with the upgrade request
    curl = h2c_requests(fz)[0][1]
    for fname, after in h2c_followups(fz, rng)[1:]:
        cases.append((f"get-curl+{fname}-one-write", shot("http1", curl + b"".join(after))))
    # the smallest crash the first fuzzer runs found: any non-empty HTTP2-Settings, then the preface and SETTINGS
    minimal = (b"GET " + fz.args.probe_path.encode() + b" HTTP/1.1\r\nHost: a\r\n"
               b"Connection: Upgrade\r\nUpgrade: h2c\r\nHTTP2-Settings: x\r\n\r\n" + PREFACE + raw_frame(0x4, 0, 0))
    cases.append(("minimal-settings-after-upgrade", shot("http1", minimal)))
    return cases


def h2c_random(fz, rng):
    requests = h2c_requests(fz)
    _, request = rng.choice(requests)
    if rng.random() < 0.5:
        request = mutate(rng, request, [r for _, r in requests])
    _, after = rng.choice(h2c_followups(fz, rng))
    if after and rng.random() < 0.3:
        after = [mutate(rng, after[0], [PREFACE])]
    return shot("http1", request, *after, pause=rng.choice([0, 0.01]),
                close=rng.choice(["normal", "normal", "now", "reset-now", "half"]))


# --------------------------------------------------------------------------------------------------------------
# Family preface.

def preface_cases(fz):
    _, start = h2_start()
    conn, request = h2_start()
    conn.send_headers(1, fz.request_headers(), end_stream=True)
    request += conn.data_to_send()
    cases = []

    def add(name, *parts, **kw):
        cases.append((name, shot("h2any", *parts, **kw)))

    add("prior-knowledge-request", request)
    add("preface-only", PREFACE)
    add("preface-only-then-close", PREFACE, close="now")
    add("preface-settings", start)
    for cut in (3, 8, 16, 18, 23):
        add(f"truncated-{cut}-wait", PREFACE[:cut])
        add(f"truncated-{cut}-close", PREFACE[:cut], close="now")
    for pos in (0, 4, 9, 14, 16, 18, 20, 23):
        corrupted = bytearray(PREFACE)
        corrupted[pos] ^= 0x20
        add(f"corrupted-at-{pos}", bytes(corrupted) + start[len(PREFACE):])
    add("lowercase", PREFACE.lower() + start[len(PREFACE):])
    add("without-sm", b"PRI * HTTP/2.0\r\n\r\n" + start[len(PREFACE):])
    add("http11-pri", b"PRI * HTTP/1.1\r\n\r\nSM\r\n\r\n")
    add("pri-with-headers", b"PRI * HTTP/2.0\r\nHost: x\r\nContent-Length: 5\r\n\r\nSM\r\n\r\n")
    add("preface-twice", PREFACE + start)
    add("preface-then-http1", PREFACE + b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    add("preface-byte-by-byte", *[PREFACE[i:i + 1] for i in range(len(PREFACE))], start[len(PREFACE):], pause=0.003)
    add("preface-then-reset", start, close="reset-now")
    add("preface-zeros-64k", PREFACE + bytes(65536))
    add("preface-no-settings-request",
        PREFACE + conn.data_to_send() + raw_frame(0x1, 0x5, 1, hpack_block(fz.request_headers())))
    add("settings-before-preface", start[len(PREFACE):] + PREFACE)
    return cases


def preface_random(fz, rng):
    _, start = h2_start()
    data = mutate(rng, start, [start, PREFACE])
    if rng.random() < 0.5:
        data += b"".join(random_frame(fz, rng, [1]) for _ in range(rng.randint(1, 8)))
    return random_delivery(rng, "h2any", data)


# --------------------------------------------------------------------------------------------------------------
# Family frames.

def h2_case(body, settings=None, close="normal", quiet=None, limit=None):
    """A case on an HTTP/2 connection: the preface and SETTINGS from h2, then body(fz, link, conn)."""
    def run(fz):
        link = fz.connect("h2")
        if link is None:
            return
        conn, start = h2_start(settings)
        if link.send(start):
            link.pump()
            body(fz, link, conn)
        if close != "now":
            link.drain(quiet=quiet, limit=limit)
        link.close(reset=close == "reset")
    return run


def send_all(*frames):
    def body(fz, link, conn):
        for f in frames:
            data = f(fz, conn) if callable(f) else f
            if not link.send(data):
                return
            link.pump()
    return body


def request(fz, conn, sid, end_stream=True, path=None, method=b"GET", extra=()):
    conn.send_headers(sid, fz.request_headers(path, method, extra), end_stream=end_stream)
    return conn.data_to_send()


def big_request(extra, sid=1):
    """A request whose header list is huge: encoded by hpack without Huffman coding (h2 would Huffman-code it,
    which takes seconds in Python for hundreds of KiB), framed by hyperframe."""
    def make(fz, conn):
        return header_frames(sid, hpack.Encoder().encode(fz.request_headers(extra=extra), huffman=False))
    return make


def rapid_reset(n, end_stream=True, code=8):
    def body(fz, link, conn):
        def pieces():
            for i in range(n):
                sid = 1 + 2 * i
                conn.send_headers(sid, fz.request_headers(), end_stream=end_stream)
                conn.reset_stream(sid, code)
                yield conn.data_to_send()
        fz.flood(link, pieces(), "rapid reset")
    return body


def continuation_flood(n, fragment_size, end=False, stream=1):
    def body(fz, link, conn):
        enc = hpack.Encoder()
        first = enc.encode(fz.request_headers(), huffman=False)
        if not link.send(ser(hf.HeadersFrame(stream, data=first, flags=["END_STREAM"]))):
            return

        def pieces():
            for i in range(n):
                if fragment_size == 0:
                    fragment = b""
                else:
                    fragment = enc.encode([(b"x-c%d" % (i % 50), b"a" * fragment_size)], huffman=False)
                flags = ["END_HEADERS"] if end and i == n - 1 else []
                yield ser(hf.ContinuationFrame(stream, data=fragment, flags=flags))
        fz.flood(link, pieces(), "CONTINUATION flood")
    return body


def frame_flood(n, make, label):
    def body(fz, link, conn):
        fz.flood(link, (make(i) for i in range(n)), label)
    return body


def request_then_flood(n, make, label, end_stream=False):
    def body(fz, link, conn):
        if link.send(request(fz, conn, 1, end_stream=end_stream, method=b"POST" if not end_stream else b"GET")):
            fz.flood(link, (make(i) for i in range(n)), label)
    return body


def hold_streams(n):
    """n streams opened (HEADERS without END_STREAM) and held while the probe runs."""
    def body(fz, link, conn):
        def pieces():
            for i in range(n):
                yield request(fz, conn, 1 + 2 * i, end_stream=False, method=b"POST")
        fz.flood(link, pieces(), "open streams")
        fz.probe_during(f"{n} streams held open")
    return body


def slow_reader(fz, link, conn):
    """INITIAL_WINDOW_SIZE 0 (in the SETTINGS from h2), 50 requests, then never open a window; probe meanwhile."""
    for i in range(50):
        if not link.send(request(fz, conn, 1 + 2 * i)):
            return
    time.sleep(0.1)
    fz.probe_during("50 responses held by a zero window")


def hpack_bomb(refs, streams=1):
    def body(fz, link, conn):
        big = (b"x-bomb", b"b" * 4000)
        enc = hpack.Encoder()
        for s in range(streams):
            # the encoder indexes the 4000-byte field once, then refers to it with one byte each time
            block = enc.encode(fz.request_headers(extra=[big] * refs), huffman=False)
            if not link.send(header_frames(1 + 2 * s, block)):
                return
            link.pump()
    return body


def hpack_raw(block):
    """A HEADERS frame (packed by hand) on stream 1 carrying a malformed header block."""
    return raw_frame(0x1, 0x5, 1, block)


def hpack_malformed_cases():
    get_idx = b"\x82\x86\x84"  # :method GET, :scheme http, :path /
    return [
        ("hpack-table-size-update-huge", hpack_int(2 ** 32 - 1, 5, 0x20) + get_idx),
        ("hpack-table-size-update-late", get_idx + b"\x20"),
        ("hpack-table-size-updates-1000", b"\x20" * 1000 + get_idx),
        ("hpack-index-0", b"\x80"),
        ("hpack-index-out-of-range", hpack_int(100000, 7, 0x80)),
        ("hpack-integer-overflow", b"\xff" + b"\xff" * 12 + b"\x01"),
        ("hpack-integer-unterminated", b"\xff\xff\xff"),
        ("hpack-literal-overrun", b"\x40\x7f\xff\xff\x03x"),
        ("hpack-huffman-eos", b"\x40\x85\xff\xff\xff\xff\xff\x81\x61"),
        ("hpack-huffman-bad-padding", b"\x40\x81\x00\x81\x61"),
        ("hpack-name-index-out-of-range", b"\x7f\xff\x07\x01a"),
        ("hpack-value-length-huge", b"\x00\x01a\x7f" + b"\xff" * 4 + b"\x0f"),
    ]


def malformed_header_lists(fz):
    base = fz.request_headers()
    no = lambda name: [h for h in base if h[0] != name]
    return [
        ("headers-missing-method", no(b":method")),
        ("headers-missing-path", no(b":path")),
        ("headers-empty-path", no(b":path") + [(b":path", b"")]),
        ("headers-uppercase-name", base + [(b"X-Upper", b"a")]),
        ("headers-connection-specific", base + [(b"connection", b"keep-alive"), (b"transfer-encoding", b"chunked")]),
        ("headers-te-gzip", base + [(b"te", b"gzip")]),
        ("headers-pseudo-after-regular", [base[0], (b"x-a", b"b")] + base[1:]),
        ("headers-duplicate-path", base + [(b":path", b"/other")]),
        ("headers-unknown-pseudo", base + [(b":evil", b"1")]),
        ("headers-status-in-request", base + [(b":status", b"200")]),
        ("headers-nul-cr-lf-value", base + [(b"x-a", b"a\x00b\r\nx-injected: c")]),
        ("headers-space-in-name", base + [(b"x a", b"b")]),
        ("headers-empty-name", base + [(b"", b"b")]),
        ("headers-connect-no-authority", [(b":method", b"CONNECT"), (b":authority", b"")]),
        ("headers-content-length-mismatch", no(b":method") + [(b":method", b"POST"), (b"content-length", b"5")]),
        ("headers-content-length-bad",
         no(b":method") + [(b":method", b"POST"), (b"content-length", b"-1, 99999999999999999999")]),
    ]


def frames_cases(fz):
    rng = random.Random(f"{fz.args.seed}:frames-fixed")
    SC = h2.settings.SettingCodes
    cases = []

    def add(name, body, **kw):
        cases.append((name, h2_case(body, **kw)))

    # rapid reset and stream exhaustion
    add("rapid-reset-1000", rapid_reset(1000))
    add("rapid-reset-5000", rapid_reset(5000))
    add("rapid-reset-open-streams-2000", rapid_reset(2000, end_stream=False, code=0))
    add("streams-held-open-1000", hold_streams(1000))
    # CONTINUATION
    add("continuation-flood-10000", continuation_flood(10000, 16))
    add("continuation-flood-empty-30000", continuation_flood(30000, 0))
    add("continuation-flood-16k-x-600", continuation_flood(600, 16000))
    add("continuation-flood-then-end", continuation_flood(5000, 64, end=True))
    add("continuation-flood-then-close", continuation_flood(3000, 16), close="now")
    add("continuation-without-headers", send_all(ser(hf.ContinuationFrame(1, data=b"\x82", flags=["END_HEADERS"]))))
    add("continuation-wrong-stream", send_all(ser(hf.HeadersFrame(1, data=hpack_block([(b":method", b"GET")]))),
                                              ser(hf.ContinuationFrame(3, data=b"\x86\x84", flags=["END_HEADERS"]))))
    add("continuation-after-end-headers", send_all(lambda fz, c: request(fz, c, 1),
                                                   ser(hf.ContinuationFrame(1, data=b"\x82", flags=["END_HEADERS"]))))
    half_headers = ser(hf.HeadersFrame(1, data=hpack_block([(b":method", b"GET")])))   # no END_HEADERS
    rest_of_headers = ser(hf.ContinuationFrame(1, data=b"\x86\x84", flags=["END_HEADERS"]))
    add("ping-between-headers-and-continuation",
        send_all(half_headers, ser(hf.PingFrame(0, opaque_data=b"interlea")), rest_of_headers))
    add("continuation-stream-0", send_all(raw_frame(0x9, 0x4, 0, b"\x82")))
    # header lists and HPACK
    add("header-256k-value", send_all(big_request([(b"x-big", b"v" * 256 * 1024)])))
    add("header-list-5000-fields", send_all(big_request([(b"x-h%d" % i, b"v" * 64) for i in range(5000)])))
    add("header-cookie-crumbs-20000", send_all(big_request([(b"cookie", b"c%d=1" % i) for i in range(20000)])))
    add("hpack-bomb-16000-refs", hpack_bomb(16000))
    add("hpack-bomb-10-streams", hpack_bomb(4000, streams=10))
    add("hpack-table-churn-3000", send_all(big_request([(b"x-churn-%d" % i, b"c" * 100) for i in range(3000)])))
    for name, block in hpack_malformed_cases():
        add(name, send_all(hpack_raw(block)))
    for name, headers in malformed_header_lists(fz):
        add(name, send_all(lambda fz, c, h=headers: (c.send_headers(1, h, end_stream=True), c.data_to_send())[1]))
    add("headers-empty-block", send_all(ser(hf.HeadersFrame(1, data=b"", flags=["END_HEADERS", "END_STREAM"]))))
    # SETTINGS
    add("settings-flood-10000", frame_flood(
        10000, lambda i: ser(hf.SettingsFrame(0, settings={SC.INITIAL_WINDOW_SIZE: 65535 + i % 2})), "SETTINGS"))
    add("settings-flood-empty-30000", frame_flood(30000, lambda i: ser(hf.SettingsFrame(0)), "SETTINGS"))
    add("settings-2000-entries", send_all(raw_frame(0x4, 0, 0, struct.pack(">HI", 0x4, 65535) * 2000)))
    for name, ident, value in [("enable-push-2", 2, 2), ("window-2^31", 4, 2 ** 31), ("max-frame-size-1", 5, 1),
                               ("max-frame-size-2^24", 5, 2 ** 24), ("header-table-2^32-1", 1, 2 ** 32 - 1),
                               ("max-header-list-0", 6, 0), ("max-streams-0", 3, 0), ("unknown-ids", 0xFFFF, 7)]:
        add(f"settings-{name}", send_all(raw_frame(0x4, 0, 0, struct.pack(">HI", ident, value)),
                                         lambda fz, c: request(fz, c, 1)))
    add("settings-ack-with-payload", send_all(raw_frame(0x4, 0x1, 0, b"\x00" * 6)))
    add("settings-on-stream-1", send_all(raw_frame(0x4, 0, 1, b"")))
    add("settings-length-7", send_all(raw_frame(0x4, 0, 0, b"\x00" * 7)))
    add("settings-window-0-slow-reader", slow_reader, settings={SC.INITIAL_WINDOW_SIZE: 0})
    # PING
    add("ping-flood-20000",
        frame_flood(20000, lambda i: ser(hf.PingFrame(0, opaque_data=struct.pack(">Q", i))), "PING"))
    add("ping-ack-unsolicited", send_all(ser(hf.PingFrame(0, opaque_data=b"12345678", flags=["ACK"]))))
    add("ping-length-7", send_all(raw_frame(0x6, 0, 0, b"1234567")))
    add("ping-stream-1", send_all(raw_frame(0x6, 0, 1, b"12345678")))
    # WINDOW_UPDATE
    max_inc = 2 ** 31 - 1
    add("window-update-connection-overflow", send_all(ser(hf.WindowUpdateFrame(0, window_increment=max_inc)),
                                                      ser(hf.WindowUpdateFrame(0, window_increment=max_inc))))
    add("window-update-stream-overflow", send_all(lambda fz, c: request(fz, c, 1),
                                                  ser(hf.WindowUpdateFrame(1, window_increment=max_inc)),
                                                  ser(hf.WindowUpdateFrame(1, window_increment=max_inc))))
    add("window-update-zero-connection", send_all(raw_frame(0x8, 0, 0, struct.pack(">I", 0))))
    add("window-update-zero-stream", send_all(lambda fz, c: request(fz, c, 1, end_stream=False, method=b"POST"),
                                              raw_frame(0x8, 0, 1, struct.pack(">I", 0))))
    add("window-update-idle-stream", send_all(ser(hf.WindowUpdateFrame(99, window_increment=100))))
    add("window-update-length-3", send_all(raw_frame(0x8, 0, 0, b"\x00\x00\x01")))
    add("window-update-length-5", send_all(raw_frame(0x8, 0, 0, b"\x00\x00\x00\x01\x00")))
    add("window-update-flood-20000",
        frame_flood(20000, lambda i: ser(hf.WindowUpdateFrame(0, window_increment=1)), "WINDOW_UPDATE"))
    # wrong lengths
    add("length-longer-than-sent", send_all(raw_frame(0x1, 0x5, 1, b"\x82\x86", length=1000)))
    add("length-2^24-1", send_all(raw_frame(0x0, 0, 1, b"x" * 100, length=0xFFFFFF)))
    add("length-over-max-frame-size", send_all(lambda fz, c: request(fz, c, 1, end_stream=False, method=b"POST"),
                                               raw_frame(0x0, 0x1, 1, b"x" * 16385)))
    add("priority-length-4", send_all(raw_frame(0x2, 0, 1, b"\x00\x00\x00\x03")))
    add("rst-length-3", send_all(raw_frame(0x3, 0, 1, b"\x00\x00\x08")))
    add("goaway-length-4", send_all(raw_frame(0x7, 0, 0, b"\x00\x00\x00\x00")))
    add("data-pad-too-long", send_all(lambda fz, c: request(fz, c, 1, end_stream=False, method=b"POST"),
                                      raw_frame(0x0, 0x8, 1, b"\xff" + b"x" * 9)))
    add("headers-pad-too-long", send_all(raw_frame(0x1, 0xD, 1, b"\xff\x82\x86\x84")))
    add("frame-header-truncated", send_all(b"\x00\x00\x05\x00"), close="now")
    add("headers-priority-flag-short", send_all(raw_frame(0x1, 0x25, 1, b"\x00\x00")))
    # unknown types
    add("unknown-types-all",
        send_all(b"".join(raw_frame(t, rng.randrange(256), t % 3, bytes(t % 17)) for t in range(0x0A, 0x100))))
    add("unknown-type-flood-20000",
        frame_flood(20000, lambda i: ser(hf.ExtensionFrame(0xFA, 0, flag_byte=0, body=b"u" * 100)), "unknown"))
    add("unknown-type-16k-x-1000", frame_flood(1000, lambda i: raw_frame(0xFB, 0, 1, b"u" * 16384), "unknown"))
    add("unknown-between-headers-continuation", send_all(half_headers, raw_frame(0xFA, 0, 0, b""), rest_of_headers))
    # DATA
    add("data-stream-0", send_all(raw_frame(0x0, 0x1, 0, b"hello")))
    add("data-idle-stream", send_all(ser(hf.DataFrame(1, data=b"hello", flags=["END_STREAM"]))))
    add("data-after-end-stream", send_all(lambda fz, c: request(fz, c, 1), ser(hf.DataFrame(1, data=b"late"))))
    add("data-over-window-256k", request_then_flood(16, lambda i: ser(hf.DataFrame(1, data=b"d" * 16384)), "DATA"))
    add("data-empty-flood-50000", request_then_flood(50000, lambda i: ser(hf.DataFrame(1, data=b"")), "empty DATA"))
    add("data-content-length-mismatch", send_all(lambda fz, c: request(fz, c, 1, end_stream=False, method=b"POST",
                                                                        extra=[(b"content-length", b"2")]),
                                                 ser(hf.DataFrame(1, data=b"0123456789", flags=["END_STREAM"]))))
    # stream ids
    add("headers-even-stream", send_all(lambda fz, c: raw_frame(0x1, 0x5, 2, hpack_block(fz.request_headers()))))
    add("headers-decreasing-ids", send_all(lambda fz, c: raw_frame(0x1, 0x5, 5, hpack_block(fz.request_headers())),
                                           lambda fz, c: raw_frame(0x1, 0x5, 3, hpack_block(fz.request_headers()))))
    add("headers-max-stream-id-then-more",
        send_all(lambda fz, c: raw_frame(0x1, 0x5, 2 ** 31 - 1, hpack_block(fz.request_headers())),
                 lambda fz, c: raw_frame(0x1, 0x5, 1, hpack_block(fz.request_headers()))))
    add("headers-reserved-bit",
        send_all(lambda fz, c: raw_frame(0x1, 0x5, 0x80000001, hpack_block(fz.request_headers()))))
    add("headers-stream-reused", send_all(lambda fz, c: raw_frame(0x1, 0x5, 1, hpack_block(fz.request_headers())),
                                          lambda fz, c: raw_frame(0x1, 0x5, 1, hpack_block(fz.request_headers()))))
    add("headers-stream-0", send_all(lambda fz, c: raw_frame(0x1, 0x5, 0, hpack_block(fz.request_headers()))))
    # PRIORITY
    add("priority-self-dependency", send_all(ser(hf.PriorityFrame(1, depends_on=1, stream_weight=16))))
    add("headers-priority-self-dependency", send_all(
        lambda fz, c: raw_frame(0x1, 0x25, 1, struct.pack(">IB", 1, 15) + hpack_block(fz.request_headers()))))
    add("priority-stream-0", send_all(raw_frame(0x2, 0, 0, struct.pack(">IB", 1, 15))))
    add("priority-cycle", send_all(ser(hf.PriorityFrame(1, depends_on=3)),
                                   ser(hf.PriorityFrame(3, depends_on=1, exclusive=True)),
                                   lambda fz, c: request(fz, c, 1)))

    def shuffled_priority(i):
        return ser(hf.PriorityFrame(1 + 2 * (i % 5000), depends_on=1 + 2 * ((i * 7919) % 5000),
                                    stream_weight=i % 256, exclusive=bool(i & 1)))
    add("priority-flood-20000", frame_flood(20000, shuffled_priority, "PRIORITY"))
    # other frames a client must not send, and GOAWAY
    add("push-promise-from-client", send_all(lambda fz, c: request(fz, c, 1, end_stream=False, method=b"POST"),
                                             lambda fz, c: ser(hf.PushPromiseFrame(
                                                 1, promised_stream_id=2, data=hpack_block(fz.request_headers()),
                                                 flags=["END_HEADERS"]))))
    add("rst-stream-0", send_all(raw_frame(0x3, 0, 0, struct.pack(">I", 8))))
    add("rst-idle-stream", send_all(ser(hf.RstStreamFrame(7, error_code=8))))
    add("rst-flood-idle-20000",
        frame_flood(20000, lambda i: ser(hf.RstStreamFrame(1 + 2 * i, error_code=8)), "RST_STREAM"))
    add("goaway-then-request",
        send_all(ser(hf.GoAwayFrame(0, last_stream_id=0, error_code=0)), lambda fz, c: request(fz, c, 1)))
    add("goaway-huge-debug",
        send_all(ser(hf.GoAwayFrame(0, last_stream_id=0, error_code=2, additional_data=b"g" * 16000))))
    # random bytes after the preface
    for size in (64, 1024, 65536):
        add(f"random-after-preface-{size}", send_all(bytes(rng.getrandbits(8) for _ in range(size))))
    return cases


def random_frame(fz, rng, next_stream):
    """One frame, well-formed from h2/hyperframe or broken by hand."""
    kind = rng.randrange(10)
    sid = rng.choice([0, 1, 2, 3, next_stream[0], 2 ** 31 - 1, rng.randrange(1, 200)])
    if kind == 0:
        s = next_stream[0]
        next_stream[0] += 2
        return raw_frame(0x1, rng.choice([0x4, 0x5, 0x1, 0x0, 0x25, 0x2D]), s, hpack_block(fz.request_headers()))
    if kind == 1:
        value = rng.choice([0, 1, 100, 16384, 65535, 2 ** 24 - 1])
        return ser(hf.SettingsFrame(0, settings={rng.choice([1, 2, 3, 4, 5, 6]): value}))
    if kind == 2:
        return ser(hf.PingFrame(0, opaque_data=bytes(rng.getrandbits(8) for _ in range(8))))
    if kind == 3:
        return raw_frame(0x8, 0, sid, struct.pack(">I", rng.choice([0, 1, 65535, 2 ** 31 - 1, 2 ** 32 - 1])))
    if kind == 4:
        return raw_frame(0x3, 0, sid, struct.pack(">I", rng.randrange(16)))
    if kind == 5:
        return raw_frame(0x2, 0, sid, struct.pack(">IB", rng.choice([0, sid, 1, 3, 0x80000001]), rng.randrange(256)))
    if kind == 6:
        payload = bytes(rng.getrandbits(8) for _ in range(rng.randrange(64)))
        return raw_frame(0x0, rng.choice([0, 1, 8, 9]), sid, payload)
    if kind == 7:
        payload = bytes(rng.getrandbits(8) for _ in range(rng.randrange(64)))
        return raw_frame(rng.randrange(256), rng.randrange(256), sid, payload,
                         length=rng.choice([None, None, max(0, len(payload) + rng.randint(-3, 3))]))
    if kind == 8:
        return raw_frame(0x9, rng.choice([0, 4]), sid, bytes(rng.getrandbits(8) for _ in range(rng.randrange(32))))
    frame = bytearray(ser(hf.HeadersFrame(max(1, sid | 1), data=hpack_block(fz.request_headers()),
                                          flags=["END_HEADERS"])))
    for _ in range(rng.randint(1, 3)):
        pos = rng.randrange(len(frame))
        frame[pos] ^= 1 << rng.randrange(8)
    return bytes(frame)


def frames_random(fz, rng):
    n = rng.randint(1, 30)
    flood = rng.random() < 0.05
    close = rng.choice(["normal", "normal", "now", "reset"])

    def body(fz, link, conn):
        next_stream = [1]
        frames = [random_frame(fz, rng, next_stream) for _ in range(n)]
        if flood:
            frames = [rng.choice(frames)] * rng.choice([1000, 5000])
        fz.flood(link, iter(frames), "random frames")
    return h2_case(body, close=close)


# --------------------------------------------------------------------------------------------------------------

BUILDERS = {"http1": (http1_cases, http1_random), "h2c": (h2c_cases, h2c_random),
            "preface": (preface_cases, preface_random), "frames": (frames_cases, frames_random)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--tls", action="store_true")
    parser.add_argument("--ca")
    parser.add_argument("--pid", type=int)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=0)
    parser.add_argument("--probe-path", default="/healthz")
    parser.add_argument("--probe-timeout", type=float, default=2.0)
    parser.add_argument("--families", default=",".join(FAMILIES))
    parser.add_argument("--case", default="")
    parser.add_argument("--skip", default="")
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--linger", type=float, default=0.05)
    parser.add_argument("--verbose", "-v", action="store_true")
    args = parser.parse_args()
    families = [f.strip() for f in args.families.split(",") if f.strip()]
    unknown = [f for f in families if f not in BUILDERS]
    if unknown or not families:
        parser.error(f"unknown families {unknown}; choose from {','.join(FAMILIES)}")
    filters = [c for c in args.case.split(",") if c]
    skips = [c for c in args.skip.split(",") if c]
    wanted = lambda name: (not filters or any(f in name for f in filters)) and not any(f in name for f in skips)

    fz = Fuzzer(args)
    planned = [(family, name, fn) for family in families for name, fn in BUILDERS[family][0](fz)]
    if args.list:
        for family, name, _ in planned:
            print(f"{family}/{name}")
        return 0

    ok, result, ms, _ = fz.probe_once()
    if not ok or not fz.alive():
        print(json.dumps({"error": f"the server did not answer the first probe: {result}" if not ok
                          else f"process {args.pid} is not running"}))
        return 2
    fz.statuses[str(result)] = 1
    fz.probes = 1
    fz.max_probe_ms = ms
    fz.slowest_probe_after = "(start)"
    fz.rss_start = fz.rss_end = fz.rss_max = fz.rss_kib()

    try:
        for family, name, fn in planned:
            if wanted(f"{family}/{name}"):
                fz.run_case(family, name, fn)
        chooser = random.Random(args.seed)
        for i in range(args.rounds):
            family = chooser.choice(families)
            name = f"random-{i}"
            if not wanted(f"{family}/{name}"):
                continue
            rng = random.Random(f"{args.seed}:{i}")
            fz.run_case(family, name, lambda fz, family=family, rng=rng: BUILDERS[family][1](fz, rng)(fz))
    except Died as e:
        print(f"THE SERVER DIED after {fz.died_after}: {e}", file=sys.stderr)
        fz.dump_case("died")
    except KeyboardInterrupt:
        print(f"interrupted during {fz.case}", file=sys.stderr)
    print(json.dumps(fz.result()))
    return 0 if fz.died_after is None and not fz.failures else 1


if __name__ == "__main__":
    sys.exit(main())

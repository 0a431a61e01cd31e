#!/usr/bin/env python3
"""HTTP/2 client peer for the LibWebSockets tests (pure `h2` over an ssl socket).

Opens ONE TLS connection (ALPN h2) and sends `--count` requests as concurrent streams, like an
APNs provider (aioapns) does: POST with apns-* headers and a JSON body, by default WITHOUT a
content-length header. Prints one JSON object: {"alpn": ..., "responses": [{"stream", "status",
"headers", "body"}...]} and exits 0 when every stream got a response, 1 otherwise.

usage: h2_client_peer.py --port P --cafile CA [--host localhost] [--count 100] [--method POST]
                         [--path-prefix /3/device/] [--content-length] [--empty-post] [--timeout 20]
(--method GET sends header-only streams; --empty-post sends POST with END_STREAM on HEADERS.)
"""
import argparse
import json
import socket
import ssl
import sys
import time

import h2.config
import h2.connection
import h2.events


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--host", default="localhost")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--cafile", required=True)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--method", default="POST", choices=["POST", "GET"])
    ap.add_argument("--path-prefix", default="/3/device/")
    ap.add_argument("--content-length", action="store_true", help="send content-length headers")
    ap.add_argument("--empty-post", action="store_true", help="POST with END_STREAM on HEADERS, no DATA")
    ap.add_argument("--timeout", type=float, default=20.0)
    args = ap.parse_args()

    ctx = ssl.create_default_context(cafile=args.cafile)
    ctx.set_alpn_protocols(["h2"])
    raw = socket.create_connection(("127.0.0.1", args.port), timeout=args.timeout)
    sock = ctx.wrap_socket(raw, server_hostname=args.host)
    alpn = sock.selected_alpn_protocol()

    conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True))
    conn.initiate_connection()
    conn.increment_flow_control_window(1 << 24)
    sock.sendall(conn.data_to_send())

    results = {}
    pending = []  # (stream_id, body) waiting for window / concurrency
    for i in range(args.count):
        body = json.dumps({"aps": {"alert": "n%d" % i}, "i": i}).encode()
        pending.append((i, body))

    def start_streams():
        while pending and conn.open_outbound_streams < conn.remote_settings.max_concurrent_streams:
            i, body = pending.pop(0)
            sid = conn.get_next_available_stream_id()
            headers = [
                (":method", args.method), (":scheme", "https"), (":authority", "%s:%d" % (args.host, args.port)),
                (":path", "%s%064x" % (args.path_prefix, i)),
                ("authorization", "bearer test-token"),
                ("apns-topic", "com.example.app.voip"), ("apns-push-type", "voip"),
                ("apns-id", "00000000-0000-0000-0000-%012d" % i), ("apns-priority", "10"),
                ("apns-expiration", "0"),
            ]
            if args.content_length and not args.empty_post:
                headers.append(("content-length", str(len(body))))
            if args.empty_post or args.method == "GET":
                conn.send_headers(sid, headers, end_stream=True)
                results[sid] = {"i": i, "sent": 0}
            else:
                conn.send_headers(sid, headers)
                conn.send_data(sid, body, end_stream=True)
                results[sid] = {"i": i, "sent": len(body)}
        sock.sendall(conn.data_to_send())

    start_streams()
    done = 0
    deadline = time.time() + args.timeout
    while done < args.count and time.time() < deadline:
        try:
            data = sock.recv(65536)
        except socket.timeout:
            break
        if not data:
            break
        for ev in conn.receive_data(data):
            if isinstance(ev, h2.events.ResponseReceived):
                hdrs = {k.decode() if isinstance(k, bytes) else k: v.decode() if isinstance(v, bytes) else v
                        for k, v in ev.headers}
                results[ev.stream_id]["status"] = int(hdrs.get(":status", "0"))
                results[ev.stream_id]["headers"] = hdrs
                results[ev.stream_id].setdefault("body", b"")
            elif isinstance(ev, h2.events.DataReceived):
                results[ev.stream_id]["body"] = results[ev.stream_id].get("body", b"") + ev.data
                conn.acknowledge_received_data(ev.flow_controlled_length, ev.stream_id)
            elif isinstance(ev, h2.events.StreamEnded):
                results[ev.stream_id]["ended"] = True
                done += 1
            elif isinstance(ev, h2.events.StreamReset):
                results[ev.stream_id]["reset"] = ev.error_code
                if not results[ev.stream_id].get("ended"):
                    done += 1
        start_streams()
        sock.sendall(conn.data_to_send())

    conn.close_connection()
    try:
        sock.sendall(conn.data_to_send())
        sock.close()
    except OSError:
        pass
    out = []
    for sid in sorted(results):
        r = results[sid]
        out.append({"stream": sid, "i": r["i"], "status": r.get("status"), "headers": r.get("headers", {}),
                    "body": r.get("body", b"").decode("utf-8", "replace"), "ended": r.get("ended", False)})
    print(json.dumps({"alpn": alpn, "responses": out}))
    sys.exit(0 if all(r["ended"] for r in out) and len(out) == args.count else 1)


if __name__ == "__main__":
    main()

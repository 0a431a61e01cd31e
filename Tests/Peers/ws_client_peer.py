#!/usr/bin/env python3
"""WebSocket client peer for the LibWebSockets tests (the `websockets` library).

Connects to --url with optional extra headers, sends each --send message in order, then
collects --expect text messages (or stops at close / --timeout), closes normally and prints one
JSON object on stdout:
  {"connected": true, "received": [...], "closed_by_server": bool, "close_code": N, "close_reason": "..."}
                                                  (close_* only when the server closed)
  {"connected": false, "status": 401, "body": "..."}   (handshake refused with an HTTP status)
  {"connected": false, "error": "..."}            (anything else)

usage: ws_client_peer.py --url ws://127.0.0.1:P/path?x=y [--header "Name: value"]...
                         [--send TEXT]... [--send-bytes N] [--expect N] [--cafile CA] [--timeout 10]
"""
import argparse
import asyncio
import json
import ssl

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus


async def run(args):
    headers = []
    for h in args.header:
        name, _, value = h.partition(":")
        headers.append((name.strip(), value.strip()))
    ssl_ctx = None
    if args.url.startswith("wss://"):
        ssl_ctx = ssl.create_default_context(cafile=args.cafile)
    result = {"connected": False}
    try:
        async with connect(args.url, additional_headers=headers, ssl=ssl_ctx, max_size=16 * 1024 * 1024,
                           open_timeout=args.timeout) as ws:
            result = {"connected": True, "received": [], "closed_by_server": False}
            for text in args.send:
                await ws.send(text)
            if args.send_bytes:
                await ws.send("x" * args.send_bytes)
            try:
                while len(result["received"]) < args.expect:
                    msg = await asyncio.wait_for(ws.recv(), timeout=args.timeout)
                    result["received"].append(msg if isinstance(msg, str) else "<binary>")
            except ConnectionClosed as closed:
                result["closed_by_server"] = True
                if closed.rcvd is not None:
                    result["close_code"] = closed.rcvd.code
                    result["close_reason"] = closed.rcvd.reason
            except asyncio.TimeoutError:
                result["timeout"] = True
    except InvalidStatus as exc:
        result = {"connected": False, "status": exc.response.status_code,
                  "body": exc.response.body.decode("utf-8", "replace") if exc.response.body else ""}
    except Exception as exc:  # noqa: BLE001 - report whatever failed
        result = {"connected": False, "error": "%s: %s" % (type(exc).__name__, exc)}
    print(json.dumps(result))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    ap.add_argument("--header", action="append", default=[])
    ap.add_argument("--send", action="append", default=[])
    ap.add_argument("--send-bytes", type=int, default=0, help="then send one text message of this many bytes")
    ap.add_argument("--expect", type=int, default=0)
    ap.add_argument("--cafile")
    ap.add_argument("--timeout", type=float, default=10.0)
    asyncio.run(run(ap.parse_args()))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""WebSocket server peer for the LibWebSockets tests (the `websockets` library).

Listens on 127.0.0.1 (ephemeral port unless --port), ws:// or wss:// with --cert/--key, and
prints {"port": N} as its first stdout line. For each connection it first sends one JSON text
message describing the handshake it saw: {"path": "/p?q=1", "headers": {lower-case name: value}},
then answers every text message with "echo:" + message, except two commands: "close:CODE:REASON"
closes the connection with that close frame (RFC 6455 §5.5.1) and "drop" aborts the TCP connection
without one. A request for /status/NNN is refused with HTTP status NNN instead of the upgrade. It exits
when stdin closes or after --lifetime seconds.

usage: ws_server_peer.py [--port 0] [--cert server.pem --key server.key] [--lifetime 60]
"""
import argparse
import asyncio
import json
import os
import ssl
import sys
from http import HTTPStatus

from websockets.asyncio.server import serve


def refuse(connection, request):
    if request.path.startswith("/status/"):
        status = HTTPStatus(int(request.path[len("/status/"):]))
        return connection.respond(status, "refused by the peer\n")
    return None


async def handler(ws):
    seen = {"path": ws.request.path,
            "headers": {k.lower(): v for k, v in ws.request.headers.raw_items()}}
    await ws.send(json.dumps(seen))
    async for message in ws:
        if not isinstance(message, str):
            continue
        if message.startswith("close:"):
            _, code, reason = message.split(":", 2)
            await ws.close(int(code), reason)
        elif message == "drop":
            ws.transport.abort()
        else:
            await ws.send("echo:" + message)


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--cert")
    ap.add_argument("--key")
    ap.add_argument("--lifetime", type=float, default=60.0)
    args = ap.parse_args()
    ssl_ctx = None
    if args.cert:
        ssl_ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ssl_ctx.load_cert_chain(args.cert, args.key)
    async with serve(handler, "127.0.0.1", args.port, ssl=ssl_ctx, max_size=16 * 1024 * 1024,
                     process_request=refuse) as server:
        port = server.sockets[0].getsockname()[1]
        print(json.dumps({"port": port}), flush=True)
        loop = asyncio.get_running_loop()
        stdin_closed = loop.run_in_executor(None, sys.stdin.read)
        await asyncio.wait([stdin_closed], timeout=args.lifetime)


if __name__ == "__main__":
    asyncio.run(main())
    os._exit(0)  # do not wait for the thread blocked on stdin

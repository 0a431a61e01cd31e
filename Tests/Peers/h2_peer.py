#!/usr/bin/env python3
"""Independent HTTP/2 test peer for HTTP2ClientTests: an ASGI app served by hypercorn.

Usage: h2_peer.py --cert CERT --key KEY [--client-ca CA] [--routes JSON] [--plain]

Listens on an ephemeral 127.0.0.1 port and prints "PORT <n>" on stdout once it accepts connections.
It exits when its stdin closes, so it never outlives the test process that started it.

TLS (ALPN h2, http/1.1) unless --plain, which serves cleartext HTTP/1.1 and h2c prior knowledge.
--client-ca makes a client certificate signed by that CA mandatory (mutual TLS).

Every request except /_peer/* is recorded: method, path, query, headers (list of [name, value]),
body (base64), http_version, connection ("host:port" of the client, one per TCP connection),
active (requests to the same path in progress on arrival, this one included),
disconnected (true once the client abandoned the stream before a response).

--routes maps a path to a behaviour; other paths echo the record back as JSON with status 200:
  {"/p": {"status": 410, "body": "text", "headers": {"apns-id": "x"},  # fixed answer
          "delay_ms": 100,        # answer after a delay
          "never": true,          # never answer; wait for the client to give up
          "barrier": 50,          # answer once this many requests to the path are waiting at once
          "body_bytes": 4096}}    # body of this many "x" bytes instead of "body"

Control endpoints (GET):
  /_peer/requests                        all records so far, as a JSON list
  /_peer/wait?path=/p&count=N            answer once N requests to /p arrived
  /_peer/wait?path=/p&count=N&disconnected=1   ... once N of them were abandoned by the client
"""

import argparse
import asyncio
import base64
import json
import socket
import ssl
import sys
from urllib.parse import parse_qs

from hypercorn.asyncio import serve
from hypercorn.config import Config

RECORDS = []
ROUTES = {}
CHANGED = None  # an asyncio.Condition, created in main() on the running loop
BARRIERS = {}
ACTIVE = {}  # path -> requests being handled right now


async def notify():
    async with CHANGED:
        CHANGED.notify_all()


async def wait_until(predicate):
    async with CHANGED:
        await CHANGED.wait_for(predicate)


async def read_body(receive):
    body = b""
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return body, True
        body += message.get("body", b"")
        if not message.get("more_body"):
            return body, False


async def respond(send, status, body, headers=()):
    await send({"type": "http.response.start", "status": status,
                "headers": [(k.encode(), str(v).encode()) for k, v in headers]})
    await send({"type": "http.response.body", "body": body})


async def wait_for_disconnect(receive, record):
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            record["disconnected"] = True
            await notify()
            return


async def control(scope, send):
    path = scope["path"]
    query = parse_qs(scope["query_string"].decode())
    if path == "/_peer/requests":
        await respond(send, 200, json.dumps(RECORDS).encode(), [("content-type", "application/json")])
    elif path == "/_peer/wait":
        target = query["path"][0]
        count = int(query.get("count", ["1"])[0])
        disconnected = query.get("disconnected", ["0"])[0] == "1"

        def ready():
            matching = [r for r in RECORDS if r["path"] == target and (r["disconnected"] or not disconnected)]
            return len(matching) >= count

        await wait_until(ready)
        await respond(send, 200, b"ok")
    else:
        await respond(send, 404, b"unknown control path")


async def app(scope, receive, send):
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return
    if scope["type"] != "http":
        return
    if scope["path"].startswith("/_peer/"):
        await control(scope, send)
        return

    path = scope["path"]
    ACTIVE[path] = ACTIVE.get(path, 0) + 1
    try:
        await handle(scope, receive, send, path)
    finally:
        ACTIVE[path] -= 1


async def handle(scope, receive, send, path):
    body, gone = await read_body(receive)
    client = scope.get("client") or ("?", 0)
    record = {
        "method": scope["method"],
        "path": scope["path"],
        "query": scope["query_string"].decode(),
        "headers": [[k.decode("latin-1"), v.decode("latin-1")] for k, v in scope["headers"]],
        "body": base64.b64encode(body).decode(),
        "http_version": scope["http_version"],
        "connection": f"{client[0]}:{client[1]}",
        "active": ACTIVE[path],
        "disconnected": gone,
    }
    RECORDS.append(record)
    await notify()
    if gone:
        return

    route = ROUTES.get(path)
    if route is None:
        await respond(send, 200, json.dumps(record).encode(), [("content-type", "application/json")])
        return
    if route.get("never"):
        await wait_for_disconnect(receive, record)
        return
    if "barrier" in route:
        BARRIERS[path] = BARRIERS.get(path, 0) + 1
        await notify()
        await wait_until(lambda: BARRIERS[path] >= route["barrier"])
    if route.get("delay_ms"):
        await asyncio.sleep(route["delay_ms"] / 1000)
    payload = b"x" * route["body_bytes"] if "body_bytes" in route else route.get("body", "").encode()
    await respond(send, route.get("status", 200), payload, list(route.get("headers", {}).items()))


async def main():
    global CHANGED
    parser = argparse.ArgumentParser()
    parser.add_argument("--cert")
    parser.add_argument("--key")
    parser.add_argument("--client-ca")
    parser.add_argument("--routes", default="{}")
    parser.add_argument("--plain", action="store_true")
    args = parser.parse_args()
    ROUTES.update(json.loads(args.routes))
    CHANGED = asyncio.Condition()

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    port = sock.getsockname()[1]

    config = Config()
    config.bind = [f"fd://{sock.fileno()}"]
    config.accesslog = None
    config.errorlog = "-"
    config.loglevel = "WARNING"
    config.graceful_timeout = 0.5
    if not args.plain:
        config.certfile = args.cert
        config.keyfile = args.key
        if args.client_ca:
            config.ca_certs = args.client_ca
            config.verify_mode = ssl.CERT_REQUIRED

    loop = asyncio.get_running_loop()
    stdin_closed = asyncio.Event()

    def watch_stdin():
        sys.stdin.buffer.read()  # returns at EOF: the parent closed the pipe or died
        loop.call_soon_threadsafe(stdin_closed.set)

    loop.run_in_executor(None, watch_stdin)
    # The listening socket exists before serve() starts; announcing now is safe because the kernel
    # queues connections until hypercorn accepts them.
    print(f"PORT {port}", flush=True)
    await serve(app, config, shutdown_trigger=stdin_closed.wait)


if __name__ == "__main__":
    asyncio.run(main())

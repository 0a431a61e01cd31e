#!/usr/bin/env python3
"""A socket holder of `ringer-lab bench --only ringing`: opens COUNT idle, authenticated WebSockets on a Ringer
server's /v1/events, one user each, from one loopback source address, and holds them until SIGTERM.

Each socket is an app in the foreground that nobody calls: the user's token comes from the public API
(`POST /v1/tokens` with the admin key), then `GET /v1/events?device_id=…` with `Authorization: Bearer`.
The sockets answer the server's PINGs (websockets does that by itself) and send nothing else; the holder
sends no PINGs of its own (ping_interval=None), so the server's idle cost is all that is measured.

HTTP and WebSocket come from aiohttp and websockets (PyPI). Every connection is bound to --source
(127.0.0.x), so several holders together can pass one address's ephemeral ports.

Usage: bench_ws_holder.py --url http://127.0.0.1:PORT --admin-key-file FILE --count N --source 127.0.0.2
                          --prefix idle-1- [--concurrency 64]
Prints {"open": N} once every socket is open (or {"error": "…"} and exits 1), then, on SIGTERM,
{"closed_early": K} (sockets the server closed while they were held) and exits 0.
"""
import argparse
import asyncio
import json
import os
import signal
import sys

import aiohttp
from websockets.asyncio.client import connect


def emit(line):
    sys.stdout.write(json.dumps(line) + "\n")
    sys.stdout.flush()


async def token(session, url, admin_key, user_id):
    async with session.post(f"{url}/v1/tokens", json={"user_id": user_id, "ttl_seconds": 86400},
                            headers={"authorization": f"Bearer {admin_key}"},
                            timeout=aiohttp.ClientTimeout(total=120)) as response:
        if response.status != 201:
            raise RuntimeError(f"POST /v1/tokens answered {response.status}: {(await response.text())[:200]}")
        return (await response.json())["token"]


async def run(args):
    admin_key = open(args.admin_key_file).read().strip()
    ws_base = args.url.replace("http://", "ws://", 1)
    sockets = []
    closed_early = 0
    gate = asyncio.Semaphore(args.concurrency)
    connector = aiohttp.TCPConnector(limit=args.concurrency, local_addr=(args.source, 0))

    async def hold(socket):
        nonlocal closed_early
        try:
            async for _ in socket:
                pass
        except Exception:
            pass
        closed_early += 1

    async with aiohttp.ClientSession(connector=connector) as session:
        async def open_one(index):
            async with gate:
                user = f"{args.prefix}{index}"
                bearer = await token(session, args.url, admin_key, user)
                socket = await connect(f"{ws_base}/v1/events?device_id={user}-phone",
                                       additional_headers={"authorization": f"Bearer {bearer}"},
                                       ping_interval=None, close_timeout=1, open_timeout=120,
                                       local_addr=(args.source, 0))
                sockets.append(socket)
                asyncio.ensure_future(hold(socket))

        try:
            await asyncio.gather(*(open_one(index) for index in range(args.count)))
        except Exception as error:
            emit({"error": f"{type(error).__name__}: {error}"[:500], "open": len(sockets)})
            os._exit(1)
    emit({"open": len(sockets)})
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    await stop.wait()
    emit({"closed_early": closed_early})
    # Closing thousands of sockets politely takes longer than the kernel closing them at exit.
    os._exit(0)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--admin-key-file", required=True)
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--source", default="127.0.0.1")
    parser.add_argument("--prefix", required=True)
    parser.add_argument("--concurrency", type=int, default=64)
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()

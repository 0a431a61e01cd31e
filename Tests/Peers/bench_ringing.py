#!/usr/bin/env python3
"""The load generator of `ringer-lab bench --only ringing`: places calls on a Ringer server and times, for each,
POST /v1/calls -> 201, POST -> `call.incoming` on the callee's WebSocket, and POST -> the VoIP push accepted
by the APNs sandbox (the sandbox's own `received_at`, from `GET /sandbox/pushes?since=`).

Set-up, all through the public API: PAIRS callers and PAIRS callees get user tokens (`POST /v1/tokens`);
each callee gets a random VoIP token, registered with the sandbox (`POST /sandbox/devices`) and with Ringer
(`PUT /v1/devices/…`, platform ios, environment sandbox); every caller and callee opens its own /v1/events socket. Calls go round-robin
from caller i to callee i and are left ringing (the server runs with a long --ring-timeout), so a step's
calls cost the server only their set-up.

With several --url (the nodes of a cluster sharing one database and one Redis), pair i's caller gets its token,
its socket and its calls on node i mod N and its callee gets its token, device and socket on node i+1 mod N, so
with N > 1 every call crosses nodes (the event goes over Redis to the callee's node).

Then it reads steps from stdin, one per line, and answers each with one JSON line on stdout:
  closed C SECONDS   C calls in flight, a new one as soon as one is answered (a capacity probe)
  open R SECONDS     open loop: a call every 1/R s on a fixed schedule, whatever the answers; an arrival
                     finding --max-in-flight calls unanswered is skipped and counted (the bound)
  quit
Each answer: {"kind", "rate", "concurrency", "window_start", "window_end" (CLOCK_MONOTONIC seconds, the
same clock `ringer-lab bench` samples the server on), "offered", "started", "skipped", "ok", "first_failure",
"post_ms", "incoming_ms", "push_ms" (one latency per call that was answered 201, in ms), "missing_incoming",
"missing_push", "duplicate_push" (VoIP pushes beyond the first seen since the last answer, for this step's
calls or an earlier step's: each call must reach the sandbox exactly once)}. HTTP is aiohttp, WebSockets are websockets (PyPI), the sandbox is read over HTTP/2 with httpx.

Usage: bench_ringing.py --url http://127.0.0.1:PORT [--url …] --admin-key-file FILE --sandbox-url https://127.0.0.1:P
                        --ca-file ca.pem --bundle-id ID --prefix run1- [--pairs 100]
                        [--connections 64] [--max-in-flight 2000] [--source 127.0.0.1] [--request-timeout 10]
"""
import argparse
import asyncio
import base64
import itertools
import json
import secrets
import ssl
import sys
import time

import aiohttp
import httpx
from websockets.asyncio.client import connect

from burst import post_ringing_call

SETUP_TIMEOUT = 120.0    # seconds a set-up request may take: a server with thousands of idle sockets is slow
SETTLE_TIMEOUT = 5.0     # seconds to wait, after a step, for the last events and pushes


def emit(line):
    sys.stdout.write(json.dumps(line) + "\n")
    sys.stdout.flush()


class Calls:
    """Everything one step recorded, keyed by call id."""

    def __init__(self):
        self.started = {}      # call id -> wall-clock seconds the POST began
        self.post_ms = []
        self.first_failure = None
        self.ok = 0
        self.attempts = 0


async def run(args):
    admin_key = open(args.admin_key_file).read().strip()
    urls = args.url
    incoming = {}   # call id -> wall-clock seconds `call.incoming` reached the callee's socket
    connector = aiohttp.TCPConnector(limit=args.connections, local_addr=(args.source, 0))
    session = aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=args.request_timeout))
    setup_timeout = aiohttp.ClientTimeout(total=SETUP_TIMEOUT)
    sandbox = httpx.AsyncClient(http2=True, verify=ssl.create_default_context(cafile=args.ca_file), timeout=30)
    pushes_seen = 0
    push_at = {}    # call id -> the sandbox's received_at, wall-clock seconds
    push_count = {}  # call id -> VoIP pushes the sandbox accepted for it
    placed = set()   # every call id answered 201 so far, for duplicates that come a step late
    duplicates_reported = 0

    async def user_token(user, url):
        async with session.post(f"{url}/v1/tokens", json={"user_id": user, "ttl_seconds": 86400},
                                headers={"authorization": f"Bearer {admin_key}"}, timeout=setup_timeout) as response:
            if response.status != 201:
                raise SystemExit(f"POST /v1/tokens answered {response.status}")
            return (await response.json())["token"]

    async def listen(socket):
        async for message in socket:
            event = json.loads(message)
            if event.get("type") == "call.incoming":
                incoming.setdefault(event["call"]["call_id"], time.time())

    async def open_socket(user, bearer, url):
        ws_base = url.replace("http://", "ws://", 1)
        socket = await connect(f"{ws_base}/v1/events?device_id={user}-phone",
                               additional_headers={"authorization": f"Bearer {bearer}"},
                               ping_interval=None, open_timeout=SETUP_TIMEOUT, local_addr=(args.source, 0))
        asyncio.ensure_future(listen(socket))
        return socket

    async def set_up(index):
        caller, callee = f"{args.prefix}caller-{index}", f"{args.prefix}callee-{index}"
        caller_url, callee_url = urls[index % len(urls)], urls[(index + 1) % len(urls)]
        caller_token, callee_token = await user_token(caller, caller_url), await user_token(callee, callee_url)
        voip_token = secrets.token_hex(32)
        registered = await sandbox.post(f"{args.sandbox_url}/sandbox/devices",
                                        json={"token": voip_token, "bundle_id": args.bundle_id})
        if registered.status_code != 201:
            raise SystemExit(f"POST /sandbox/devices answered {registered.status_code}")
        device = {"platform": "ios", "voip_token": voip_token, "apns_environment": "sandbox",
                  "bundle_id": args.bundle_id}
        async with session.put(f"{callee_url}/v1/devices/{callee}-phone", json=device,
                               headers={"authorization": f"Bearer {callee_token}"}, timeout=setup_timeout) as response:
            if response.status != 200:
                raise SystemExit(f"PUT /v1/devices answered {response.status}: {await response.text()}")
        await open_socket(caller, caller_token, caller_url)
        await open_socket(callee, callee_token, callee_url)
        return caller_token, callee, caller_url

    pairs = await asyncio.gather(*(set_up(index) for index in range(args.pairs)))
    emit({"ready": True, "sockets": 2 * args.pairs})
    next_pair = itertools.cycle(pairs)

    async def place(calls):
        caller_token, callee, url = next(next_pair)
        calls.attempts += 1
        began, clock = time.time(), time.monotonic()
        try:
            call = await post_ringing_call(session, url, caller_token, {"callee": callee, "has_video": False})
        except Exception as error:
            if calls.first_failure is None:
                calls.first_failure = f"{type(error).__name__}: {error}"[:300]
            return
        calls.post_ms.append((time.monotonic() - clock) * 1000)
        calls.started[call["call_id"]] = began
        calls.ok += 1

    async def fetch_pushes():
        nonlocal pushes_seen
        response = await sandbox.get(f"{args.sandbox_url}/sandbox/pushes", params={"since": pushes_seen})
        response.raise_for_status()
        listed = response.json()
        pushes_seen += len(listed)
        for push in listed:
            ringer = json.loads(base64.b64decode(push["payload"])).get("ringer", {})
            if ringer.get("type") == "call.incoming":
                push_at.setdefault(ringer["call_id"], push["received_at"] / 1000)
                push_count[ringer["call_id"]] = push_count.get(ringer["call_id"], 0) + 1

    async def step(kind, amount, seconds):
        nonlocal duplicates_reported
        calls = Calls()
        running = set()
        offered = skipped = 0
        start = time.monotonic()
        end = start + seconds
        if kind == "closed":
            async def worker():
                while time.monotonic() < end:
                    await place(calls)
            await asyncio.gather(*(worker() for _ in range(int(amount))))
            offered = calls.attempts
        else:
            interval = 1.0 / amount
            while True:
                now = time.monotonic()
                due = min(int((now - start) / interval) + 1, int(seconds * amount))
                while offered < due:
                    offered += 1
                    if len(running) >= args.max_in_flight:
                        skipped += 1
                        continue
                    task = asyncio.ensure_future(place(calls))
                    running.add(task)
                    task.add_done_callback(running.discard)
                if offered >= int(seconds * amount):
                    break
                await asyncio.sleep(max(0.0, start + offered * interval - time.monotonic()))
            if running:
                await asyncio.wait(running, timeout=args.request_timeout + 1)
        window_end = time.monotonic()
        settle = time.monotonic() + SETTLE_TIMEOUT
        while time.monotonic() < settle:
            await fetch_pushes()
            if all(call in incoming and call in push_at for call in calls.started):
                break
            await asyncio.sleep(0.2)
        # A second push for a call comes, if at all, right after the first: one more look catches it.
        await asyncio.sleep(0.5)
        await fetch_pushes()
        placed.update(calls.started)
        duplicates = sum(push_count[c] - 1 for c in placed if push_count.get(c, 0) > 1)
        incoming_ms = [(incoming[c] - t) * 1000 for c, t in calls.started.items() if c in incoming]
        push_ms = [(push_at[c] - t) * 1000 for c, t in calls.started.items() if c in push_at]
        emit({"kind": kind, "rate": amount if kind == "open" else None,
              "concurrency": int(amount) if kind == "closed" else None,
              "window_start": start, "window_end": window_end, "offered": offered,
              "started": offered - skipped, "skipped": skipped, "ok": calls.ok, "first_failure": calls.first_failure,
              "post_ms": calls.post_ms, "incoming_ms": incoming_ms, "push_ms": push_ms,
              "missing_incoming": calls.ok - len(incoming_ms), "missing_push": calls.ok - len(push_ms),
              "duplicate_push": duplicates - duplicates_reported})
        duplicates_reported = duplicates

    reader = asyncio.StreamReader()
    await asyncio.get_running_loop().connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while True:
        line = (await reader.readline()).decode().split()
        if not line or line[0] == "quit":
            break
        if line[0] not in ("open", "closed") or len(line) != 3:
            emit({"error": f"unknown step {' '.join(line)!r}"})
            continue
        await step(line[0], float(line[1]), float(line[2]))
    await sandbox.aclose()
    await session.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True, action="append", help="a node's base URL; repeat for a cluster")
    parser.add_argument("--admin-key-file", required=True)
    parser.add_argument("--sandbox-url", required=True)
    parser.add_argument("--ca-file", required=True)
    parser.add_argument("--bundle-id", required=True)
    parser.add_argument("--prefix", required=True)
    parser.add_argument("--pairs", type=int, default=100)
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--max-in-flight", type=int, default=2000)
    parser.add_argument("--source", default="127.0.0.1")
    parser.add_argument("--request-timeout", type=float, default=10.0,
                        help="seconds a POST /v1/calls may take before it counts as failed")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()

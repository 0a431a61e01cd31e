#!/usr/bin/env python3
"""The load generator of `ringer-lab bench --only group` (issue 30): CALLS group calls placed at once, each to CALLEES
callees with three devices each, then one answer per call, and what reached every device before and after its leg
ended.

Each callee has, all through the public API:
  an iPhone whose app was killed: a VoIP token and an ordinary APNs token registered with the APNs sandbox and with
    Ringer (platform ios);
  an Android phone whose app was swiped away: an FCM registration token registered with the FCM sandbox and Ringer;
  an app on screen holding /v1/events (`?device_id=<callee>-tab`).
Callers are users with a token only. The burst's POSTs (`{"callees": [...]}`, first_answer) come from --placers
processes that start at one instant. Once every device rang (or --settle seconds passed), the first callee of each
call answers from its socket device, all at once; under first_answer every other leg then ends `cancelled`. The
sandboxes and sockets are then watched for --watch seconds: a ringing push or `call.incoming` that reaches a device
after its leg ended (the leg's `ended_at`, read back by the caller) is a ring after the end.

It prints one JSON line:
  {"calls", "callees_per_call", "devices_per_callee", "ok" (calls answered 201 ringing), "first_failure",
   "window_start", "window_end" (CLOCK_MONOTONIC seconds: the burst's first POST and its last answer),
   "post_ms" (POST -> 201), "push_queue_ms" (the call's `created_at` -> the provider's receipt of each ringing VoIP
   push and FCM message; "apns_queue_ms" and "fcm_queue_ms" by provider), "socket_ms" (`created_at` ->
   `call.incoming` on each socket), "last_ring_ms" (the burst's first POST -> the last device reached), "expected",
   "reached", "lost", "duplicates", "strays" (a ring for a call its user is not rung in), "answered" (accepts
   answered 200), "stop_expected" (devices of the legs the answers ended), "stopped" (of those, told to stop: an
   APNs background push, an FCM message or `call.answered_elsewhere` on the socket), "rung_after_end",
   "apns_pushes", "fcm_messages", "socket_events"}.

Usage: bench_group.py --url http://127.0.0.1:PORT --admin-key-file FILE --sandbox-url https://127.0.0.1:P
                      --fcm-sandbox-url https://127.0.0.1:Q --ca-file ca.pem --bundle-id ID --fcm-project P
                      [--calls 200] [--callees 8] [--connections 64] [--placers 4] [--settle 30] [--watch 5]
"""
import argparse
import asyncio
import base64
import collections
import concurrent.futures
import json
import multiprocessing
import secrets
import ssl
import string
import sys
import time
from datetime import datetime

import aiohttp
import httpx
from websockets.asyncio.client import connect

DEVICES = 3              # an iPhone (VoIP push), an Android phone (FCM), an app on screen (socket)
SETUP_TIMEOUT = 120.0    # seconds one set-up request may take
SETUP_PARALLEL = 64      # callees set up at once
STOPS = {"call.answered_elsewhere", "call.cancelled"}


def fcm_token():
    """A registration token shaped like FCM's: `<instance id>:APA91b<base64url>`."""
    alphabet = string.ascii_letters + string.digits + "-_"
    return "".join(secrets.choice(alphabet) for _ in range(22)) + ":APA91b" + \
        "".join(secrets.choice(alphabet) for _ in range(134))


def parse_time(text):
    """A time as the API writes it (RFC 3339), in seconds since 1970."""
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


async def run(args):
    admin_key = open(args.admin_key_file).read().strip()
    ws_base = args.url.replace("http://", "ws://", 1)
    connector = aiohttp.TCPConnector(limit=args.connections)
    session = aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=SETUP_TIMEOUT))
    tls = ssl.create_default_context(cafile=args.ca_file)
    apns = httpx.AsyncClient(http2=True, verify=tls, timeout=60)
    fcm = httpx.AsyncClient(http2=True, verify=tls, timeout=60)
    owner = {}           # push token -> (callee, device id)
    rings = []           # (call id, callee, device id, kind, wall-clock second): ringing deliveries, as they arrive
    stops = []           # (call id, callee, device id): deliveries telling a device to stop
    tokens = {}          # user -> token

    async def user_token(user):
        async with session.post(f"{args.url}/v1/tokens", json={"user_id": user, "ttl_seconds": 86400},
                                headers={"authorization": f"Bearer {admin_key}"}) as response:
            if response.status != 201:
                raise SystemExit(f"POST /v1/tokens answered {response.status}")
            token = (await response.json())["token"]
            tokens[user] = token
            return token

    async def put_device(bearer, device_id, body):
        async with session.put(f"{args.url}/v1/devices/{device_id}", json=body,
                               headers={"authorization": f"Bearer {bearer}"}) as response:
            if response.status != 200:
                raise SystemExit(f"PUT /v1/devices answered {response.status}: {await response.text()}")

    async def listen(socket, device):
        async for message in socket:
            event = json.loads(message)
            kind = event.get("type")
            if kind == "call.incoming":
                rings.append((event["call"]["call_id"], device[0], device[1], "socket", time.time()))
            elif kind in STOPS:
                stops.append((event["call"]["call_id"], device[0], device[1]))

    async def set_up(callee, gate):
        async with gate:
            bearer = await user_token(callee)
            # The iPhone has both tokens, as RingerKit registers them: the VoIP token rings it, the ordinary one
            # carries the background push that stops it when its leg ends.
            voip, alerts = secrets.token_hex(32), secrets.token_hex(32)
            for token in (voip, alerts):
                registered = await apns.post(f"{args.sandbox_url}/sandbox/devices",
                                             json={"token": token, "bundle_id": args.bundle_id})
                if registered.status_code != 201:
                    raise SystemExit(f"APNs POST /sandbox/devices answered {registered.status_code}")
                owner[token] = (callee, f"{callee}-iphone")
            await put_device(bearer, f"{callee}-iphone", {"platform": "ios", "voip_token": voip, "apns_token": alerts,
                                                          "apns_environment": "sandbox",
                                                          "bundle_id": args.bundle_id})
            token = fcm_token()
            registered = await fcm.post(f"{args.fcm_sandbox_url}/sandbox/devices",
                                        json={"token": token, "project_id": args.fcm_project})
            if registered.status_code != 201:
                raise SystemExit(f"FCM POST /sandbox/devices answered {registered.status_code}")
            await put_device(bearer, f"{callee}-pixel", {"platform": "android", "fcm_token": token})
            owner[token] = (callee, f"{callee}-pixel")
            socket = await connect(f"{ws_base}/v1/events?device_id={callee}-tab",
                                   additional_headers={"authorization": f"Bearer {bearer}"},
                                   ping_interval=None, open_timeout=SETUP_TIMEOUT)
            asyncio.ensure_future(listen(socket, (callee, f"{callee}-tab")))

    gate = asyncio.Semaphore(SETUP_PARALLEL)
    groups = [[f"{args.prefix}callee-{index}-{k}" for k in range(args.callees)] for index in range(args.calls)]
    await asyncio.gather(*(set_up(callee, gate) for group in groups for callee in group))
    callers = [await user_token(f"{args.prefix}caller-{index}") for index in range(args.calls)]
    print(f"set up {args.calls * args.callees} callees with {DEVICES} devices each", file=sys.stderr)

    slices = [list(zip(callers, groups))[index::args.placers] for index in range(args.placers)]
    start_at = time.time() + 2.0
    loop = asyncio.get_running_loop()
    with concurrent.futures.ProcessPoolExecutor(max_workers=args.placers,
                                                mp_context=multiprocessing.get_context("spawn")) as pool:
        answers = await asyncio.gather(*(loop.run_in_executor(pool, place_slice, args.url, part, start_at,
                                                              args.connections, args.settle) for part in slices))
    post_ms, failure, callees_of, created, caller_of = [], None, {}, {}, {}
    window_start = min(answer["window_start"] for answer in answers)
    window_end = max(answer["window_end"] for answer in answers)
    burst_wall = min(answer["burst_wall"] for answer in answers)
    for answer in answers:
        post_ms += answer["post_ms"]
        failure = failure or answer["first_failure"]
        for call_id, caller_token, callees, created_at in answer["calls"]:
            callees_of[call_id] = callees
            created[call_id] = created_at
            caller_of[call_id] = caller_token

    apns_read = fcm_read = 0

    async def poll():
        nonlocal apns_read, fcm_read
        pushes = (await apns.get(f"{args.sandbox_url}/sandbox/pushes", params={"since": apns_read})).json()
        apns_read += len(pushes)
        for push in pushes:
            ringer = json.loads(base64.b64decode(push["payload"])).get("ringer", {})
            device = owner.get(push["device_token"])
            if not device:
                continue
            if ringer.get("type") == "call.incoming":
                rings.append((ringer["call_id"], device[0], device[1], "apns", push["received_at"] / 1000))
            elif ringer.get("type") in STOPS:
                stops.append((ringer["call_id"], device[0], device[1]))
        messages = (await fcm.get(f"{args.fcm_sandbox_url}/sandbox/messages", params={"since": fcm_read})).json()
        fcm_read += len(messages)
        for message in messages:
            ringer = json.loads(message.get("data", {}).get("ringer", "{}"))
            device = owner.get(message["token"])
            if not device:
                continue
            if ringer.get("type") == "call.incoming":
                rings.append((ringer["call_id"], device[0], device[1], "fcm", message["accepted_at"] / 1000))
            elif ringer.get("type") in STOPS:
                stops.append((ringer["call_id"], device[0], device[1]))

    expected = len(callees_of) * args.callees * DEVICES
    settle = time.monotonic() + args.settle
    while True:
        await poll()
        if len({(ring[0], ring[2]) for ring in rings}) >= expected or time.monotonic() > settle:
            break
        await asyncio.sleep(0.25)

    # One answer per call, all at once: the first callee from its socket device.
    answered = 0

    async def accept(call_id):
        nonlocal answered
        callee = callees_of[call_id][0]
        async with session.post(f"{args.url}/v1/calls/{call_id}/accept", json={"device_id": f"{callee}-tab"},
                                headers={"authorization": f"Bearer {tokens[callee]}"}) as response:
            if response.status == 200:
                answered += 1
    await asyncio.gather(*(accept(call_id) for call_id in callees_of))

    watch = time.monotonic() + args.watch
    while time.monotonic() < watch:
        await poll()
        await asyncio.sleep(0.25)
    await poll()

    # Each leg's end, as the caller reads the call.
    ended = {}           # (call id, callee) -> wall-clock second the leg ended
    async def read(call_id):
        async with session.get(f"{args.url}/v1/calls/{call_id}",
                               headers={"authorization": f"Bearer {caller_of[call_id]}"}) as response:
            if response.status != 200:
                return
            for leg in (await response.json()).get("legs", []):
                if leg.get("ended_at"):
                    ended[(call_id, leg["user"]["id"])] = parse_time(leg["ended_at"])
    await asyncio.gather(*(read(call_id) for call_id in callees_of))

    reached = collections.Counter()
    first = {}
    strays = rung_after_end = 0
    kinds = collections.Counter(ring[3] for ring in rings)
    for call_id, user, device_id, kind, when in rings:
        if user not in callees_of.get(call_id, []):
            strays += 1
            continue
        reached[(call_id, device_id)] += 1
        first.setdefault((call_id, device_id), (when, kind))
        end = ended.get((call_id, user))
        if end is not None and when > end:
            rung_after_end += 1

    push_queue_ms, apns_queue_ms, fcm_queue_ms, socket_ms = [], [], [], []
    for (call_id, device_id), (when, kind) in first.items():
        waited = (when - created[call_id]) * 1000
        if kind == "socket":
            socket_ms.append(waited)
            continue
        push_queue_ms.append(waited)
        (apns_queue_ms if kind == "apns" else fcm_queue_ms).append(waited)

    # The devices of every leg an answer ended (all callees but the first), and which were told to stop.
    stop_expected = {(call_id, callee, f"{callee}-{kind}") for call_id, callees in callees_of.items()
                     for callee in callees[1:] for kind in ("iphone", "pixel", "tab")}
    stopped = len(stop_expected & set(stops))
    total = args.calls * args.callees * DEVICES
    print(json.dumps({
        "calls": args.calls, "callees_per_call": args.callees, "devices_per_callee": DEVICES,
        "ok": len(callees_of), "first_failure": failure, "window_start": window_start, "window_end": window_end,
        "post_ms": post_ms, "push_queue_ms": push_queue_ms, "apns_queue_ms": apns_queue_ms,
        "fcm_queue_ms": fcm_queue_ms, "socket_ms": socket_ms,
        "last_ring_ms": (max(when for when, _ in first.values()) - burst_wall) * 1000 if first else None,
        "expected": total, "reached": len(reached), "lost": total - len(reached),
        "duplicates": sum(count - 1 for count in reached.values()), "strays": strays, "answered": answered,
        "stop_expected": len(stop_expected), "stopped": stopped, "rung_after_end": rung_after_end,
        "apns_pushes": kinds["apns"], "fcm_messages": kinds["fcm"], "socket_events": kinds["socket"]}))
    sys.stdout.flush()
    await apns.aclose()
    await fcm.aclose()
    await session.close()


def place_slice(url, pairs, start_at, connections, timeout):
    """A placer process: POSTs one group call per (caller token, callees) pair, all at once from `start_at`."""
    return asyncio.run(place_all(url, pairs, start_at, connections, timeout))


async def place_all(url, pairs, start_at, connections, timeout):
    answer = {"post_ms": [], "first_failure": None, "calls": []}
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=connections),
                                     timeout=aiohttp.ClientTimeout(total=timeout)) as session:
        async def place(caller_token, callees):
            start = time.monotonic()
            try:
                async with session.post(f"{url}/v1/calls", json={"callees": callees},
                                        headers={"authorization": f"Bearer {caller_token}"}) as response:
                    body = await response.read()
                    if response.status != 201:
                        raise RuntimeError(f"POST /v1/calls answered {response.status}: {body[:200]!r}")
                    call = json.loads(body)
                    if call.get("state") != "ringing":
                        raise RuntimeError(f"the call is {call.get('state')}, not ringing")
            except Exception as error:
                answer["first_failure"] = answer["first_failure"] or f"{type(error).__name__}: {error}"[:300]
                return
            answer["post_ms"].append((time.monotonic() - start) * 1000)
            answer["calls"].append((call["call_id"], caller_token, callees, parse_time(call["created_at"])))

        await asyncio.sleep(max(0.0, start_at - time.time()))
        answer["burst_wall"], answer["window_start"] = time.time(), time.monotonic()
        await asyncio.gather(*(place(token, callees) for token, callees in pairs))
        answer["window_end"] = time.monotonic()
    return answer


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--admin-key-file", required=True)
    parser.add_argument("--sandbox-url", required=True)
    parser.add_argument("--fcm-sandbox-url", required=True)
    parser.add_argument("--ca-file", required=True)
    parser.add_argument("--bundle-id", required=True)
    parser.add_argument("--fcm-project", required=True)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--callees", type=int, default=8)
    parser.add_argument("--connections", type=int, default=64, help="HTTP connections per process")
    parser.add_argument("--placers", type=int, default=4, help="processes that place the burst's calls")
    parser.add_argument("--settle", type=float, default=30.0,
                        help="seconds to wait for every device to ring, and for one POST")
    parser.add_argument("--watch", type=float, default=5.0, help="seconds to watch after the answers")
    parser.add_argument("--prefix", default="grp-")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()

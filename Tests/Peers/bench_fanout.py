#!/usr/bin/env python3
"""The load generator of `ringer-lab bench --only fanout`: CALLS callees with ten devices each, then one burst of
CALLS calls placed at once, one to each callee, and what reached each of the 10 x CALLS devices.

Each callee has, all through the public API:
  4 iPhones whose app was killed: a VoIP token registered with the APNs sandbox (`POST /sandbox/devices`) and
    with Ringer (`PUT /v1/devices/<callee>-iphone-<k>`, platform ios): only a VoIP push reaches them;
  3 Android phones whose app was swiped away: an FCM registration token registered with the FCM sandbox and
    with Ringer (platform android): only a high-priority data message reaches them;
  3 apps on screen holding /v1/events (`?device_id=<callee>-tab-<k>`): only `call.incoming` reaches them.
Callers are users with a token only. Calls stay ringing (the server runs with a long --ring-timeout). The
burst's POSTs come from --placers processes that start at one instant, so this process (which holds the
3 x CALLS sockets and polls the sandboxes) does not pace them.

After the burst it polls the sandboxes (`GET /sandbox/pushes?since=N`, `GET /sandbox/messages?since=N`) and
reads the sockets until every device has rung or --settle seconds pass, and prints one JSON line:
  {"calls", "devices_per_call", "ok" (calls answered 201 ringing), "first_failure", "window_start",
   "window_end" (CLOCK_MONOTONIC seconds: the burst's first POST and its last answer), "post_ms" (POST ->
   201, one per call), "push_queue_ms" (the call's `created_at`, when the server decided to ring, -> the
   provider's receipt of each VoIP push and FCM message: the sandboxes' `received_at` / `accepted_at`;
   "apns_queue_ms" and "fcm_queue_ms" the same by provider),
   "socket_ms" (`created_at` -> `call.incoming` read on each socket), "push_ms" (POST began -> receipt),
   "last_ring_ms" (the burst's first POST -> the last device reached), "expected", "reached", "lost",
   "duplicates" (a device reached more than once for one call), "strays" (a ring for a call that is not its
   user's), "apns_pushes", "fcm_messages", "socket_events"}.
Wall-clock times all come from this machine's one clock (server, sandboxes and this process share it).

Usage: bench_fanout.py --url http://127.0.0.1:PORT --admin-key-file FILE --sandbox-url https://127.0.0.1:P
                       --fcm-sandbox-url https://127.0.0.1:Q --ca-file ca.pem --bundle-id ID --fcm-project P
                       [--calls 1000] [--connections 64] [--placers 4] [--settle 30] [--prefix fan-]
"""
import argparse
import asyncio
import collections
import json
import sys
import time

from burst import Deliveries, Setup, add_burst_arguments, burst, poll_until

IPHONES, ANDROIDS, SCREENS = 4, 3, 3
SETUP_PARALLEL = 64     # callees set up at once


async def run(args):
    setup = Setup(args)
    owner = {}          # push token -> (callee, device id)
    rings = []          # (call id, callee, device id, kind, wall-clock second), as they arrive
    callee_of_call = {}  # call id -> callee
    created = {}         # call id -> created_at, wall-clock seconds
    began = {}           # call id -> wall-clock second its POST began

    def reach(call_id, device, kind, when):
        rings.append((call_id, device[0], device[1], kind, when))

    async def listen(socket, device):
        async for message in socket:
            event = json.loads(message)
            if event.get("type") == "call.incoming":
                reach(event["call"]["call_id"], device, "socket", time.time())

    async def set_up(index, gate):
        async with gate:
            callee = f"{args.prefix}callee-{index}"
            bearer = await setup.user_token(callee)
            for k in range(IPHONES):
                device_id, token = f"{callee}-iphone-{k}", await setup.apns_device()
                await setup.put_device(bearer, device_id, {"platform": "ios", "voip_token": token,
                                                           "apns_environment": "sandbox", "bundle_id": args.bundle_id})
                owner[token] = (callee, device_id)
            for k in range(ANDROIDS):
                device_id, token = f"{callee}-pixel-{k}", await setup.fcm_device()
                await setup.put_device(bearer, device_id, {"platform": "android", "fcm_token": token})
                owner[token] = (callee, device_id)
            for k in range(SCREENS):
                device_id = f"{callee}-tab-{k}"
                socket = await setup.events(bearer, device_id)
                asyncio.ensure_future(listen(socket, (callee, device_id)))
            caller = f"{args.prefix}caller-{index}"
            return await setup.user_token(caller), callee

    gate = asyncio.Semaphore(SETUP_PARALLEL)
    pairs = await asyncio.gather(*(set_up(index, gate) for index in range(args.calls)))
    print(f"set up {args.calls} callees with {IPHONES + ANDROIDS + SCREENS} devices each", file=sys.stderr)

    # The burst: the calls split over --placers processes (each its own event loop and connection pool), all
    # starting at one instant, so this process's own work (sockets, sandbox polls) does not pace the POSTs.
    placed = await burst(args, pairs, "callee")
    post_ms, failure = placed["post_ms"], placed["first_failure"]
    window_start, window_end, burst_wall = placed["window_start"], placed["window_end"], placed["burst_wall"]
    for call_id, _, callee, created_at, began_at in placed["calls"]:
        callee_of_call[call_id] = callee
        created[call_id] = created_at
        began[call_id] = began_at

    deliveries = Deliveries(setup.apns, setup.fcm, args)

    async def poll():
        for ringer, token, kind, when in await deliveries.new():
            device = owner.get(token)
            if device and ringer.get("type") == "call.incoming":
                reach(ringer["call_id"], device, kind, when)

    expected = len(callee_of_call) * (IPHONES + ANDROIDS + SCREENS)
    await poll_until(poll, lambda: len({(ring[0], ring[2]) for ring in rings}) >= expected, args.settle)

    reached = collections.Counter()   # (call id, device id) -> times reached
    at = {}             # (call id, device id) -> first wall-clock second it was reached
    kinds = collections.Counter(ring[3] for ring in rings)
    strays = 0
    for call_id, user, device_id, _, when in rings:
        if callee_of_call.get(call_id) != user:
            strays += 1
            continue
        reached[(call_id, device_id)] += 1
        at.setdefault((call_id, device_id), when)

    push_queue_ms, push_ms, socket_ms, apns_queue_ms, fcm_queue_ms = [], [], [], [], []
    for (call_id, device_id), when in at.items():
        if call_id not in created:
            continue
        waited = (when - created[call_id]) * 1000
        if "-tab-" in device_id:
            socket_ms.append(waited)
            continue
        push_queue_ms.append(waited)
        (fcm_queue_ms if "-pixel-" in device_id else apns_queue_ms).append(waited)
        push_ms.append((when - began[call_id]) * 1000)
    print(json.dumps({
        "calls": args.calls, "devices_per_call": IPHONES + ANDROIDS + SCREENS, "ok": len(callee_of_call),
        "first_failure": failure, "window_start": window_start, "window_end": window_end, "post_ms": post_ms,
        "push_queue_ms": push_queue_ms, "apns_queue_ms": apns_queue_ms, "fcm_queue_ms": fcm_queue_ms,
        "socket_ms": socket_ms, "push_ms": push_ms,
        "last_ring_ms": (max(at.values()) - burst_wall) * 1000 if at else None,
        "expected": args.calls * (IPHONES + ANDROIDS + SCREENS), "reached": len(reached),
        "lost": args.calls * (IPHONES + ANDROIDS + SCREENS) - len(reached),
        "duplicates": sum(count - 1 for count in reached.values()), "strays": strays,
        "apns_pushes": kinds["apns"], "fcm_messages": kinds["fcm"], "socket_events": kinds["socket"]}))
    sys.stdout.flush()
    await setup.close()


def main():
    parser = argparse.ArgumentParser()
    add_burst_arguments(parser, calls=1000, prefix="fan-")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()

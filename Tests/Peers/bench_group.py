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
import collections
import json
import sys
import time

from burst import Deliveries, Setup, add_burst_arguments, burst, parse_time, poll_until

DEVICES = 3              # an iPhone (VoIP push), an Android phone (FCM), an app on screen (socket)
SETUP_PARALLEL = 64      # callees set up at once
STOPS = {"call.answered_elsewhere", "call.cancelled"}


async def run(args):
    setup = Setup(args)
    session = setup.session
    owner = {}           # push token -> (callee, device id)
    rings = []           # (call id, callee, device id, kind, wall-clock second): ringing deliveries, as they arrive
    stops = []           # (call id, callee, device id): deliveries telling a device to stop
    tokens = {}          # user -> token

    async def user_token(user):
        tokens[user] = await setup.user_token(user)
        return tokens[user]

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
            voip, alerts = await setup.apns_device(), await setup.apns_device()
            for token in (voip, alerts):
                owner[token] = (callee, f"{callee}-iphone")
            await setup.put_device(bearer, f"{callee}-iphone", {"platform": "ios", "voip_token": voip,
                                                                "apns_token": alerts, "apns_environment": "sandbox",
                                                                "bundle_id": args.bundle_id})
            token = await setup.fcm_device()
            await setup.put_device(bearer, f"{callee}-pixel", {"platform": "android", "fcm_token": token})
            owner[token] = (callee, f"{callee}-pixel")
            socket = await setup.events(bearer, f"{callee}-tab")
            asyncio.ensure_future(listen(socket, (callee, f"{callee}-tab")))

    gate = asyncio.Semaphore(SETUP_PARALLEL)
    groups = [[f"{args.prefix}callee-{index}-{k}" for k in range(args.callees)] for index in range(args.calls)]
    await asyncio.gather(*(set_up(callee, gate) for group in groups for callee in group))
    callers = [await user_token(f"{args.prefix}caller-{index}") for index in range(args.calls)]
    print(f"set up {args.calls * args.callees} callees with {DEVICES} devices each", file=sys.stderr)

    placed = await burst(args, list(zip(callers, groups)), "callees")
    post_ms, failure, callees_of, created, caller_of = placed["post_ms"], placed["first_failure"], {}, {}, {}
    window_start, window_end, burst_wall = placed["window_start"], placed["window_end"], placed["burst_wall"]
    for call_id, caller_token, callees, created_at, _ in placed["calls"]:
        callees_of[call_id] = callees
        created[call_id] = created_at
        caller_of[call_id] = caller_token

    deliveries = Deliveries(setup.apns, setup.fcm, args)

    async def poll():
        for ringer, token, kind, when in await deliveries.new():
            device = owner.get(token)
            if not device:
                continue
            if ringer.get("type") == "call.incoming":
                rings.append((ringer["call_id"], device[0], device[1], kind, when))
            elif ringer.get("type") in STOPS:
                stops.append((ringer["call_id"], device[0], device[1]))

    expected = len(callees_of) * args.callees * DEVICES
    await poll_until(poll, lambda: len({(ring[0], ring[2]) for ring in rings}) >= expected, args.settle)

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
    await setup.close()


def main():
    parser = argparse.ArgumentParser()
    add_burst_arguments(parser, calls=200, prefix="grp-")
    parser.add_argument("--callees", type=int, default=8)
    parser.add_argument("--watch", type=float, default=5.0, help="seconds to watch after the answers")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The aioapns side of `ringer-lab bench`: sends the benchmark's workload of VoIP pushes to Ringer's APNs sandbox
with aioapns (PyPI), over one connection, a fixed number in flight, and prints one JSON line with the figures.

aioapns is unmodified; only its server constants are pointed at the sandbox (host "localhost", the sandbox
port) and its TLS context trusts the sandbox's CA, as apns_client_peer.py does. max_connections=1 keeps it
on one HTTP/2 connection, like Ringer's client; every other setting is aioapns' default. In particular
max_connection_attempts stays 5: aioapns does not wait for HTTP/2 flow-control window, so when the
connection's send window runs out it gets FlowControlError, sleeps 1 s and sends that push again.

Usage: bench_aioapns.py --port P --ca CA.pem --key AuthKey.p8 --key-id K --team-id T --token HEX --topic T
                        --payload-file payload.json --pushes N --concurrency C
Prints {"sender", "pushes", "accepted", "first_failure", "seconds", "p50_ms", "p99_ms"}.
"""
import argparse
import asyncio
import importlib.metadata
import json
import math
import ssl
import time

from aioapns import APNs, NotificationRequest, PushType
from aioapns.connection import APNsDevelopmentClientProtocol, APNsProductionClientProtocol


def percentile(fraction, ordered):
    """Nearest rank, as Ringer's SenderReport computes it."""
    if not ordered:
        return 0.0
    rank = max(1, min(len(ordered), math.ceil(fraction * len(ordered))))
    return ordered[rank - 1]


async def run(args):
    for protocol in (APNsDevelopmentClientProtocol, APNsProductionClientProtocol):
        protocol.APNS_SERVER = "localhost"
        protocol.APNS_PORT = args.port
    client = APNs(key=open(args.key).read(), key_id=args.key_id, team_id=args.team_id, topic=args.topic,
                  use_sandbox=True, ssl_context=ssl.create_default_context(cafile=args.ca),
                  max_connections=1)
    with open(args.payload_file, "rb") as file:
        message = json.loads(file.read())

    latencies = []
    outcome = {"accepted": 0, "first_failure": None}
    remaining = args.pushes

    async def worker():
        nonlocal remaining
        while remaining > 0:
            remaining -= 1
            started = time.perf_counter()
            try:
                request = NotificationRequest(args.token, message, push_type=PushType.VOIP, priority=10,
                                              time_to_live=45)
                result = await client.send_notification(request)
                failure = None if result.is_successful else f"{result.status} {result.description}"
            except Exception as error:  # a transport failure counts as a refused push, like Ringer's side
                failure = repr(error)
            latencies.append(time.perf_counter() - started)
            if failure is None:
                outcome["accepted"] += 1
            elif outcome["first_failure"] is None:
                outcome["first_failure"] = failure

    began = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(min(args.concurrency, args.pushes))))
    seconds = time.perf_counter() - began
    latencies.sort()
    print(json.dumps({"sender": "aioapns " + importlib.metadata.version("aioapns"), "pushes": args.pushes,
                      "accepted": outcome["accepted"], "first_failure": outcome["first_failure"], "seconds": seconds,
                      "p50_ms": percentile(0.50, latencies) * 1000, "p99_ms": percentile(0.99, latencies) * 1000}),
          flush=True)


def main():
    parser = argparse.ArgumentParser()
    for name in ("--port", "--pushes", "--concurrency"):
        parser.add_argument(name, required=True, type=int)
    for name in ("--ca", "--key", "--key-id", "--team-id", "--token", "--topic", "--payload-file"):
        parser.add_argument(name, required=True)
    asyncio.run(run(parser.parse_args()))


main()

#!/usr/bin/env python3
"""The firebase-admin side of `ringer bench`: sends the benchmark's workload of ringing messages to Ringer's
FCM sandbox with firebase-admin (PyPI), a fixed number in flight, and prints one JSON line with the figures.

firebase-admin is unmodified. As in fcm_firebase_admin_peer.py, its credentials come from a throw-away
service-account file whose token_uri points at the sandbox (google-auth makes the grant there), and its
hard-coded send URL (_MessagingService.FCM_URL) is replaced at run time, before the app is created, by the
sandbox's, as the APNs benchmark points aioapns at the APNs sandbox. The sandbox's CA is trusted through
SSL_CERT_FILE (httpx) and REQUESTS_CA_BUNDLE (requests), set here before either library makes a context.

--mode async: messaging.send_each_async (httpx, HTTP/2, to the sandbox's HTTP/2 port), the asynchronous
API firebase-admin offers. N coroutines each await send_each_async for one message, so N messages are in
flight at every moment, as in Ringer's client and the aioapns peer (a server rings one callee's phone per
call); --batches instead hands it lists of N messages, the bulk use it was written for.

--mode sync: messaging.send_each (requests, HTTP/1.1, to the HTTP/1.1 port) with lists of N messages: it
sends each list from a pool of N threads and returns when all are answered. firebase-admin mounts an
HTTPAdapter with 100 pooled connections for Google's host only; the same adapter is mounted for the sandbox's
URL, so it keeps the connections it would keep with Google.

Each message is what Ringer's server sends for a ringing call: data {"ringer": <JSON string>}, android
priority high, ttl 45 s, collapse_key the call id; built per send.

Usage: bench_firebase_admin.py --mode async|sync --port P --ca CA.pem --service-account FILE --token T
                               --ringer-file ringer.json --collapse-key K --pushes N --concurrency C [--batches]
Prints {"sender", "pushes", "accepted", "first_failure", "seconds", "p50_ms", "p99_ms"}.
"""
import argparse
import asyncio
import importlib.metadata
import json
import math
import os
import time


def percentile(fraction, ordered):
    """Nearest rank, as Ringer's SenderReport computes it."""
    if not ordered:
        return 0.0
    rank = max(1, min(len(ordered), math.ceil(fraction * len(ordered))))
    return ordered[rank - 1]


class Tally:
    """Answers counted as Ringer's side counts them: a 200 with a message name is accepted, anything else
    (an exception in the response, a transport error) is a refused message."""

    def __init__(self):
        self.latencies = []
        self.accepted = 0
        self.first_failure = None

    def add(self, seconds, response):
        self.latencies.append(seconds)
        if response.success and response.message_id:
            self.accepted += 1
        elif self.first_failure is None:
            error = response.exception
            self.first_failure = f"{type(error).__name__} {getattr(error, 'code', '')}: {error}"

    def fail(self, seconds, error):
        self.latencies.append(seconds)
        if self.first_failure is None:
            self.first_failure = repr(error)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", required=True, choices=("async", "sync"))
    for name in ("--port", "--pushes", "--concurrency"):
        parser.add_argument(name, required=True, type=int)
    for name in ("--ca", "--service-account", "--token", "--ringer-file", "--collapse-key"):
        parser.add_argument(name, required=True)
    parser.add_argument("--batches", action="store_true")
    args = parser.parse_args()

    os.environ["SSL_CERT_FILE"] = args.ca
    os.environ["REQUESTS_CA_BUNDLE"] = args.ca
    import firebase_admin
    from firebase_admin import credentials, messaging
    from firebase_admin.messaging import _MessagingService

    with open(args.ringer_file, encoding="utf-8") as file:
        ringer = file.read()

    def ringing():
        return messaging.Message(
            token=args.token, data={"ringer": ringer},
            android=messaging.AndroidConfig(priority="high", ttl=45, collapse_key=args.collapse_key))

    origin = f"https://localhost:{args.port}"
    _MessagingService.FCM_URL = origin + "/v1/projects/{0}/messages:send"
    app = firebase_admin.initialize_app(credentials.Certificate(args.service_account), name="bench")
    tally = Tally()

    if args.mode == "async":
        sender = "send_each_async"

        async def run():
            remaining = args.pushes

            async def worker():
                nonlocal remaining
                while remaining > 0:
                    remaining -= 1
                    started = time.perf_counter()
                    try:
                        batch = await messaging.send_each_async([ringing()], app=app)
                        tally.add(time.perf_counter() - started, batch.responses[0])
                    except Exception as error:  # counted as a refused message, like Ringer's side
                        tally.fail(time.perf_counter() - started, error)

            async def batches():
                remaining = args.pushes
                while remaining > 0:
                    count = min(args.concurrency, remaining)
                    remaining -= count
                    started = time.perf_counter()
                    batch = await messaging.send_each_async([ringing() for _ in range(count)], app=app)
                    seconds = time.perf_counter() - started
                    for response in batch.responses:
                        tally.add(seconds, response)

            if args.batches:
                await batches()
            else:
                await asyncio.gather(*(worker() for _ in range(min(args.concurrency, args.pushes))))

        began = time.perf_counter()
        asyncio.run(run())
    else:
        sender = "send_each"
        service = messaging._get_messaging_service(app)
        session = service._client.session
        session.mount(origin, session.get_adapter("https://fcm.googleapis.com/"))
        began = time.perf_counter()
        remaining = args.pushes
        while remaining > 0:
            count = min(args.concurrency, remaining)
            remaining -= count
            started = time.perf_counter()
            batch = messaging.send_each([ringing() for _ in range(count)], app=app)
            seconds = time.perf_counter() - started
            for response in batch.responses:
                tally.add(seconds, response)
    seconds = time.perf_counter() - began
    tally.latencies.sort()
    version = importlib.metadata.version("firebase-admin")
    print(json.dumps({"sender": f"firebase-admin {version} {sender}", "pushes": args.pushes,
                      "accepted": tally.accepted, "first_failure": tally.first_failure, "seconds": seconds,
                      "p50_ms": percentile(0.50, tally.latencies) * 1000,
                      "p99_ms": percentile(0.99, tally.latencies) * 1000}),
          flush=True)


if __name__ == "__main__":
    main()

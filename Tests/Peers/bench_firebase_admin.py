#!/usr/bin/env python3
"""The firebase-admin side of `ringer-lab bench`: sends the benchmark's workload of ringing messages to Ringer's
FCM sandbox with firebase-admin (PyPI), a fixed number in flight, and prints one JSON line with the figures.

firebase-admin is unmodified. As in fcm_firebase_admin_peer.py, its credentials come from a throw-away
service-account file whose token_uri points at the sandbox (google-auth makes the grant there), and its
hard-coded send URL (_MessagingService.FCM_URL) is replaced at run time, before the app is created, by the
sandbox's, as the APNs benchmark points aioapns at the APNs sandbox. The sandbox's CA is trusted through
SSL_CERT_FILE (httpx) and REQUESTS_CA_BUNDLE (requests), set here before either library makes a context.

--mode async: messaging.send_each_async (httpx, HTTP/2, to the sandbox's HTTP/2 port), the asynchronous
API firebase-admin offers, with lists of N messages (N = --concurrency), one list after the other: it sends
a list's messages at once (asyncio.gather) and returns when all are answered. Lists are the use it was made
for, and on this machine they were faster than N coroutines each sending a one-message list (about 740
against 490 messages/s), so the benchmark gives it lists.

--mode sync: messaging.send_each (requests, HTTP/1.1, to the HTTP/1.1 port) with lists of N messages: it
sends each list from a pool of N threads and returns when all are answered. firebase-admin mounts an
HTTPAdapter with 100 pooled connections for Google's host only; the same adapter is mounted for the sandbox's
URL, so it keeps the connections it would keep with Google.

Each message is what Ringer's server sends for a ringing call: data {"ringer": <JSON string>}, android
priority high, ttl 45 s, collapse_key the call id; built per send.

Usage: bench_firebase_admin.py --mode async|sync --port P --ca CA.pem --service-account FILE --token T
                               --ringer-file ringer.json --collapse-key K --pushes N --concurrency C
Prints {"sender", "pushes", "accepted", "first_failure", "seconds", "p50_ms", "p99_ms"}.
"""
import argparse
import asyncio
import importlib.metadata
import json
import math
import os
import time
import warnings


def percentile(fraction, ordered):
    """Nearest rank, as Ringer's SenderReport computes it."""
    if not ordered:
        return 0.0
    rank = max(1, min(len(ordered), math.ceil(fraction * len(ordered))))
    return ordered[rank - 1]


class Tally:
    """Answers counted as Ringer's side counts them: a 200 with a message name is accepted, anything else
    (the exception firebase-admin puts in the response, a transport error among them) is a refused message.
    Each message's latency is its list's: firebase-admin returns a list's answers together."""

    def __init__(self):
        self.latencies = []
        self.accepted = 0
        self.first_failure = None

    def add_list(self, seconds, batch):
        for response in batch.responses:
            self.latencies.append(seconds)
            if response.success and response.message_id:
                self.accepted += 1
            elif self.first_failure is None:
                error = response.exception
                self.first_failure = f"{type(error).__name__} {getattr(error, 'code', '')}: {error}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", required=True, choices=("async", "sync"))
    for name in ("--port", "--pushes", "--concurrency"):
        parser.add_argument(name, required=True, type=int)
    for name in ("--ca", "--service-account", "--token", "--ringer-file", "--collapse-key"):
        parser.add_argument(name, required=True)
    args = parser.parse_args()

    os.environ["SSL_CERT_FILE"] = args.ca
    os.environ["REQUESTS_CA_BUNDLE"] = args.ca
    import firebase_admin
    from firebase_admin import credentials, messaging
    from firebase_admin.messaging import _MessagingService

    with open(args.ringer_file, encoding="utf-8") as file:
        ringer = file.read()

    # firebase-admin 7.7 warns that Message.token is deprecated (for fid); Ringer sends token, so this does.
    warnings.filterwarnings("ignore", message="Message.token is deprecated")

    def ringing():
        return messaging.Message(
            token=args.token, data={"ringer": ringer},
            android=messaging.AndroidConfig(priority="high", ttl=45, collapse_key=args.collapse_key))

    origin = f"https://localhost:{args.port}"
    _MessagingService.FCM_URL = origin + "/v1/projects/{0}/messages:send"
    app = firebase_admin.initialize_app(credentials.Certificate(args.service_account), name="bench")
    tally = Tally()

    def lists():
        remaining = args.pushes
        while remaining > 0:
            count = min(args.concurrency, remaining)
            remaining -= count
            yield [ringing() for _ in range(count)]

    if args.mode == "async":
        sender = "send_each_async"

        async def run():
            for messages in lists():
                started = time.perf_counter()
                batch = await messaging.send_each_async(messages, app=app)
                tally.add_list(time.perf_counter() - started, batch)

        began = time.perf_counter()
        asyncio.run(run())
    else:
        sender = "send_each"
        service = messaging._get_messaging_service(app)
        session = service._client.session
        session.mount(origin, session.get_adapter("https://fcm.googleapis.com/"))
        began = time.perf_counter()
        for messages in lists():
            started = time.perf_counter()
            batch = messaging.send_each(messages, app=app)
            tally.add_list(time.perf_counter() - started, batch)
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

#!/usr/bin/env python3
"""firebase-admin (PyPI, unmodified) sends to Ringer's FCM sandbox, which must answer so that firebase-admin
returns the message name or raises its own exception for each FCM error code.

Credentials come from the throw-away service-account file, whose token_uri points at the sandbox; the only
change made to firebase-admin is its hard-coded send URL (_MessagingService.FCM_URL,
https://fcm.googleapis.com/v1/projects/{0}/messages:send), replaced at run time before an app is created,
as the benchmark points aioapns at the APNs sandbox. Synchronous sends (requests, HTTP/1.1) go to the
sandbox's HTTP/1.1 port; send_each_async (httpx, HTTP/2) to its HTTP/2 port. The sandbox's CA comes from
REQUESTS_CA_BUNDLE and SSL_CERT_FILE.

Usage: fcm_firebase_admin_peer.py --service-account FILE --http1-port P --http2-port Q --token T
         --unregistered-token T --foreign-token T --quota-token T
Prints one JSON object per case: {"case", "name" (on success) | "exception" (class name), "code" (the
FirebaseError code), "http_status"}.
"""
import argparse
import asyncio
import json

import firebase_admin
from firebase_admin import credentials, exceptions, messaging
from firebase_admin.messaging import _MessagingService


def report(case, **fields):
    print(json.dumps({"case": case, **fields}), flush=True)


def outcome(case, send):
    try:
        report(case, name=send())
    except exceptions.FirebaseError as error:
        status = error.http_response.status_code if error.http_response is not None else None
        report(case, exception=type(error).__name__, code=error.code, http_status=status,
               is_invalid_argument=isinstance(error, exceptions.InvalidArgumentError))


def ringing(token, **android):
    return messaging.Message(
        token=token, data={"ringer": json.dumps({"v": 1, "type": "call.incoming"})},
        android=messaging.AndroidConfig(priority="high", ttl=30, collapse_key="call-1", **android))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--service-account", required=True)
    parser.add_argument("--http1-port", type=int, required=True)
    parser.add_argument("--http2-port", type=int, required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--unregistered-token", required=True)
    parser.add_argument("--foreign-token", required=True)
    parser.add_argument("--quota-token", required=True)
    args = parser.parse_args()
    credential = credentials.Certificate(args.service_account)

    _MessagingService.FCM_URL = f"https://localhost:{args.http1_port}/v1/projects/{{0}}/messages:send"
    app = firebase_admin.initialize_app(credential, name="sandbox-http1")
    outcome("accepted", lambda: messaging.send(ringing(args.token), app=app))
    outcome("dry_run", lambda: messaging.send(ringing(args.token), dry_run=True, app=app))
    outcome("unregistered", lambda: messaging.send(ringing(args.unregistered_token), app=app))
    outcome("sender_id_mismatch", lambda: messaging.send(ringing(args.foreign_token), app=app))
    outcome("quota_exceeded", lambda: messaging.send(ringing(args.quota_token), app=app))
    outcome("unknown_token", lambda: messaging.send(ringing("never-issued-token"), app=app))
    outcome("wrong_package", lambda: messaging.send(ringing(args.token, restricted_package_name="com.other"), app=app))
    # firebase-admin leaves reserved keys to FCM (a non-string value it refuses itself, before sending).
    outcome("reserved_key", lambda: messaging.send(messaging.Message(token=args.token, data={"gcm.x": "1"}), app=app))

    _MessagingService.FCM_URL = f"https://localhost:{args.http2_port}/v1/projects/{{0}}/messages:send"
    async_app = firebase_admin.initialize_app(credential, name="sandbox-http2")
    messages = [ringing(args.token), ringing(args.unregistered_token)]
    batch = asyncio.run(messaging.send_each_async(messages, app=async_app))
    for index, response in enumerate(batch.responses):
        if response.success:
            report(f"async_{index}", name=response.message_id)
        else:
            error = response.exception
            report(f"async_{index}", exception=type(error).__name__, code=error.code)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""An independent APNs client against Ringer's APNs sandbox: aioapns (h2 + PyJWT) for ordinary pushes,
and raw `h2` requests for the header-level mistakes aioapns cannot make.

aioapns is unmodified; only its server constants are pointed at the sandbox (host "localhost", the
sandbox port) and its TLS context trusts the sandbox's CA.

Usage: apns_client_peer.py --port P --ca CA.pem --key AuthKey.p8 --key-id K --team-id T
                           --bundle B --token HEX --other-app-token HEX --unregistered-token HEX
Prints one JSON object per case: {"case": name, "status": int, "reason": str|null, "timestamp": int|null}.
"""
import argparse
import asyncio
import json
import socket
import ssl
import time
import uuid

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
import h2.connection
import h2.events
import jwt
from aioapns import APNs, NotificationRequest, PushType
from aioapns.connection import APNsDevelopmentClientProtocol, APNsProductionClientProtocol


def report(case, status, reason=None, timestamp=None):
    print(json.dumps({"case": case, "status": int(status), "reason": reason, "timestamp": timestamp}), flush=True)


async def with_aioapns(args):
    for protocol in (APNsDevelopmentClientProtocol, APNsProductionClientProtocol):
        protocol.APNS_SERVER = "localhost"
        protocol.APNS_PORT = args.port
    context = ssl.create_default_context(cafile=args.ca)
    key = open(args.key).read()
    client = APNs(key=key, key_id=args.key_id, team_id=args.team_id, topic=args.bundle + ".voip",
                  use_sandbox=True, ssl_context=context, max_connection_attempts=1)
    voip = {"ringer": {"v": 1, "type": "call.incoming", "call_id": str(uuid.uuid4())}}
    cases = [
        ("voip_accepted", NotificationRequest(args.token, voip, push_type=PushType.VOIP, priority=10,
                                              time_to_live=30)),
        ("unknown_token", NotificationRequest("ab" * 32, voip, push_type=PushType.VOIP)),
        ("other_app_token", NotificationRequest(args.other_app_token, voip, push_type=PushType.VOIP)),
        ("unregistered_token", NotificationRequest(args.unregistered_token, voip, push_type=PushType.VOIP)),
        ("voip_too_large", NotificationRequest(args.token, {"pad": "x" * 5200}, push_type=PushType.VOIP)),
        ("alert_to_voip_topic", NotificationRequest(args.token, {"aps": {"alert": "hi"}}, push_type=PushType.ALERT)),
        ("alert_accepted", NotificationRequest(args.token, {"aps": {"alert": "hi"}}, push_type=PushType.ALERT,
                                               apns_topic=args.bundle)),
    ]
    for name, request in cases:
        result = await client.send_notification(request)
        report(name, result.status, result.description, result.timestamp)

    stranger = ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()
    impostor = APNs(key=stranger, key_id=args.key_id, team_id=args.team_id, topic=args.bundle + ".voip",
                    use_sandbox=True, ssl_context=context, max_connection_attempts=1)
    result = await impostor.send_notification(NotificationRequest(args.token, voip, push_type=PushType.VOIP))
    report("wrong_signing_key", result.status, result.description)


def raw_request(args, method, path, headers, body=b""):
    """One request over a fresh TLS + HTTP/2 connection with exactly the given headers."""
    context = ssl.create_default_context(cafile=args.ca)
    context.set_alpn_protocols(["h2"])
    with socket.create_connection(("127.0.0.1", args.port)) as raw:
        with context.wrap_socket(raw, server_hostname="localhost") as sock:
            conn = h2.connection.H2Connection()
            conn.initiate_connection()
            stream = conn.get_next_available_stream_id()
            pseudo = [(":method", method), (":scheme", "https"), (":authority", "localhost"), (":path", path)]
            conn.send_headers(stream, pseudo + headers, end_stream=not body)
            if body:
                conn.send_data(stream, body, end_stream=True)
            sock.sendall(conn.data_to_send())
            status, data = None, b""
            while True:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                for event in conn.receive_data(chunk):
                    if isinstance(event, h2.events.ResponseReceived):
                        status = int(dict(event.headers)[b":status"])
                    elif isinstance(event, h2.events.DataReceived):
                        data += event.data
                        conn.acknowledge_received_data(event.flow_controlled_length, stream)
                    elif isinstance(event, h2.events.StreamEnded):
                        reason = json.loads(data)["reason"] if data else None
                        return status, reason
                sock.sendall(conn.data_to_send())
    return status, None


def provider_token(args, iat):
    return jwt.encode({"iss": args.team_id, "iat": iat}, open(args.key).read(), algorithm="ES256",
                      headers={"kid": args.key_id})


def with_raw_h2(args):
    path = "/3/device/" + args.token
    body = json.dumps({"ringer": {"v": 1}}).encode()
    fresh = [("authorization", "bearer " + provider_token(args, int(time.time())))]
    voip = [("apns-push-type", "voip"), ("apns-topic", args.bundle + ".voip")]
    cases = [
        ("raw_accepted", "POST", path, fresh + voip),
        ("missing_topic", "POST", path, fresh + [("apns-push-type", "voip")]),
        ("expired_provider_token", "POST", path,
         [("authorization", "bearer " + provider_token(args, int(time.time()) - 2 * 3600))] + voip),
        ("missing_provider_token", "POST", path, voip),
        ("method_not_allowed", "GET", path, fresh + voip),
        ("bad_path", "POST", "/3/nothing/" + args.token, fresh + voip),
        ("bad_priority", "POST", path, fresh + voip + [("apns-priority", "7")]),
    ]
    for name, method, request_path, headers in cases:
        status, reason = raw_request(args, method, request_path, headers, body if method == "POST" else b"")
        report(name, status, reason)


def main():
    parser = argparse.ArgumentParser()
    for name in ("--port", "--ca", "--key", "--key-id", "--team-id", "--bundle", "--token", "--other-app-token",
                 "--unregistered-token"):
        parser.add_argument(name, required=True, type=int if name == "--port" else str)
    args = parser.parse_args()
    asyncio.run(with_aioapns(args))
    with_raw_h2(args)


main()

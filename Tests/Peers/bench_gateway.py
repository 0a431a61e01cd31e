#!/usr/bin/env python3
"""The peer of `ringer-lab bench --only calls`: a minimal push gateway of the kind a team writes in an afternoon, with
aiohttp, aioapns and sqlite3 (PyPI and the standard library, nothing of Ringer's). It speaks just enough of Ringer's
API for the same load generator and set-up to drive it:

  POST /v1/tokens          admin key -> 201 {"token": HS256 JWT with sub, iat, exp} (PyJWT)
  PUT  /v1/devices/{id}    user token, {"voip_token", "bundle_id", …} -> 200; one row per device
  POST /v1/calls           user token, {"callee"} -> the callee's VoIP token read from SQLite, one call row inserted
                           and committed, one VoIP push sent with aioapns and awaited, then 201 {"call_id", "state"}
                           (502 when APNs refused the push)

The push carries Ringer's payload shape (`{"ringer": {"v": 1, "type": "call.incoming", …}}`), so the sandbox
accepts and records it like Ringer's. SQLite runs in WAL mode with `synchronous = NORMAL`, the usual setting of a
WAL database: a commit is not synced until a checkpoint, so this peer promises less than Ringer (whose `201` means
on disk) and its figure flatters it.

Usage: bench_gateway.py --port-file FILE --database FILE --admin-key-file FILE --user-token-secret-file FILE
                        --apns-port P --ca-file CA.pem --key AuthKey.p8 --key-id K --team-id T
Writes the port it listens on (127.0.0.1, ephemeral) to --port-file once it listens.
"""
import argparse
import asyncio
import json
import os
import sqlite3
import ssl
import time
import uuid

import jwt
from aiohttp import web
from aioapns import APNs, NotificationRequest, PushType
from aioapns.connection import APNsDevelopmentClientProtocol, APNsProductionClientProtocol

RING_SECONDS = 45


def problem(status, kind):
    return web.json_response({"type": kind, "status": status}, status=status,
                             content_type="application/problem+json")


def main():
    parser = argparse.ArgumentParser()
    for name in ("--port-file", "--database", "--admin-key-file", "--user-token-secret-file", "--ca-file",
                 "--key", "--key-id", "--team-id"):
        parser.add_argument(name, required=True)
    parser.add_argument("--apns-port", required=True, type=int)
    args = parser.parse_args()
    admin_key = open(args.admin_key_file).read().strip()
    secret = open(args.user_token_secret_file).read().strip()

    db = sqlite3.connect(args.database)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = NORMAL")
    db.execute("CREATE TABLE IF NOT EXISTS devices (id TEXT PRIMARY KEY, user_id TEXT, voip_token TEXT, "
               "bundle_id TEXT)")
    db.execute("CREATE INDEX IF NOT EXISTS devices_user ON devices (user_id)")
    db.execute("CREATE TABLE IF NOT EXISTS calls (id TEXT PRIMARY KEY, caller TEXT, callee TEXT, state TEXT, "
               "created_at REAL)")
    db.commit()

    for protocol in (APNsDevelopmentClientProtocol, APNsProductionClientProtocol):
        protocol.APNS_SERVER = "localhost"
        protocol.APNS_PORT = args.apns_port
    apns = {}

    def client(bundle_id):
        if bundle_id not in apns:
            apns[bundle_id] = APNs(key=open(args.key).read(), key_id=args.key_id, team_id=args.team_id,
                                   topic=bundle_id + ".voip", use_sandbox=True,
                                   ssl_context=ssl.create_default_context(cafile=args.ca_file))
        return apns[bundle_id]

    def user(request):
        header = request.headers.get("authorization", "")
        if not header.startswith("Bearer "):
            return None
        try:
            return jwt.decode(header[7:], secret, algorithms=["HS256"])["sub"]
        except jwt.PyJWTError:
            return None

    async def tokens(request):
        if request.headers.get("authorization") != f"Bearer {admin_key}":
            return problem(401, "unauthorized")
        body = await request.json()
        now = int(time.time())
        token = jwt.encode({"sub": body["user_id"], "iat": now, "exp": now + int(body.get("ttl_seconds", 3600))},
                           secret, algorithm="HS256")
        return web.json_response({"token": token}, status=201)

    async def devices(request):
        sub = user(request)
        if sub is None:
            return problem(401, "unauthorized")
        body = await request.json()
        db.execute("INSERT OR REPLACE INTO devices VALUES (?, ?, ?, ?)",
                   (request.match_info["device_id"], sub, body["voip_token"], body["bundle_id"]))
        db.commit()
        return web.json_response({"device_id": request.match_info["device_id"]})

    async def calls(request):
        caller = user(request)
        if caller is None:
            return problem(401, "unauthorized")
        body = await request.json()
        callee = body.get("callee")
        row = db.execute("SELECT voip_token, bundle_id FROM devices WHERE user_id = ?", (callee,)).fetchone()
        if row is None:
            return problem(404, "user-not-found")
        call_id = str(uuid.uuid4())
        now = time.time()
        db.execute("INSERT INTO calls VALUES (?, ?, ?, 'ringing', ?)", (call_id, caller, callee, now))
        db.commit()
        payload = {"ringer": {"v": 1, "type": "call.incoming", "call_id": call_id, "caller": {"id": caller},
                              "has_video": bool(body.get("has_video", False)), "sent_at": int(now * 1000),
                              "expires_at": int((now + RING_SECONDS) * 1000)}}
        result = await client(row[1]).send_notification(
            NotificationRequest(row[0], payload, push_type=PushType.VOIP, priority=10, time_to_live=RING_SECONDS))
        if not result.is_successful:
            return problem(502, f"push-failed-{result.status}")
        return web.json_response({"call_id": call_id, "state": "ringing"}, status=201)

    async def serve():
        app = web.Application()
        app.router.add_post("/v1/tokens", tokens)
        app.router.add_put("/v1/devices/{device_id}", devices)
        app.router.add_post("/v1/calls", calls)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]
        # Whole or not at all: the benchmark polls the file.
        with open(args.port_file + ".partial", "w") as file:
            file.write(str(port))
        os.replace(args.port_file + ".partial", args.port_file)
        await asyncio.Event().wait()

    asyncio.run(serve())


main()

#!/usr/bin/env python3
"""A webhook receiver for the tests: an aiohttp server that verifies every delivery with the `standardwebhooks`
package (PyPI, the Standard Webhooks reference library), an independent reader of Ringer's signatures.

Prints `PORT <n>` first, then serves until stdin closes:
- POST /hook: a delivery. Each is verified with every secret configured (all, or with `strict`, through
  `Webhook.verify`, which also refuses a timestamp more than 5 minutes from now); the receiver records the headers,
  the body's type, call id and seq, which secrets verified it, and what it answered, then answers as configured.
- POST /control: JSON setting any of `secrets` (list of `whsec_` secrets), `strict` (bool), `status` (what to answer,
  200 by default), `fail_first` (answer `fail_status` to that many deliveries first, then `status`), `fail_status`,
  `retry_after` (a header value sent with failures), `delay` (seconds to wait before answering).
- GET /received: the records, as a JSON list.

Usage: webhook_receiver.py [PORT]   (a free port when left out)"""
import asyncio
import json
import sys
import time

from aiohttp import web
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

config = {"secrets": [], "strict": True, "status": 200, "fail_first": 0, "fail_status": 500, "retry_after": None,
          "delay": 0}
received = []


def verified_by(body, headers):
    """The indices of the configured secrets that verify the delivery."""
    found = []
    for index, secret in enumerate(config["secrets"]):
        hook = Webhook(secret)
        try:
            if config["strict"]:
                hook.verify(body, headers)
            else:
                # The server's clock may be a test's: check the signature alone, with the library's own signer.
                expected = hook.sign(headers["webhook-id"], _timestamp(headers), body.decode()).split(",", 1)[1]
                if expected not in [part.split(",", 1)[1] for part in headers["webhook-signature"].split(" ")]:
                    raise WebhookVerificationError("no matching signature")
            found.append(index)
        except (WebhookVerificationError, KeyError, ValueError):
            pass
    return found


def _timestamp(headers):
    from datetime import datetime, timezone
    return datetime.fromtimestamp(int(headers["webhook-timestamp"]), tz=timezone.utc)


async def hook(request):
    body = await request.read()
    headers = {name.lower(): value for name, value in request.headers.items()}
    try:
        payload = json.loads(body)
    except ValueError:
        payload = {}
    data = payload.get("data") or {}
    failing = config["fail_first"] > 0
    status = config["fail_status"] if failing else config["status"]
    if failing:
        config["fail_first"] -= 1
    received.append({
        "id": headers.get("webhook-id"), "timestamp": headers.get("webhook-timestamp"),
        "signatures": len(headers.get("webhook-signature", "").split(" ")),
        "verified_by": verified_by(body, headers), "type": payload.get("type"),
        "call_id": (data.get("call") or {}).get("call_id"), "seq": data.get("seq"),
        "user_id": data.get("user_id"), "device_id": data.get("device_id"), "duration_ms": data.get("duration_ms"),
        "token_kind": data.get("token_kind"), "answered": status, "at": time.time(),
    })
    if config["delay"]:
        await asyncio.sleep(config["delay"])
    answer_headers = {"Retry-After": config["retry_after"]} if config["retry_after"] and status >= 300 else {}
    return web.Response(status=status, headers=answer_headers)


async def control(request):
    config.update(await request.json())
    return web.json_response(config)


async def listing(_request):
    return web.json_response(received)


async def main():
    app = web.Application()
    app.add_routes([web.post("/hook", hook), web.post("/control", control), web.get("/received", listing)])
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", int(sys.argv[1]) if len(sys.argv) > 1 else 0)
    await site.start()
    print(f"PORT {site._server.sockets[0].getsockname()[1]}", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    await runner.cleanup()


asyncio.run(main())

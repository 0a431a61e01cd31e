#!/usr/bin/env python3
"""The set-up of `ringer-lab bench --only calls`, the same for Ringer and for its peer (bench_gateway.py), all through
the public API with burst.Setup (the burst load generators' clients): PAIRS callers and PAIRS callees get user tokens
(`POST /v1/tokens` with the admin key), and each callee one iPhone: a random VoIP token registered with the APNs
sandbox (`POST /sandbox/devices`) and with the server (`PUT /v1/devices/{id}`). No socket is opened: a call's cost
is measured without listeners.

Writes one JSON object to --out: {"pairs": [{"token": <caller's user token>, "callee": <callee's user id>}, …]}.
With --stats it sets nothing up and prints the APNs sandbox's `GET /sandbox/stats` (its `accepted_pushes` is how the
benchmark checks that every call answered 201 reached the sandbox as one VoIP push).

Usage: bench_calls_setup.py --url http://127.0.0.1:PORT --admin-key-file FILE --sandbox-url https://127.0.0.1:P
                            --ca-file ca.pem --bundle-id ID --prefix run1- --pairs 100 --out pairs.json
       bench_calls_setup.py --stats --sandbox-url https://127.0.0.1:P --ca-file ca.pem
"""
import argparse
import asyncio
import json
import ssl

import httpx

from burst import Setup


async def stats(args):
    async with httpx.AsyncClient(http2=True, verify=ssl.create_default_context(cafile=args.ca_file)) as sandbox:
        answer = await sandbox.get(f"{args.sandbox_url}/sandbox/stats")
        if answer.status_code != 200:
            raise SystemExit(f"GET /sandbox/stats answered {answer.status_code}")
        print(json.dumps(answer.json()))


async def run(args):
    args.connections = 32
    setup = Setup(args)

    async def set_up(index):
        caller, callee = f"{args.prefix}caller-{index}", f"{args.prefix}callee-{index}"
        caller_token, callee_token = await setup.user_token(caller), await setup.user_token(callee)
        device = {"platform": "ios", "voip_token": await setup.apns_device(), "apns_environment": "sandbox",
                  "bundle_id": args.bundle_id}
        await setup.put_device(callee_token, f"{callee}-phone", device)
        return {"token": caller_token, "callee": callee}

    try:
        pairs = await asyncio.gather(*(set_up(index) for index in range(args.pairs)))
    finally:
        await setup.close()
    with open(args.out, "w") as file:
        json.dump({"pairs": pairs}, file)


def main():
    parser = argparse.ArgumentParser()
    for name in ("--sandbox-url", "--ca-file"):
        parser.add_argument(name, required=True)
    for name in ("--url", "--admin-key-file", "--bundle-id", "--prefix", "--out"):
        parser.add_argument(name)
    parser.add_argument("--pairs", type=int, default=100)
    parser.add_argument("--stats", action="store_true")
    args = parser.parse_args()
    if args.stats:
        asyncio.run(stats(args))
        return
    missing = [name for name in ("url", "admin_key_file", "bundle_id", "prefix", "out") if getattr(args, name) is None]
    if missing:
        parser.error("the set-up needs --" + ", --".join(name.replace("_", "-") for name in missing))
    asyncio.run(run(args))


main()

#!/usr/bin/env python3
"""Holds COUNT WebSockets open with the `websockets` library and records how the server closes each one: the
close frame it received (code and reason, RFC 6455 §5.5.1), or none (the TCP connection just ended, which
`websockets` reports as 1006). Messages the server sends meanwhile are read and ignored.

Prints one JSON line on stdout once every socket is open (or failed): {"open": n, "failed": m}. Then waits until
the server closed all of them (or TIMEOUT seconds passed), writes the report to REPORT and exits:
  {"closes": [{"code": 1001, "reason": "..."} | {"code": null}, ...],   one per open socket, in order
   "still_open": k}                                                      sockets the server never closed

URL may contain "{i}", replaced by the socket's index (e.g. device_id=d{i}).

usage: ws_goodbye_peer.py --url ws://127.0.0.1:P/path?q --count N --report FILE [--timeout 30]
"""
import argparse
import asyncio
import json

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed


async def open_one(url, timeout):
    try:
        return await connect(url, open_timeout=timeout, ping_interval=None)
    except Exception:  # noqa: BLE001 - a refused socket is counted, not fatal
        return None


async def until_closed(ws):
    try:
        async for _ in ws:
            pass
    except ConnectionClosed:
        pass
    rcvd = ws.protocol.close_rcvd
    return {"code": rcvd.code, "reason": rcvd.reason} if rcvd is not None else {"code": None}


async def run(args):
    sockets = await asyncio.gather(*(open_one(args.url.replace("{i}", str(i)), args.timeout)
                                     for i in range(args.count)))
    opened = [ws for ws in sockets if ws is not None]
    print(json.dumps({"open": len(opened), "failed": args.count - len(opened)}), flush=True)
    waits = [asyncio.ensure_future(until_closed(ws)) for ws in opened]
    done, _ = await asyncio.wait(waits, timeout=args.timeout) if waits else (set(), set())
    report = {"closes": [w.result() for w in waits if w in done], "still_open": len(waits) - len(done)}
    with open(args.report, "w") as out:
        json.dump(report, out)
    for w in waits:
        w.cancel()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    ap.add_argument("--count", type=int, required=True)
    ap.add_argument("--report", required=True)
    ap.add_argument("--timeout", type=float, default=30.0)
    asyncio.run(run(ap.parse_args()))


if __name__ == "__main__":
    main()

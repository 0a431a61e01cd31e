#!/usr/bin/env python3
"""A phone in another process on the FCM sandbox's WebSocket, written with the `websockets` library only from
the documented frames (docs/fcm.md, "Phones in another process"): it connects to
wss://localhost:PORT/sandbox/connect?token=T, acknowledges each message frame with the receipt named by the
message's data key "want" (userVisible, silent or notDelivered), and after --messages messages reports
itself dozing and exits.

Usage: fcm_ws_phone_peer.py --port P --token T --ca CA.pem --messages N [--timeout 30]
Prints one JSON object: {"frames": [every frame received, in order]} or {"error": "..."}.
"""
import argparse
import asyncio
import json
import ssl
import urllib.parse

from websockets.asyncio.client import connect


async def run(args):
    context = ssl.create_default_context(cafile=args.ca)
    url = f"wss://localhost:{args.port}/sandbox/connect?token={urllib.parse.quote(args.token)}"
    frames = []
    async with connect(url, ssl=context, open_timeout=args.timeout) as socket:
        while sum(1 for frame in frames if frame.get("type") == "message") < args.messages:
            frame = json.loads(await asyncio.wait_for(socket.recv(), timeout=args.timeout))
            frames.append(frame)
            if frame.get("type") != "message":
                continue
            ack = {"type": "ack", "name": frame["name"], "receipt": frame["data"].get("want", "userVisible")}
            if ack["receipt"] == "notDelivered":
                ack["reason"] = "the app is force-stopped"
            await socket.send(json.dumps(ack))
        await socket.send(json.dumps({"type": "reachability", "reachability": "dozing"}))
        # An unknown frame type is answered with an error frame: the sandbox reads the phone's frames.
        await socket.send(json.dumps({"type": "goodbye"}))
        frames.append(json.loads(await asyncio.wait_for(socket.recv(), timeout=args.timeout)))
    return frames


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--ca", required=True)
    parser.add_argument("--messages", type=int, required=True)
    parser.add_argument("--timeout", type=float, default=30)
    args = parser.parse_args()
    try:
        print(json.dumps({"frames": asyncio.run(run(args))}), flush=True)
    except Exception as error:  # reported, for the test to show
        print(json.dumps({"error": f"{type(error).__name__}: {error}"}), flush=True)


if __name__ == "__main__":
    main()

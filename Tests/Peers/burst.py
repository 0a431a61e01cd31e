"""What the burst load generators (bench_fanout.py, bench_group.py) share: their clients of the server and the
sandboxes for setting users and devices up, FCM-shaped tokens, the API's times, and the burst itself, N calls POSTed at
one instant from several processes so the generator's own work (sockets, sandbox polls) does not pace them."""
import asyncio
import base64
import concurrent.futures
import json
import multiprocessing
import secrets
import ssl
import string
import time
from datetime import datetime

import aiohttp
import httpx
from websockets.asyncio.client import connect

SETUP_TIMEOUT = 120.0   # seconds one set-up request may take


class Setup:
    """The generator's clients: the server's API (`session`, with the admin key for user tokens) and the APNs and FCM
    sandboxes (`apns`, `fcm`, httpx over HTTP/2 with the sandboxes' CA). A set-up request that fails ends the run."""

    def __init__(self, args):
        self.args = args
        self.admin_key = open(args.admin_key_file).read().strip()
        self.ws_base = args.url.replace("http://", "ws://", 1)
        self.session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=args.connections),
                                             timeout=aiohttp.ClientTimeout(total=SETUP_TIMEOUT))
        tls = ssl.create_default_context(cafile=args.ca_file)
        self.apns = httpx.AsyncClient(http2=True, verify=tls, timeout=60)
        self.fcm = httpx.AsyncClient(http2=True, verify=tls, timeout=60)

    async def user_token(self, user):
        """A day-long token for `user`, minted with the admin key."""
        async with self.session.post(f"{self.args.url}/v1/tokens", json={"user_id": user, "ttl_seconds": 86400},
                                     headers={"authorization": f"Bearer {self.admin_key}"}) as response:
            if response.status != 201:
                raise SystemExit(f"POST /v1/tokens answered {response.status}")
            return (await response.json())["token"]

    async def put_device(self, bearer, device_id, body):
        """Registers a device of the token's user (`PUT /v1/devices/{id}`)."""
        async with self.session.put(f"{self.args.url}/v1/devices/{device_id}", json=body,
                                    headers={"authorization": f"Bearer {bearer}"}) as response:
            if response.status != 200:
                raise SystemExit(f"PUT /v1/devices answered {response.status}: {await response.text()}")

    async def apns_device(self):
        """A new APNs device token the APNs sandbox knows, for the bench's bundle id."""
        token = secrets.token_hex(32)
        registered = await self.apns.post(f"{self.args.sandbox_url}/sandbox/devices",
                                          json={"token": token, "bundle_id": self.args.bundle_id})
        if registered.status_code != 201:
            raise SystemExit(f"APNs POST /sandbox/devices answered {registered.status_code}")
        return token

    async def fcm_device(self):
        """A new FCM registration token the FCM sandbox knows, for the bench's project."""
        token = fcm_token()
        registered = await self.fcm.post(f"{self.args.fcm_sandbox_url}/sandbox/devices",
                                         json={"token": token, "project_id": self.args.fcm_project})
        if registered.status_code != 201:
            raise SystemExit(f"FCM POST /sandbox/devices answered {registered.status_code}")
        return token

    async def events(self, bearer, device_id):
        """The device's event socket (`/v1/events`), open."""
        return await connect(f"{self.ws_base}/v1/events?device_id={device_id}",
                             additional_headers={"authorization": f"Bearer {bearer}"},
                             ping_interval=None, open_timeout=SETUP_TIMEOUT)

    async def close(self):
        await self.apns.aclose()
        await self.fcm.aclose()
        await self.session.close()


async def post_ringing_call(session, url, caller_token, body):
    """`POST /v1/calls` with `body` as the caller; the call, which must be ringing (RuntimeError otherwise, naming
    the status and body, or the state)."""
    async with session.post(f"{url}/v1/calls", json=body,
                            headers={"authorization": f"Bearer {caller_token}"}) as response:
        answer = await response.read()
        if response.status != 201:
            raise RuntimeError(f"POST /v1/calls answered {response.status}: {answer[:200]!r}")
        call = json.loads(answer)
        if call.get("state") != "ringing":
            raise RuntimeError(f"the call is {call.get('state')}, not ringing")
        return call


def fcm_token():
    """A registration token shaped like FCM's: `<instance id>:APA91b<base64url>`."""
    alphabet = string.ascii_letters + string.digits + "-_"
    return "".join(secrets.choice(alphabet) for _ in range(22)) + ":APA91b" + \
        "".join(secrets.choice(alphabet) for _ in range(134))


def parse_time(text):
    """A time as the API writes it (RFC 3339, or ms since 1970), in seconds since 1970."""
    if isinstance(text, (int, float)):
        return text / 1000
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def add_burst_arguments(parser, calls, prefix):
    """The flags every burst generator takes; `calls` and `prefix` are its defaults."""
    for flag in ("--url", "--admin-key-file", "--sandbox-url", "--fcm-sandbox-url", "--ca-file", "--bundle-id",
                 "--fcm-project"):
        parser.add_argument(flag, required=True)
    parser.add_argument("--calls", type=int, default=calls)
    parser.add_argument("--connections", type=int, default=64, help="HTTP connections per process")
    parser.add_argument("--placers", type=int, default=4, help="processes that place the burst's calls")
    parser.add_argument("--settle", type=float, default=30.0,
                        help="seconds to wait for every device to ring, and for one POST")
    parser.add_argument("--prefix", default=prefix)


async def burst(args, pairs, field):
    """POSTs one call per (caller token, target) pair, `{field: target}` (`callee` or `callees`), split over
    --placers processes that all start 2 s from now. Returns `{"post_ms", "first_failure", "window_start",
    "window_end" (CLOCK_MONOTONIC: the first POST and the last answer), "burst_wall" (wall clock of the first POST),
    "calls": [(call id, caller token, target, created_at seconds, POST began wall-clock seconds)]}`."""
    slices = [pairs[index::args.placers] for index in range(args.placers)]
    start_at = time.time() + 2.0
    loop = asyncio.get_running_loop()
    with concurrent.futures.ProcessPoolExecutor(max_workers=args.placers,
                                                mp_context=multiprocessing.get_context("spawn")) as pool:
        # Each worker starts (imports, a session) before the shared start instant.
        answers = await asyncio.gather(*(loop.run_in_executor(pool, place_slice, args.url, part, field, start_at,
                                                              args.connections, args.settle) for part in slices))
    merged = {"post_ms": [], "first_failure": None, "calls": [],
              "window_start": min(answer["window_start"] for answer in answers),
              "window_end": max(answer["window_end"] for answer in answers),
              "burst_wall": min(answer["burst_wall"] for answer in answers)}
    for answer in answers:
        merged["post_ms"] += answer["post_ms"]
        merged["first_failure"] = merged["first_failure"] or answer["first_failure"]
        merged["calls"] += answer["calls"]
    return merged


def place_slice(url, pairs, field, start_at, connections, timeout):
    """A placer process: POSTs its pairs' calls all at once from `start_at` (wall-clock seconds)."""
    return asyncio.run(place_all(url, pairs, field, start_at, connections, timeout))


async def place_all(url, pairs, field, start_at, connections, timeout):
    answer = {"post_ms": [], "first_failure": None, "calls": []}
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=connections),
                                     timeout=aiohttp.ClientTimeout(total=timeout)) as session:
        async def place(caller_token, target):
            began_at, start = time.time(), time.monotonic()
            try:
                call = await post_ringing_call(session, url, caller_token, {field: target})
            except Exception as error:
                answer["first_failure"] = answer["first_failure"] or f"{type(error).__name__}: {error}"[:300]
                return
            answer["post_ms"].append((time.monotonic() - start) * 1000)
            answer["calls"].append((call["call_id"], caller_token, target, parse_time(call["created_at"]), began_at))

        await asyncio.sleep(max(0.0, start_at - time.time()))
        answer["burst_wall"], answer["window_start"] = time.time(), time.monotonic()
        await asyncio.gather(*(place(token, target) for token, target in pairs))
        answer["window_end"] = time.monotonic()
    return answer


class Deliveries:
    """What the APNs and FCM sandboxes accepted (`GET /sandbox/pushes?since=N`, `GET /sandbox/messages?since=N`),
    read a batch at a time through the given httpx clients."""

    def __init__(self, apns, fcm, args):
        self.apns, self.fcm, self.args = apns, fcm, args
        self.apns_read = self.fcm_read = 0

    async def new(self):
        """The deliveries since the last call: (the `ringer` body, the device token, "apns" or "fcm", the sandbox's
        receipt in wall-clock seconds)."""
        found = []
        pushes = (await self.apns.get(f"{self.args.sandbox_url}/sandbox/pushes",
                                      params={"since": self.apns_read})).json()
        self.apns_read += len(pushes)
        for push in pushes:
            ringer = json.loads(base64.b64decode(push["payload"])).get("ringer", {})
            found.append((ringer, push["device_token"], "apns", push["received_at"] / 1000))
        messages = (await self.fcm.get(f"{self.args.fcm_sandbox_url}/sandbox/messages",
                                       params={"since": self.fcm_read})).json()
        self.fcm_read += len(messages)
        for message in messages:
            ringer = json.loads(message.get("data", {}).get("ringer", "{}"))
            found.append((ringer, message["token"], "fcm", message["accepted_at"] / 1000))
        return found


async def poll_until(poll, done, seconds):
    """Calls `poll` every 0.25 s until `done()` or `seconds` passed."""
    deadline = time.monotonic() + seconds
    while True:
        await poll()
        if done() or time.monotonic() > deadline:
            return
        await asyncio.sleep(0.25)

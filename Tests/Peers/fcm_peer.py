#!/usr/bin/env python3
"""Independent FCM HTTP v1 peer for FCMTests: Google's OAuth2 token endpoint and `messages:send`, as an
ASGI app served by hypercorn (HTTP/2 over TLS with ALPN h2, or h2c prior knowledge with --plain). It shares no
code with Ringer: service-account keys come from `cryptography`, grants are verified with PyJWT.

Usage: fcm_peer.py --dir DIR (--cert CERT --key KEY | --plain) [--projects p1,p2]

At start it writes, for each project P, DIR/P.json: a service account (RSA 2048 key, token_uri pointing at this
peer's /token) it will honour; DIR/P-wrong-key.json: the same account with another private key (its grants
get invalid_grant "Invalid JWT Signature."); and DIR/stranger.json, an account it does not know. Then it prints
"PORT <n>" and serves until its stdin closes.

POST /token  (RFC 7523 grant, as Google checks it)
  form body grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=<JWT>; the JWT must be RS256,
  typ JWT, kid = the account's private_key_id, signed by its key, iss = client_email, aud = token_uri,
  scope = the FCM scope, iat within 5 minutes of now, exp - iat <= 3600. Failures answer Google's 400 bodies
  (invalid_grant, invalid_scope, unsupported_grant_type). Success: 200 {"access_token","expires_in","token_type"}.

POST /v1/projects/<P>/messages:send  (checked as FCM does)
  authorization "Bearer <a token this peer issued for P's account, not revoked>" (else 401 UNAUTHENTICATED;
  another project's token: 403 PERMISSION_DENIED); content-type application/json; body {"message": {...},
  "validate_only"?}; exactly one of token/topic/condition; data values strings, no reserved keys, at most 4096
  bytes of keys and values; android.priority HIGH or NORMAL; android.ttl "<seconds>[.<1-9 digits>]s" within 28
  days. A violation answers 400 INVALID_ARGUMENT with BadRequest field violations and is recorded in "problems".
  Then the registration token's prefix (up to the first "-") picks the answer:
    unregistered  404 UNREGISTERED              badtoken  400 INVALID_ARGUMENT naming message.token
    unauthonce    401 UNAUTHENTICATED the first time this token is seen, then success
    unauthalways  401 UNAUTHENTICATED always    unavailable  503 UNAVAILABLE, Retry-After: 7
    quota         429 QUOTA_EXCEEDED, Retry-After as an HTTP-date 30 s ahead
    internal      500 INTERNAL                  senderid  403 SENDER_ID_MISMATCH
    disabled      403 PERMISSION_DENIED with ErrorInfo SERVICE_DISABLED
    notjson       502 with an HTML body         nocode    400 with a JSON body without "error"
    never         no answer at all              anything else: 200 {"name": "projects/P/messages/..."}

Control (not recorded):
  GET  /_peer/requests    every request so far: kind (grant|send), path, headers, body, http_version,
                          status answered, problems, and for grants the JWT header and claims
  POST /_peer/configure   JSON merged into the settings: token_delay_ms, token_status + token_body (a fixed
                          token answer), expires_in, send_delay_ms, revoke (true: every issued token is revoked)
"""

import argparse
import asyncio
import email.utils
import json
import os
import re
import secrets
import socket
import sys
import time
from urllib.parse import parse_qs

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from hypercorn.asyncio import serve
from hypercorn.config import Config

SCOPE = "https://www.googleapis.com/auth/firebase.messaging"
GRANT_TYPE = "urn:ietf:params:oauth:grant-type:jwt-bearer"
FCM_ERROR = "type.googleapis.com/google.firebase.fcm.v1.FcmError"
BAD_REQUEST = "type.googleapis.com/google.rpc.BadRequest"
ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo"
TTL = re.compile(r"^([0-9]+)(\.[0-9]{1,9})?s$")
RESERVED = {"from", "notification", "message_type"}

ACCOUNTS = {}   # client_email -> {"project", "kid", "public_key", "token_uri"}
ISSUED = {}     # access token -> {"project", "revoked"}
SEEN = set()    # registration tokens seen (for unauthonce)
RECORDS = []
SETTINGS = {"expires_in": 3599}
COUNTER = [0]


def new_key():
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def pkcs8(key):
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption()).decode()


def write_account(directory, name, project, email, kid, key, token_uri):
    document = {
        "type": "service_account", "project_id": project, "private_key_id": kid, "private_key": pkcs8(key),
        "client_email": email, "client_id": "1234567890", "auth_uri": "https://accounts.google.com/o/oauth2/auth",
        "token_uri": token_uri, "universe_domain": "googleapis.com",
    }
    path = os.path.join(directory, name)
    with open(path, "w") as handle:
        json.dump(document, handle, indent=2)
    os.chmod(path, 0o600)


def google_error(code, status, message, details=()):
    return {"error": {"code": code, "message": message, "status": status, "details": list(details)}}


def fcm_detail(error_code):
    return {"@type": FCM_ERROR, "errorCode": error_code}


async def read_body(receive):
    body = b""
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return body, True
        body += message.get("body", b"")
        if not message.get("more_body"):
            return body, False


async def respond(send, status, payload, headers=()):
    body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    content_type = "text/html" if isinstance(payload, bytes) else "application/json; charset=UTF-8"
    fields = [(b"content-type", content_type.encode())] + [(k.encode(), str(v).encode()) for k, v in headers]
    await send({"type": "http.response.start", "status": status, "headers": fields})
    await send({"type": "http.response.body", "body": body})


def header(scope, name):
    for key, value in scope["headers"]:
        if key.decode("latin-1").lower() == name:
            return value.decode("latin-1")
    return None


def refuse_grant(error, description):
    return 400, {"error": error, "error_description": description}


def check_grant(scope, body, record):
    """Returns (status, answer) as Google's token endpoint would."""
    if not (header(scope, "content-type") or "").startswith("application/x-www-form-urlencoded"):
        record["problems"].append("content-type is not application/x-www-form-urlencoded")
        return refuse_grant("invalid_request", "Invalid content type.")
    form = parse_qs(body.decode(errors="replace"))
    if form.get("grant_type") != [GRANT_TYPE]:
        return refuse_grant("unsupported_grant_type", "Invalid grant_type: " + ",".join(form.get("grant_type", [])))
    assertion = (form.get("assertion") or [""])[0]
    try:
        jose = jwt.get_unverified_header(assertion)
        unverified = jwt.decode(assertion, options={"verify_signature": False})
    except jwt.PyJWTError:
        return refuse_grant("invalid_grant", "Invalid JWT: could not be decoded.")
    record["jwt_header"] = jose
    record["claims"] = unverified
    account = ACCOUNTS.get(unverified.get("iss"))
    if account is None:
        return refuse_grant("invalid_grant", "Invalid grant: account not found")
    if jose.get("alg") != "RS256" or jose.get("typ") != "JWT" or jose.get("kid") != account["kid"]:
        return refuse_grant("invalid_grant", "Invalid JWT Signature.")
    try:
        claims = jwt.decode(assertion, account["public_key"], algorithms=["RS256"], audience=account["token_uri"],
                            options={"require": ["iss", "aud", "iat", "exp"]}, leeway=300)
    except jwt.InvalidSignatureError:
        return refuse_grant("invalid_grant", "Invalid JWT Signature.")
    except jwt.PyJWTError as error:
        record["problems"].append(f"PyJWT: {error}")
        return refuse_grant("invalid_grant", "Invalid JWT: Token must be a short-lived token (60 minutes) and in a "
                            "reasonable timeframe. Check your iat and exp values in the JWT claim.")
    now = time.time()
    if claims["exp"] - claims["iat"] > 3600 or abs(claims["iat"] - now) > 300:
        return refuse_grant("invalid_grant", "Invalid JWT: Token must be a short-lived token (60 minutes) and in a "
                            "reasonable timeframe. Check your iat and exp values in the JWT claim.")
    if claims.get("scope") != SCOPE:
        return refuse_grant("invalid_scope", "Invalid OAuth scope or ID token audience provided.")
    COUNTER[0] += 1
    token = f"ya29.peer-{COUNTER[0]}-{secrets.token_urlsafe(12)}"
    ISSUED[token] = {"project": account["project"], "revoked": False}
    return 200, {"access_token": token, "expires_in": SETTINGS["expires_in"], "token_type": "Bearer"}


def message_problems(document):
    """(field, description) for each way the body breaks FCM's rules."""
    problems = []
    if not isinstance(document, dict) or not isinstance(document.get("message"), dict):
        return [("message", "The body must be an object with a message object")]
    extra = set(document) - {"message", "validate_only"}
    if extra:
        problems.append((sorted(extra)[0], "Unknown name at the top level"))
    message = document["message"]
    targets = [key for key in ("token", "topic", "condition") if key in message]
    if len(targets) != 1:
        problems.append(("message", f"Exactly one of token, topic or condition is required, got {targets}"))
    if "token" in message and (not isinstance(message["token"], str) or not message["token"]):
        problems.append(("message.token", "Invalid registration token"))
    data = message.get("data", {})
    if not isinstance(data, dict):
        problems.append(("message.data", "data must be a map"))
        data = {}
    size = 0
    for index, (key, value) in enumerate(data.items()):
        if not isinstance(value, str):
            problems.append((f"message.data[{index}].value", "data values must be strings"))
            continue
        if key in RESERVED or key.startswith("google") or key.startswith("gcm"):
            problems.append((f"message.data[{index}].key", f"Invalid data key {key}"))
        size += len(key.encode()) + len(value.encode())
    if size > 4096:
        problems.append(("message", "Android message is too big"))
    notification = message.get("notification")
    if notification is not None and (not isinstance(notification, dict)
                                     or set(notification) - {"title", "body", "image"}):
        problems.append(("message.notification", "Invalid notification"))
    android = message.get("android", {})
    if not isinstance(android, dict):
        return problems + [("message.android", "android must be an object")]
    unknown = set(android) - {"priority", "ttl", "collapse_key", "restricted_package_name", "data", "notification"}
    if unknown:
        problems.append((f"message.android.{sorted(unknown)[0]}", "Unknown name"))
    if "priority" in android and android["priority"] not in ("HIGH", "NORMAL"):
        problems.append(("message.android.priority", "Invalid value"))
    if "ttl" in android:
        match = TTL.match(android["ttl"]) if isinstance(android["ttl"], str) else None
        if match is None or float(match.group(1) + (match.group(2) or "")) > 2419200:
            problems.append(("message.android.ttl", "Invalid duration format or out of range"))
    for field in ("collapse_key", "restricted_package_name"):
        if field in android and not isinstance(android[field], str):
            problems.append((f"message.android.{field}", "must be a string"))
    return problems


async def answer_send(scope, receive, send, body, record, project):
    authorization = header(scope, "authorization") or ""
    issued = ISSUED.get(authorization[len("Bearer "):]) if authorization.startswith("Bearer ") else None
    if issued is None or issued["revoked"]:
        record["status"] = 401
        return await respond(send, 401, google_error(
            401, "UNAUTHENTICATED", "Request had invalid authentication credentials. Expected OAuth 2 access token, "
            "login cookie or other valid authentication credential."))
    if issued["project"] != project:
        record["status"] = 403
        return await respond(send, 403, google_error(
            403, "PERMISSION_DENIED", f"Permission 'cloudmessaging.messages.create' denied on resource "
            f"'//cloudresourcemanager.googleapis.com/projects/{project}' (or it may not exist)."))
    if not (header(scope, "content-type") or "").startswith("application/json"):
        record["problems"].append("content-type is not application/json")
    try:
        document = json.loads(body)
    except ValueError:
        document = None
    problems = message_problems(document) if document is not None else [("", "Invalid JSON payload received.")]
    record["problems"] += [f"{field}: {text}" for field, text in problems]
    if record["problems"]:
        record["status"] = 400
        violations = [{"field": field, "description": text} for field, text in problems]
        return await respond(send, 400, google_error(400, "INVALID_ARGUMENT", "; ".join(record["problems"]), [
            fcm_detail("INVALID_ARGUMENT"), {"@type": BAD_REQUEST, "fieldViolations": violations}]))
    if SETTINGS.get("send_delay_ms"):
        await asyncio.sleep(SETTINGS["send_delay_ms"] / 1000)
    token = document["message"].get("token", "")
    kind = token.split("-", 1)[0]
    first_time = token not in SEEN
    SEEN.add(token)
    headers = []
    if kind == "never":
        record["status"] = None
        while (await receive())["type"] != "http.disconnect":
            pass
        return
    if kind == "unregistered":
        status, answer = 404, google_error(404, "NOT_FOUND", "Requested entity was not found.",
                                           [fcm_detail("UNREGISTERED")])
    elif kind == "badtoken":
        status, answer = 400, google_error(400, "INVALID_ARGUMENT",
                                           "The registration token is not a valid FCM registration token", [
                                               fcm_detail("INVALID_ARGUMENT"),
                                               {"@type": BAD_REQUEST, "fieldViolations": [
                                                   {"field": "message.token", "description": "Invalid registration token"}]}])
    elif kind == "unauthalways" or (kind == "unauthonce" and first_time):
        status, answer = 401, google_error(401, "UNAUTHENTICATED", "Request had invalid authentication credentials.")
    elif kind == "unavailable":
        status, answer = 503, google_error(503, "UNAVAILABLE", "The service is currently unavailable.",
                                           [fcm_detail("UNAVAILABLE")])
        headers = [("retry-after", "7")]
    elif kind == "quota":
        status, answer = 429, google_error(429, "RESOURCE_EXHAUSTED", "Quota exceeded for quota metric.",
                                           [fcm_detail("QUOTA_EXCEEDED")])
        headers = [("retry-after", email.utils.formatdate(time.time() + 30, usegmt=True))]
    elif kind == "internal":
        status, answer = 500, google_error(500, "INTERNAL", "Internal error encountered.", [fcm_detail("INTERNAL")])
    elif kind == "senderid":
        status, answer = 403, google_error(403, "PERMISSION_DENIED", "SenderId mismatch",
                                           [fcm_detail("SENDER_ID_MISMATCH")])
    elif kind == "disabled":
        status, answer = 403, google_error(403, "PERMISSION_DENIED", "Firebase Cloud Messaging API has not been "
                                           "used in project before or it is disabled.", [
                                               {"@type": ERROR_INFO, "reason": "SERVICE_DISABLED",
                                                "domain": "googleapis.com"}])
    elif kind == "notjson":
        status, answer = 502, b"<html><body>502 Bad Gateway</body></html>"
    elif kind == "nocode":
        status, answer = 400, {"unexpected": "no error member"}
    else:
        COUNTER[0] += 1
        status, answer = 200, {"name": f"projects/{project}/messages/0:{COUNTER[0]}%31bd1c9631bd1c96"}
    record["status"] = status
    await respond(send, status, answer, headers)


async def control(scope, receive, send):
    path = scope["path"]
    if path == "/_peer/requests":
        return await respond(send, 200, RECORDS)
    if path == "/_peer/configure":
        body, _ = await read_body(receive)
        update = json.loads(body or b"{}")
        if update.pop("revoke", False):
            for issued in ISSUED.values():
                issued["revoked"] = True
        SETTINGS.update(update)
        return await respond(send, 200, SETTINGS)
    await respond(send, 404, {"error": "unknown control path"})


async def app(scope, receive, send):
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return
    if scope["type"] != "http":
        return
    if scope["path"].startswith("/_peer/"):
        return await control(scope, receive, send)
    body, gone = await read_body(receive)
    record = {"path": scope["path"], "method": scope["method"], "http_version": scope["http_version"],
              "headers": [[k.decode("latin-1"), v.decode("latin-1")] for k, v in scope["headers"]],
              "body": body.decode(errors="replace"), "problems": [], "status": None, "kind": "other"}
    RECORDS.append(record)
    if gone:
        return
    send_path = re.match(r"^/v1/projects/([^/]+)/messages:send$", scope["path"])
    if scope["path"] == "/token" and scope["method"] == "POST":
        record["kind"] = "grant"
        if SETTINGS.get("token_delay_ms"):
            await asyncio.sleep(SETTINGS["token_delay_ms"] / 1000)
        if SETTINGS.get("token_status"):
            status, answer = SETTINGS["token_status"], SETTINGS.get("token_body", "").encode()
        else:
            status, answer = check_grant(scope, body, record)
        record["status"] = status
        return await respond(send, status, answer)
    if send_path and scope["method"] == "POST":
        record["kind"] = "send"
        return await answer_send(scope, receive, send, body, record, send_path.group(1))
    record["status"] = 404
    await respond(send, 404, google_error(404, "NOT_FOUND", "The requested URL was not found on this server."))


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--cert")
    parser.add_argument("--key")
    parser.add_argument("--plain", action="store_true")
    parser.add_argument("--projects", default="ringer-test")
    args = parser.parse_args()

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(256)
    port = sock.getsockname()[1]
    scheme = "http" if args.plain else "https"
    host = "127.0.0.1" if args.plain else "localhost"
    token_uri = f"{scheme}://{host}:{port}/token"

    for project in args.projects.split(","):
        email = f"firebase-adminsdk-test@{project}.iam.gserviceaccount.com"
        kid = secrets.token_hex(20)
        key = new_key()
        ACCOUNTS[email] = {"project": project, "kid": kid, "public_key": key.public_key(), "token_uri": token_uri}
        write_account(args.dir, f"{project}.json", project, email, kid, key, token_uri)
        write_account(args.dir, f"{project}-wrong-key.json", project, email, kid, new_key(), token_uri)
    write_account(args.dir, "stranger.json", "stranger-project", "stranger@stranger-project.iam.gserviceaccount.com",
                  secrets.token_hex(20), new_key(), token_uri)

    config = Config()
    config.bind = [f"fd://{sock.fileno()}"]
    config.accesslog = None
    config.errorlog = "-"
    config.loglevel = "WARNING"
    config.graceful_timeout = 0.5
    if not args.plain:
        config.certfile = args.cert
        config.keyfile = args.key

    loop = asyncio.get_running_loop()
    stdin_closed = asyncio.Event()

    def watch_stdin():
        sys.stdin.buffer.read()  # returns at EOF: the parent closed the pipe or died
        loop.call_soon_threadsafe(stdin_closed.set)

    loop.run_in_executor(None, watch_stdin)
    print(f"PORT {port}", flush=True)
    await serve(app, config, shutdown_trigger=stdin_closed.wait)


if __name__ == "__main__":
    asyncio.run(main())

#!/usr/bin/env python3
"""Checks that the server routes exactly the operations docs/openapi.yaml lists, by asking it: for every path of
the spec and each of GET, PUT, POST, DELETE and PATCH, one request (path parameters filled with ids that exist,
the admin key for admin and API key operations, a user token otherwise, `{}` as the body of PUT and POST).

- A documented operation must reach its handler: any answer but 405 `method-not-allowed` and 404 `not-found`
  (the router's "no such route"; 404 `call-not-found` and the like are the handler's own).
- An undocumented method on a documented path must get 405 `method-not-allowed` as problem+json, with an
  `Allow` header listing exactly the documented methods (RFC 9110 §15.5.6).

Prints one JSON object {"checked": n, "mismatches": [...]} and exits 0 when there is none.

Usage: route_parity_peer.py SPEC BASE_URL USER_TOKEN ADMIN_KEY CALL_ID DEVICE_ID"""
import json
import sys
import urllib.error
import urllib.request

import yaml

spec_path, base, user_token, admin_key, call_id, device_id = sys.argv[1:7]
spec = yaml.safe_load(open(spec_path))
METHODS = ["GET", "PUT", "POST", "DELETE", "PATCH"]
PROBLEM = "https://ringer.dev/problems/"


def send(method, path, bearer):
    body = b"{}" if method in ("PUT", "POST") else None
    request = urllib.request.Request(base + path, data=body, method=method)
    request.add_header("Authorization", f"Bearer {bearer}")
    if body is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def problem_type(body):
    try:
        return json.loads(body).get("type", "")
    except (ValueError, AttributeError):
        return ""


mismatches, checked = [], 0
for template, item in spec["paths"].items():
    documented = {method.upper() for method in item if method.upper() in METHODS}
    path = template.replace("{call_id}", call_id).replace("{device_id}", device_id).replace("{key_id}", "a" * 12).replace("{endpoint_id}", "ep_" + "a" * 24).replace("{delivery_id}", "1").replace("{provider_id}", "pp_" + "a" * 24)
    # The admin key holds every API key scope too.
    admin = any("adminKey" in requirement or "apiKey" in requirement or "metricsToken" in requirement
                for operation in item.values() if isinstance(operation, dict)
                for requirement in operation.get("security", []) or [])
    for method in METHODS:
        checked += 1
        status, headers, body = send(method, path, admin_key if admin else user_token)
        kind = problem_type(body)
        if method in documented:
            if status == 405 or (status == 404 and kind == PROBLEM + "not-found"):
                mismatches.append({"operation": f"{method} {template}", "documented": True, "status": status,
                                   "type": kind})
        else:
            allow = {part.strip() for part in headers.get("Allow", headers.get("allow", "")).split(",") if part.strip()}
            if status != 405 or kind != PROBLEM + "method-not-allowed" or allow - {"HEAD"} != documented:
                mismatches.append({"operation": f"{method} {template}", "documented": False, "status": status,
                                   "type": kind, "allow": sorted(allow), "expected_allow": sorted(documented)})
print(json.dumps({"checked": checked, "mismatches": mismatches}))
sys.exit(1 if mismatches else 0)

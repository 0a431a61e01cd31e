#!/usr/bin/env python3
"""google-auth (PyPI, unmodified) gets an access token from Ringer's FCM sandbox, exactly as it would from
Google: service-account credentials from the file (whose token_uri points at the sandbox), the
firebase.messaging scope, and a refresh over google.auth.transport.requests (HTTP/1.1). The sandbox's CA
comes from REQUESTS_CA_BUNDLE.

Usage: fcm_google_auth_peer.py --service-account FILE
Prints one JSON object: {"token": <access token>, "expires_in": seconds until google-auth's expiry}, or
{"error": <RefreshError text>} (exit status 0 either way; the test judges).
"""
import argparse
import datetime
import json

import google.auth.exceptions
import google.auth.transport.requests
from google.oauth2 import service_account


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--service-account", required=True)
    parser.add_argument("--scope", default="https://www.googleapis.com/auth/firebase.messaging")
    args = parser.parse_args()
    credentials = service_account.Credentials.from_service_account_file(args.service_account, scopes=[args.scope])
    try:
        credentials.refresh(google.auth.transport.requests.Request())
    except google.auth.exceptions.RefreshError as error:
        print(json.dumps({"error": str(error)}), flush=True)
        return
    now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    left = (credentials.expiry - now).total_seconds() if credentials.expiry else None
    print(json.dumps({"token": credentials.token, "expires_in": left, "valid": credentials.valid}), flush=True)


if __name__ == "__main__":
    main()

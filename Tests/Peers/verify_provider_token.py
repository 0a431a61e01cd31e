#!/usr/bin/env python3
"""Independent check of an APNs provider token with PyJWT (Apple: "Establishing a token-based
connection to APNs"): ES256, header kid = key id, claims iss = team id and a fresh iat.

Usage: verify_provider_token.py TOKEN_FILE PUBLIC_KEY_PEM KEY_ID TEAM_ID
Exits 0 and prints the claims when valid; exits 1 with the reason otherwise."""
import sys
import time

import jwt

token = open(sys.argv[1]).read().strip()
public_key = open(sys.argv[2]).read()
key_id, team_id = sys.argv[3], sys.argv[4]
try:
    header = jwt.get_unverified_header(token)
    assert header.get("alg") == "ES256", f"alg is {header.get('alg')}"
    assert header.get("kid") == key_id, f"kid is {header.get('kid')}"
    claims = jwt.decode(token, public_key, algorithms=["ES256"], options={"require": ["iat", "iss"]})
    assert claims["iss"] == team_id, f"iss is {claims['iss']}"
    age = time.time() - claims["iat"]
    assert -60 <= age <= 3600, f"iat is {age:.0f} s old"
    assert set(claims) == {"iss", "iat"}, f"unexpected claims {sorted(claims)}"
except Exception as error:  # any failure is a failed check
    print(f"invalid provider token: {error}")
    sys.exit(1)
print(f"valid provider token: header={header} claims={claims}")

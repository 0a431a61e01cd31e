#!/usr/bin/env python3
"""Independent JWT peer for Ringer's JWT tests, built on PyJWT and cryptography.

Subcommands (DIR is a scratch directory owned by the Swift test):
  keys DIR            write keys made by `cryptography`: rsa_pkcs1.pem, rsa_pkcs8.pem, ec_sec1.pem,
                      ec_pkcs8.pem and their public halves rsa_public.pem, ec_public.pem
  sign DIR SECRET     print JSON {"es256", "rs256", "hs256", "now"}: tokens PyJWT signs with those keys
  verify DIR SECRET   check DIR/swift_tokens.json (tokens Swift signed) with PyJWT: signatures, exact
                      headers, claims, 64-byte ES256 signatures, unescaped slashes, and that tampered
                      copies are rejected

Exit status 0 when every check passes, 1 with a message on stderr otherwise.
"""
import base64
import json
import os
import sys

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

# The claims both sides use; the Swift test encodes the same values.
APNS_KEY_ID = "KEYID12345"
APNS_TEAM_ID = "TEAMID1234"
GOOGLE_ISSUER = "ringer-test@example.iam.gserviceaccount.com"
GOOGLE_AUDIENCE = "https://oauth2.googleapis.com/token"
GOOGLE_SCOPE = "https://www.googleapis.com/auth/firebase.messaging"


class Mismatch(Exception):
    pass


def expect(condition, message):
    if not condition:
        raise Mismatch(message)


def b64url_decode(segment):
    return base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4))


def read(directory, name):
    with open(os.path.join(directory, name), "rb") as handle:
        return handle.read()


def write(directory, name, data, mode=0o600):
    path = os.path.join(directory, name)
    with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode), "wb") as handle:
        handle.write(data)


def command_keys(directory):
    rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    ec_key = ec.generate_private_key(ec.SECP256R1())
    none = serialization.NoEncryption()
    pem = serialization.Encoding.PEM
    write(directory, "rsa_pkcs1.pem", rsa_key.private_bytes(pem, serialization.PrivateFormat.TraditionalOpenSSL, none))
    write(directory, "rsa_pkcs8.pem", rsa_key.private_bytes(pem, serialization.PrivateFormat.PKCS8, none))
    write(directory, "ec_sec1.pem", ec_key.private_bytes(pem, serialization.PrivateFormat.TraditionalOpenSSL, none))
    write(directory, "ec_pkcs8.pem", ec_key.private_bytes(pem, serialization.PrivateFormat.PKCS8, none))
    spki = serialization.PublicFormat.SubjectPublicKeyInfo
    write(directory, "rsa_public.pem", rsa_key.public_key().public_bytes(pem, spki), 0o644)
    write(directory, "ec_public.pem", ec_key.public_key().public_bytes(pem, spki), 0o644)


def expected_claims(now):
    """The three claim sets, keyed by algorithm, for a token issued at `now` (unix seconds)."""
    return {
        "ES256": {"iss": APNS_TEAM_ID, "iat": now},
        "RS256": {"iss": GOOGLE_ISSUER, "scope": GOOGLE_SCOPE, "aud": GOOGLE_AUDIENCE, "iat": now, "exp": now + 3600},
        "HS256": {"sub": "bob", "name": "Bob", "iat": now, "exp": now + 3600},
    }


def command_sign(directory, secret):
    import time
    now = int(time.time())
    claims = expected_claims(now)
    tokens = {
        "now": now,
        "es256": jwt.encode(claims["ES256"], read(directory, "ec_pkcs8.pem"), algorithm="ES256",
                            headers={"kid": APNS_KEY_ID}),
        "rs256": jwt.encode(claims["RS256"], read(directory, "rsa_pkcs8.pem"), algorithm="RS256"),
        "hs256": jwt.encode(claims["HS256"], secret.encode(), algorithm="HS256"),
    }
    print(json.dumps(tokens))


def tampered(token):
    """Copies of `token` with one changed header, payload and signature byte each."""
    header, payload, signature = token.split(".")

    def flip(segment):
        raw = bytearray(b64url_decode(segment))
        raw[len(raw) // 2] ^= 0x01
        return base64.urlsafe_b64encode(bytes(raw)).rstrip(b"=").decode()

    return [f"{flip(header)}.{payload}.{signature}", f"{header}.{flip(payload)}.{signature}",
            f"{header}.{payload}.{flip(signature)}"]


def check_token(name, token, key, algorithm, header_json, claims, audience=None):
    segments = token.split(".")
    expect(len(segments) == 3, f"{name}: {len(segments)} segments")
    expect(all("=" not in s for s in segments), f"{name}: padded base64url")
    expect(b64url_decode(segments[0]) == header_json,
           f"{name}: header bytes {b64url_decode(segments[0])!r}, expected {header_json!r}")
    options = {"require": sorted(claims.keys())}
    try:
        decoded = jwt.decode(token, key, algorithms=[algorithm], audience=audience, options=options)
    except jwt.PyJWTError as error:
        raise Mismatch(f"{name}: PyJWT rejected the token: {error!r}")
    expect(decoded == claims, f"{name}: claims {decoded!r}, expected {claims!r}")
    for copy in tampered(token):
        try:
            jwt.decode(copy, key, algorithms=[algorithm], audience=audience, options=options)
        except (jwt.PyJWTError, ValueError, UnicodeDecodeError):
            continue
        raise Mismatch(f"{name}: PyJWT accepted a tampered copy")
    return segments


def command_verify(directory, secret):
    tokens = json.loads(read(directory, "swift_tokens.json"))
    claims = expected_claims(tokens["now"])

    # ES256: APNs provider-token shape, public key and .p8 written by Swift.
    swift_p8 = read(directory, "swift_es256.p8")
    expect(swift_p8.startswith(b"-----BEGIN PRIVATE KEY-----"), "Swift .p8 is not PKCS#8 PEM")
    private_key = serialization.load_pem_private_key(swift_p8, password=None)
    expect(isinstance(private_key, ec.EllipticCurvePrivateKey) and private_key.curve.name == "secp256r1",
           "Swift .p8 is not an EC P-256 key")
    public_pem = read(directory, "swift_es256_public.pem")
    spki = serialization.PublicFormat.SubjectPublicKeyInfo
    expect(private_key.public_key().public_bytes(serialization.Encoding.PEM, spki) == public_pem,
           "Swift public key PEM does not match its .p8")
    es256 = check_token("ES256", tokens["es256"], public_pem, "ES256",
                        b'{"alg":"ES256","kid":"' + APNS_KEY_ID.encode() + b'"}', claims["ES256"])
    expect(len(b64url_decode(es256[2])) == 64, f"ES256: signature is {len(b64url_decode(es256[2]))} bytes, not 64")

    # RS256: Google OAuth2 grant shape, signed by Swift with the PKCS#1 key this script made.
    rs256 = check_token("RS256", tokens["rs256"], read(directory, "rsa_public.pem"), "RS256",
                        b'{"alg":"RS256","typ":"JWT"}', claims["RS256"], audience=GOOGLE_AUDIENCE)
    expect(b'"https://oauth2.googleapis.com/token"' in b64url_decode(rs256[1]), "RS256: slashes were escaped")
    expect(len(b64url_decode(rs256[2])) == 256, "RS256: signature is not 256 bytes")

    # HS256: user-token shape.
    check_token("HS256", tokens["hs256"], secret.encode(), "HS256", b'{"alg":"HS256","typ":"JWT"}', claims["HS256"])


def main(argv):
    if len(argv) < 3 or argv[1] not in ("keys", "sign", "verify"):
        print(__doc__, file=sys.stderr)
        return 2
    try:
        if argv[1] == "keys":
            command_keys(argv[2])
        elif argv[1] == "sign":
            command_sign(argv[2], argv[3])
        else:
            command_verify(argv[2], argv[3])
    except Mismatch as mismatch:
        print(f"verify_jwt.py: MISMATCH: {mismatch}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

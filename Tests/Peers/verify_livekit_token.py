#!/usr/bin/env python3
"""Independent check of a media token with LiveKit's own verifier (livekit-api's TokenVerifier).

Usage: verify_livekit_token.py TOKEN API_KEY API_SECRET IDENTITY ROOM
Exits 0 when LiveKit accepts the token for that identity and room with room_join."""
import sys

from livekit import api

token, key, secret, identity, room = sys.argv[1:6]
try:
    claims = api.TokenVerifier(key, secret).verify(token)
    assert claims.identity == identity, f"identity is {claims.identity}"
    assert claims.video.room == room, f"room is {claims.video.room}"
    assert claims.video.room_join, "room_join is not granted"
except Exception as error:
    print(f"LiveKit rejected the token: {error}")
    sys.exit(1)
print(f"LiveKit accepts the token: identity={claims.identity} room={claims.video.room}")

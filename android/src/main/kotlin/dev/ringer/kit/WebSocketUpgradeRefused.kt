package dev.ringer.kit

import java.io.IOException

/**
 * A [WebSocketTransport.connect] failure in which the server answered the upgrade request with an HTTP status
 * other than 101 (RFC 6455 §4.1), e.g. 401 for a token it does not accept or 429 over its per-user socket cap.
 * Other failures (no answer, TLS, timeout) are thrown as plain [IOException]s.
 *
 * @property status the HTTP status of the refusal.
 */
class WebSocketUpgradeRefused(val status: Int) : IOException("WebSocket upgrade refused with HTTP $status")

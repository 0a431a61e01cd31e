/// The help text of the `ringer` command.
enum Usage {
    static let text = """
    ringer — rings a callee's phone like a real phone call, even when the app is closed.

    Usage:
      ringer serve [flags]      Run the server (HTTP API, WebSocket, APNs VoIP pushes).
          --listen 127.0.0.1:8080   --database ringer.sqlite   --admin-key KEY   --user-token-secret SECRET
          --apns-key-file AuthKey.p8 --apns-key-id ID --apns-team-id TEAM
          --apns-host HOST[:PORT] | --apns-sandbox-host H --apns-production-host H   --apns-ca-file ca.pem
          --ring-timeout 45   --media-url URL --media-api-key KEY --media-api-secret SECRET
          Every flag is also an environment variable: --admin-key is RINGER_ADMIN_KEY.
      ringer sandbox [flags]    Run the APNs sandbox (HTTP/2 + TLS, Apple's checks and errors).
          --listen 127.0.0.1:2197   --cert server.pem --key server.key (a throw-away CA is made if absent)
          --key-id ID --team-id TEAM --key-file AuthKey.p8|public.pem   --devices TOKEN:BUNDLE[,TOKEN:BUNDLE]
      ringer demo [--json] [--verbose]
                                Alice calls Bob, whose iPhone app is killed, all on loopback.
                                --json: one JSON object per line; --verbose: server and sandbox logs too.
      ringer keys --out DIR     Write a throw-away APNs key (.p8) and a dev CA + localhost certificate.
    """
}

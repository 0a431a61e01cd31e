/// The help text of the `ringer` command: the server and its operator commands.
enum Usage {
    static let text = """
        ringer — rings a callee's phone like a real phone call, even when the app is closed.

        Usage:
          ringer serve [flags]      Run the server (HTTP API, WebSocket, APNs VoIP pushes, FCM data messages).
              --listen 127.0.0.1:8080   --database ringer.sqlite   --admin-key KEY   --user-token-secret SECRET
              --database postgres://user:password@host:5432/ringer (several servers on one PostgreSQL; the password
                                    is best given in RINGER_DATABASE)   --database-pool-size 8 (connections per server)
              --database-timeout 2 (seconds each PostgreSQL operation may take, waits included; past it: 503)
              --redis redis://:password@host:6379 (the cluster's Redis)   --node-id NAME (this server in the cluster)
              --redis-prefix ringer (the cluster's Redis names; clusters sharing one Redis each need their own)
              --user-token-public-key KID.pem (the app backend's ES256/RS256 key for tokens it signs; repeatable)
              --apns-key-file AuthKey.p8 --apns-key-id ID --apns-team-id TEAM      (token authentication), or
              --apns-cert-file app.p12|cert.pem [--apns-cert-key-file key.pem] [--apns-cert-password P]
                                                                                    (certificate authentication)
              The .p12 password: RINGER_APNS_CERT_PASSWORD is safer than the flag, which shows in `ps`.
              --apns-host HOST[:PORT] | --apns-sandbox-host H --apns-production-host H   --apns-ca-file ca.pem
              --fcm-service-account firebase.json (repeat for several Firebase projects; the first is the default)
              --fcm-host HOST[:PORT] (default Google's)   --fcm-ca-file ca.pem (for the FCM host and the token URI)
              --ring-timeout 45   --media-url URL --media-api-key KEY --media-api-secret SECRET
              --max-sockets-per-user 10 (event sockets per user; more are refused with 429 too-many-sockets)
              --request-deadline 30 (seconds a request body may take after its head; slower: 408 and closed)
              --max-connections-per-address 1000 (TCP connections per client address, more are closed at once;
                                    0: no cap; loopback peers such as a reverse proxy on the host are not counted)
              --max-connections 0 (TCP connections held at once; 0: the open-file limit less a reserve of 1/32, 32–1024;
                                    at it, the slowest connection to send its request or read its answer makes room,
                                    else the longest idle)
              --call-idle-timeout 120 (an accepted call with no open event socket, keepalive or action of either
              party's app for this long ends connection_lost; 10–3600 s)
              --max-call-duration 14400 (an accepted call ends max_duration this long after the answer; 60–604800 s)
              --retention-days 30 (ended calls placed, and events appended, longer ago than this are deleted with the
                                    calls' push outcomes; 0: keep forever)
              Rate limits per minute (0 = off; over one: 429 rate-limited with Retry-After; docs/security.md):
              --rate-limit-calls-per-minute 30 (per caller)   --rate-limit-calls-to-one-callee-per-minute 10
              --rate-limit-calls-per-callee-per-minute 30 (to one callee from all callers)
              --rate-limit-reads-per-minute 300 (GET and HEAD requests per user)
              --rate-limit-event-stream-connects-per-minute 60 (event stream connections per user)
              --rate-limit-device-changes-per-minute 20 (per user)   --rate-limit-unknown-callees-per-minute 20
              --rate-limit-auth-failures-per-minute 60 (per client address; IPv6 per /64)
              --trusted-proxy CIDR (repeatable): the client is the right-most X-Forwarded-For address not in one
              Every flag is also an environment variable: --admin-key is RINGER_ADMIN_KEY; a repeatable one's
              variable takes several values separated by commas.
          ringer copy-database --from ringer.sqlite [--to postgres://user@host:5432/ringer]
                                    Copy every row of a stopped server's SQLite file into an empty PostgreSQL
                                    database (or RINGER_DATABASE), all or nothing (docs/operations.md).

        The laboratory (the APNs and FCM sandboxes, simulated phones, scenarios, the race explorer, the demo and the
        benchmark) is the separate `ringer-lab` command: `ringer-lab help`.
        """
}

/// The help text of the `ringer` command.
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
          Test-only: --test-time-scale 0.1 [--test-time-origin UNIX_MS] (server time runs 10 times faster; servers
                                given one origin share it; never in production)   --test-parent-pid PID (drain
                                and exit once PID is no longer this server's parent)
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
      ringer sandbox [flags]    Run the APNs sandbox (HTTP/2 + TLS, Apple's checks and errors) and the FCM sandbox
                                (Google's token endpoint and FCM HTTP v1 messages:send; docs/fcm.md).
          --listen 127.0.0.1:2197   --cert server.pem --key server.key (a throw-away CA is made if absent)
          --key-id ID --team-id TEAM --key-file AuthKey.p8|public.pem   --devices TOKEN:BUNDLE[,TOKEN:BUNDLE]
          --client-ca ca.pem    also accept provider client certificates signed by this CA (UID = bundle id)
          Control routes: POST /sandbox/devices, GET /sandbox/pushes[?since=N], GET /sandbox/stats, and faults:
          POST /sandbox/faults {"kind": "answer"|"delay"|"never_answer"|"goaway"|"close"|"max_concurrent_streams", …},
          GET or DELETE /sandbox/faults (README, "Running the server").
          --fcm-listen 127.0.0.1:2198 (HTTP/2)   --fcm-http1-listen 127.0.0.1:2199 (HTTP/1.1, token URI, phones'
          WebSocket; both ephemeral when --listen's port is 0)   --fcm-service-account FILE (repeatable)
          --fcm-devices PROJECT:TOKEN[,PROJECT:TOKEN]   The same /sandbox/ routes on both FCM ports.
          --fcm-demotion-threshold 5 --fcm-demotion-window 3600   high-priority messages that show nothing, and
                                the seconds they are counted over, before an app's are delivered as normal
      ringer demo [--android] [--json] [--verbose]
                                Alice calls Bob, whose iPhone app is killed, all on loopback.
                                --android: Bob's Android app was swiped away; FCM starts it.
                                --json: one JSON object per line; --verbose: server and sandbox logs too.
      ringer scenario [--time-scale 0.01] [--nodes N --database URL --redis URL] [--trace] [--verbose] FILE.json|FOLDER...
                                Play scenario files (docs/scenarios.md) against the server, the APNs and FCM
                                sandboxes and simulated iPhones and Android phones on loopback; prints what differed from each file's
                                "expect". --time-scale: real seconds per scenario second (1 = real time);
                                --trace: print every run's time line. Exit 0 all matched, 1 a mismatch,
                                2 a bad file or flag.
      ringer explore [--seed 1] [--runs 1] [--time-scale 0.04] [--nodes N --database URL --redis URL] [--trace] [--verbose]
                                Race exploration (docs/scenarios.md): seeds N … N+runs-1 each make a random
                                script (callee devices, slow pushes, answers, declines, cancel, app kills,
                                phones off/on) played on loopback; checks the ringing invariants after each.
                                Prints a failing seed's violations, script and time line; --trace: every
                                run's. Exit 0 all kept, 1 a violation, 2 a bad flag.
                                --nodes N (scenario and explore): N `ringer serve` processes of this binary on
                                a fresh database per run on the PostgreSQL server of --database (its role
                                needs CREATEDB; or RINGER_SCENARIO_DATABASE) and on --redis (or
                                RINGER_SCENARIO_REDIS; runs may share it), behind a loopback balancer;
                                explore's scripts then kill nodes (SIGKILL) and start them again. The time
                                scale defaults to 0.1 on a cluster. SIGINT/SIGTERM/SIGHUP stop the run's
                                nodes, drop its database and exit 130/143/129; a second signal exits at once.
      ringer copy-database --from ringer.sqlite [--to postgres://user@host:5432/ringer]
                                Copy every row of a stopped server's SQLite file into an empty PostgreSQL
                                database (or RINGER_DATABASE), all or nothing (docs/operations.md).
      ringer keys --out DIR [--fcm-sandbox https://localhost:2199] [--fcm-project ringer-dev]
                                Write a throw-away APNs key (.p8), a dev CA + localhost certificate, and a
                                throw-away FCM service account whose token_uri is the FCM sandbox's.
      ringer bench [--pushes 20000] [--fcm-messages N] [--concurrency 200] [--connections 2]
                   [--only apns|fcm|ringing|fanout|cluster] [--rounds 3] [--python python3] [--aioapns-script Tests/Peers/bench_aioapns.py]
                   [--firebase-admin-script Tests/Peers/bench_firebase_admin.py] [--h2load h2load]
                   [--idle-sockets 0,5000,10000,max] [--ringing-rate 500] [--ringing-pairs 100]
                   [--ringing-step-seconds 3] [--ringing-script Tests/Peers/bench_ringing.py]
                   [--holder-script Tests/Peers/bench_ws_holder.py] [--fanout-calls 1000]
                   [--fanout-script Tests/Peers/bench_fanout.py] [--cluster-pairs 100] [--cluster-rate 100]
                   [--cluster-step-seconds 3]
                                VoIP pushes per second to a `ringer sandbox` process from Ringer's APNs client
                                (--connections: its pool size), aioapns and h2load (one HTTP/2 connection each),
                                then FCM ringing messages per second (--fcm-messages, default --pushes) to another
                                from Ringer's FCM client, firebase-admin (send_each_async, send_each) and h2load
                                (BENCHMARKS.md); Ringer and h2load run --rounds interleaved rounds and count
                                by their median round. Then the ringing part: `ringer serve` with idle event
                                sockets of other users open (--idle-sockets: counts, max = what the server's
                                open-file limit allows), calls between --ringing-pairs callers and callees:
                                sustainable calls/s (an open-loop rate search), POST -> push and POST ->
                                call.incoming p50/p99 at --ringing-rate calls/s, RSS per idle socket, server CPU.
                                Then the fan-out part: --fanout-calls calls at once, each to a user with 10
                                devices (4 VoIP push, 3 FCM, 3 sockets): devices lost, duplicates, and how
                                long each push waited from the server's decision to the sandbox's receipt.
                                Then the cluster part: the ringing part's calls (--cluster-pairs) on 1 node on
                                SQLite, 1 on PostgreSQL, 2 and 3 on PostgreSQL + Redis (its own PostgreSQL 15 and
                                redis-server): sustainable calls/s, POST -> push p50/p99 and CPU per call at
                                --cluster-rate calls/s, every call's VoIP push counted (missing, duplicate).
                                Each part ends with a RESULT line. Loads every core for a few seconds per
                                sender, and for a few minutes in the ringing part.
          ringer bench --send URL --ca-file ca.pem --key-file AuthKey.p8 --key-id ID --team-id TEAM
                       --device TOKEN --topic BUNDLE.voip --payload-file payload.json [--pushes] [--concurrency]
          ringer bench --send-fcm URL --ca-file ca.pem --service-account FILE --fcm-token TOKEN
                       --ringer-file ringer.json --collapse-key KEY [--pushes] [--concurrency]
                                Only Ringer's APNs or FCM client, to a running sandbox; prints one JSON line.
    """
}

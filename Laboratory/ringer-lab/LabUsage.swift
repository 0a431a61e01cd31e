/// The help text of the `ringer-lab` command: the laboratory around the server.
enum LabUsage {
    static let text = """
        ringer-lab — the laboratory around `ringer serve`: APNs and FCM sandboxes, simulated iPhones and Android
        phones, scenarios, the race explorer, the demo and the benchmark. Never part of a production deployment.

        Usage:
          ringer-lab node [serve's flags] [--test-time-scale 0.1 [--test-time-origin UNIX_MS]] [--test-parent-pid PID]
                                    `ringer serve` on a test clock, for the server nodes of scenario and explore runs on a
                                    cluster: server time runs 1/scale times faster from the origin (nodes given one origin
                                    share it); the node drains and exits once PID is no longer its parent.
          ringer-lab sandbox [flags]    Run the APNs sandbox (HTTP/2 + TLS, Apple's checks and errors) and the FCM sandbox
                                    (Google's token endpoint and FCM HTTP v1 messages:send; docs/fcm.md).
              --listen 127.0.0.1:2197   --cert server.pem --key server.key (a throw-away CA is made if absent)
              --key-id ID --team-id TEAM --key-file AuthKey.p8|public.pem   --devices TOKEN:BUNDLE[,TOKEN:BUNDLE]
              --client-ca ca.pem    also accept provider client certificates signed by this CA (UID = bundle id)
              Control routes: POST /sandbox/devices, GET /sandbox/pushes[?since=N], GET /sandbox/stats, and faults:
              POST /sandbox/faults {"kind": "answer"|"delay"|"never_answer"|"goaway"|"close"|"max_concurrent_streams", …},
              GET or DELETE /sandbox/faults (docs/sandbox.md).
              --fcm-listen 127.0.0.1:2198 (HTTP/2)   --fcm-http1-listen 127.0.0.1:2199 (HTTP/1.1, token URI, phones'
              WebSocket; both ephemeral when --listen's port is 0)   --fcm-service-account FILE (repeatable)
              --fcm-devices PROJECT:TOKEN[,PROJECT:TOKEN]   The same /sandbox/ routes on both FCM ports.
              --fcm-demotion-threshold 5 --fcm-demotion-window 3600   high-priority messages that show nothing, and
                                    the seconds they are counted over, before an app's are delivered as normal
          ringer-lab demo [--android] [--json] [--verbose]
                                    Alice calls Bob, whose iPhone app is killed, all on loopback.
                                    --android: Bob's Android app (the Kotlin SDK in the phone host) was swiped
                                    away; FCM starts it.
                                    --json: one JSON object per line; --verbose: server and sandbox logs too.
          ringer-lab scenario [--time-scale 0.01] [--nodes N --database URL --redis URL] [--trace] [--verbose] FILE.json|FOLDER...
                                    Play scenario files (docs/scenarios.md) against the server, the APNs and FCM
                                    sandboxes, simulated iPhones and Android phones on loopback; prints what
                                    differed from each file's "expect". --time-scale: real seconds per scenario
                                    second (1 = real time); --trace: print every run's time line. Exit 0 all
                                    matched, 1 a mismatch, 2 a bad file or flag.
          ringer-lab explore [--seed 1] [--runs 1] [--group] [--time-scale 0.04] [--nodes N --database URL --redis URL] [--trace] [--verbose]
                                    Race exploration (docs/scenarios.md): seeds N … N+runs-1 each make a random
                                    script (callee devices, slow pushes, answers, declines, cancel, app kills,
                                    phones off/on) played on loopback; checks the ringing invariants after each.
                                    --group: group calls to 2-4 callees (either answer policy, some rung in
                                    later) instead of 1:1 calls to bob.
                                    Prints a failing seed's violations, script and time line; --trace: every
                                    run's. Exit 0 all kept, 1 a violation, 2 a bad flag.
                                    Android phones (scenario and explore) are the real Kotlin SDK in the Android
                                    phone host, a JVM (docs/android-phone-host.md): build it first with
                                    make -C android lab, or a run with an Android phone exits 2 saying so.
                                    --nodes N (scenario and explore): N `ringer-lab node` processes of this binary on
                                    a fresh database per run on the PostgreSQL server of --database (its role
                                    needs CREATEDB; or RINGER_SCENARIO_DATABASE) and on --redis (or
                                    RINGER_SCENARIO_REDIS; runs may share it), behind a loopback balancer;
                                    explore's scripts then kill nodes (SIGKILL) and start them again. The time
                                    scale defaults to 0.1 on a cluster. SIGINT/SIGTERM/SIGHUP stop the run's
                                    nodes, drop its database and exit 130/143/129; a second signal exits at once.
          ringer-lab config-reference   Print docs/configuration.md, the reference of ringer serve's flags.
          ringer-lab keys --out DIR [--fcm-sandbox https://localhost:2199] [--fcm-project ringer-dev]
                                    Write a throw-away APNs key (.p8), a dev CA + localhost certificate, and a
                                    throw-away FCM service account whose token_uri is the FCM sandbox's.
          ringer-lab bench [--pushes 20000] [--fcm-messages N] [--concurrency 200] [--connections 2]
                       [--only apns|fcm|ringing|fanout|group|cluster|calls] [--rounds 3] [--python python3] [--aioapns-script Tests/Peers/bench_aioapns.py]
                       [--firebase-admin-script Tests/Peers/bench_firebase_admin.py] [--h2load h2load]
                       [--idle-sockets 0,5000,10000,max] [--ringing-rate 500] [--ringing-pairs 100]
                       [--ringing-step-seconds 3] [--ringing-script Tests/Peers/bench_ringing.py]
                       [--holder-script Tests/Peers/bench_ws_holder.py] [--fanout-calls 1000]
                       [--fanout-script Tests/Peers/bench_fanout.py] [--group-calls 200] [--group-callees 8]
                       [--group-script Tests/Peers/bench_group.py] [--cluster-pairs 100] [--cluster-rate 100]
                       [--cluster-step-seconds 3] [--calls-pairs 100] [--calls-step-seconds 5]
                       [--calls-concurrency 64] [--calls-setup-script Tests/Peers/bench_calls_setup.py]
                       [--calls-gateway-script Tests/Peers/bench_gateway.py]
                                    VoIP pushes per second to a `ringer-lab sandbox` process from Ringer's APNs client
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
                                    Then the group part: --group-calls group calls at once, each to
                                    --group-callees users with 3 devices (VoIP push, FCM, socket), one answer each:
                                    devices lost, duplicates, rings after a leg ended, each push's wait.
                                    Then the cluster part: the ringing part's calls (--cluster-pairs) on 1 node on
                                    SQLite, 1 on PostgreSQL, 2 and 3 on PostgreSQL + Redis (its own PostgreSQL 15 and
                                    redis-server): sustainable calls/s, POST -> push p50/p99 and CPU per call at
                                    --cluster-rate calls/s, every call's VoIP push counted (missing, duplicate).
                                    Then the calls part: server CPU per call at 200 and 500 calls/s and closed-loop
                                    calls/s (--calls-concurrency in flight) of `ringer serve` and of a minimal
                                    Python push gateway (aiohttp + aioapns + sqlite3), from one libcurl load
                                    generator, every call's VoIP push counted.
                                    Each part ends with a RESULT line. Loads every core for a few seconds per
                                    sender, and for a few minutes in the ringing part.
              ringer-lab bench --send URL --ca-file ca.pem --key-file AuthKey.p8 --key-id ID --team-id TEAM
                           --device TOKEN --topic BUNDLE.voip --payload-file payload.json [--pushes] [--concurrency]
              ringer-lab bench --send-fcm URL --ca-file ca.pem --service-account FILE --fcm-token TOKEN
                           --ringer-file ringer.json --collapse-key KEY [--pushes] [--concurrency]
                                    Only Ringer's APNs or FCM client, to a running sandbox; prints one JSON line.
        """
}

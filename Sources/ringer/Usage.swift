import RingerCommandLine

/// The help text of the `ringer` command: the server and its operator commands; `serve`'s flags come from
/// ``ServeFlag/usage``.
enum Usage {
    static let text = """
        ringer — rings a callee's phone like a real phone call, even when the app is closed.

        Usage:
          ringer serve [flags]      Run the server (HTTP API, WebSocket, APNs VoIP pushes, FCM data messages).
        \(ServeFlag.usage)
          Every flag is also an environment variable: --admin-key is RINGER_ADMIN_KEY; a repeatable one's variable
          takes several values separated by commas. What each does: docs/configuration.md.
          ringer doctor [serve's flags]
                                    Check, as a checklist, what the server needs: the database and Redis, APNs and FCM
                                    credentials, certificates' expiry, webhook secrets, the clock; exit 1 if any fails.
          ringer copy-database --from ringer.sqlite [--to postgres://user@host:5432/ringer]
                                    Copy every row of a stopped server's SQLite file into an empty PostgreSQL
                                    database (or RINGER_DATABASE), all or nothing (docs/operations.md).

        The laboratory (the APNs and FCM sandboxes, simulated phones, scenarios, the race explorer, the demo and the
        benchmark) is the separate `ringer-lab` command: `ringer-lab help`.
        """
}

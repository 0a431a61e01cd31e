/// The SQLite schema as an ordered list of migrations, tracked in `PRAGMA user_version`.
///
/// Append new migrations; never edit a released one. Each runs in its own transaction.
enum SQLiteSchema {
    static let migrations: [String] = [
        """
        CREATE TABLE users (
          id TEXT PRIMARY KEY,
          name TEXT,
          created_at REAL NOT NULL
        );
        CREATE TABLE devices (
          device_id TEXT NOT NULL,
          user_id TEXT NOT NULL,
          platform TEXT NOT NULL,
          voip_token TEXT,
          apns_token TEXT,
          apns_environment TEXT,
          bundle_id TEXT,
          fcm_token TEXT,
          updated_at REAL NOT NULL,
          PRIMARY KEY (user_id, device_id)
        );
        CREATE UNIQUE INDEX devices_by_voip_token ON devices (voip_token) WHERE voip_token IS NOT NULL;
        CREATE UNIQUE INDEX devices_by_apns_token ON devices (apns_token) WHERE apns_token IS NOT NULL;
        CREATE UNIQUE INDEX devices_by_fcm_token ON devices (fcm_token) WHERE fcm_token IS NOT NULL;
        CREATE TABLE calls (
          call_id TEXT PRIMARY KEY,
          caller_id TEXT NOT NULL,
          callee_id TEXT NOT NULL,
          state TEXT NOT NULL,
          created_at REAL NOT NULL,
          expires_at REAL NOT NULL,
          machine TEXT NOT NULL
        );
        CREATE INDEX calls_by_caller ON calls (caller_id, created_at);
        CREATE INDEX calls_by_callee ON calls (callee_id, created_at);
        CREATE INDEX calls_by_state ON calls (state, expires_at);
        CREATE TABLE event_sequences (
          user_id TEXT PRIMARY KEY,
          seq INTEGER NOT NULL
        );
        CREATE TABLE events (
          user_id TEXT NOT NULL,
          seq INTEGER NOT NULL,
          type TEXT NOT NULL,
          except_device TEXT,
          call_id TEXT NOT NULL,
          payload TEXT NOT NULL,
          created_at REAL NOT NULL,
          PRIMARY KEY (user_id, seq)
        );
        CREATE TABLE push_attempts (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          call_id TEXT NOT NULL,
          device_id TEXT NOT NULL,
          sent_at REAL NOT NULL,
          record TEXT NOT NULL
        );
        CREATE INDEX push_attempts_by_call ON push_attempts (call_id);
        """,
        """
        CREATE TABLE idempotency_keys (
          user_id TEXT NOT NULL,
          key TEXT NOT NULL,
          call_id TEXT NOT NULL,
          created_at REAL NOT NULL,
          PRIMARY KEY (user_id, key)
        );
        """,
        """
        ALTER TABLE devices ADD COLUMN push_problem_reason TEXT;
        ALTER TABLE devices ADD COLUMN push_problem_token TEXT;
        ALTER TABLE devices ADD COLUMN push_problem_at REAL;
        """,
        """
        ALTER TABLE devices ADD COLUMN fcm_project_id TEXT;
        """,
        """
        CREATE TABLE health_probe (id INTEGER PRIMARY KEY CHECK (id = 1), at REAL NOT NULL);
        """,
        // The readiness pre-flight: the phone's problems as a JSON array of names, and when the server heard
        // them. Both NULL for every device stored before, which reads as "never reported".
        """
        ALTER TABLE devices ADD COLUMN readiness_problems TEXT;
        ALTER TABLE devices ADD COLUMN readiness_at REAL;
        """,
    ]

    /// Applies every migration newer than the database's `user_version`.
    /// - Throws: ``StoreError``; a failed migration is rolled back and the version stays put.
    static func migrate(_ db: SQLiteConnection) throws {
        var version: Int64 = 0
        try db.query("PRAGMA user_version") { version = $0.integer(0) }
        guard version < migrations.count else { return }
        for index in Int(version)..<migrations.count {
            try db.transaction {
                try db.execute(migrations[index])
                try db.execute("PRAGMA user_version = \(index + 1)")
            }
        }
    }
}

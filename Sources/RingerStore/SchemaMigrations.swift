/// The schema as one ordered list of migrations, the same list for SQLite and PostgreSQL: where the two
/// databases spell a step differently, the step carries both spellings.
///
/// Append new migrations; never edit a released one (SQLite's spellings are those of databases already in use).
/// Each runs in its own transaction. The version is SQLite's `PRAGMA user_version`, and PostgreSQL's
/// `ringer_schema.version`.
enum SchemaMigrations {
    /// One step of the schema.
    struct Migration: Sendable {
        let sqlite: String
        let postgres: String

        /// A step both databases spell alike.
        init(_ both: String) { (sqlite, postgres) = (both, both) }
        init(sqlite: String, postgres: String) { (self.sqlite, self.postgres) = (sqlite, postgres) }

        func sql(for dialect: SQLDialect) -> String { dialect == .sqlite ? sqlite : postgres }
    }

    static let migrations: [Migration] = [
        Migration(
            sqlite: """
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
            postgres: """
                CREATE TABLE users (
                  id TEXT PRIMARY KEY,
                  name TEXT,
                  created_at DOUBLE PRECISION NOT NULL
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
                  updated_at DOUBLE PRECISION NOT NULL,
                  position BIGSERIAL NOT NULL,
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
                  created_at DOUBLE PRECISION NOT NULL,
                  expires_at DOUBLE PRECISION NOT NULL,
                  machine TEXT NOT NULL,
                  position BIGSERIAL NOT NULL
                );
                CREATE INDEX calls_by_caller ON calls (caller_id, created_at);
                CREATE INDEX calls_by_callee ON calls (callee_id, created_at);
                CREATE INDEX calls_by_state ON calls (state, expires_at);
                CREATE TABLE event_sequences (
                  user_id TEXT PRIMARY KEY,
                  seq BIGINT NOT NULL
                );
                CREATE TABLE events (
                  user_id TEXT NOT NULL,
                  seq BIGINT NOT NULL,
                  type TEXT NOT NULL,
                  except_device TEXT,
                  call_id TEXT NOT NULL,
                  payload TEXT NOT NULL,
                  created_at DOUBLE PRECISION NOT NULL,
                  PRIMARY KEY (user_id, seq)
                );
                CREATE TABLE push_attempts (
                  id BIGSERIAL PRIMARY KEY,
                  call_id TEXT NOT NULL,
                  device_id TEXT NOT NULL,
                  sent_at DOUBLE PRECISION NOT NULL,
                  record TEXT NOT NULL
                );
                CREATE INDEX push_attempts_by_call ON push_attempts (call_id);
                """),
        Migration(
            sqlite: """
                CREATE TABLE idempotency_keys (
                  user_id TEXT NOT NULL,
                  key TEXT NOT NULL,
                  call_id TEXT NOT NULL,
                  created_at REAL NOT NULL,
                  PRIMARY KEY (user_id, key)
                );
                """,
            postgres: """
                CREATE TABLE idempotency_keys (
                  user_id TEXT NOT NULL,
                  key TEXT NOT NULL,
                  call_id TEXT NOT NULL,
                  created_at DOUBLE PRECISION NOT NULL,
                  PRIMARY KEY (user_id, key)
                );
                """),
        Migration(
            sqlite: """
                ALTER TABLE devices ADD COLUMN push_problem_reason TEXT;
                ALTER TABLE devices ADD COLUMN push_problem_token TEXT;
                ALTER TABLE devices ADD COLUMN push_problem_at REAL;
                """,
            postgres: """
                ALTER TABLE devices ADD COLUMN push_problem_reason TEXT;
                ALTER TABLE devices ADD COLUMN push_problem_token TEXT;
                ALTER TABLE devices ADD COLUMN push_problem_at DOUBLE PRECISION;
                """),
        Migration(
            """
            ALTER TABLE devices ADD COLUMN fcm_project_id TEXT;
            """),
        Migration(
            sqlite: """
                CREATE TABLE health_probe (id INTEGER PRIMARY KEY CHECK (id = 1), at REAL NOT NULL);
                """,
            postgres: """
                CREATE TABLE health_probe (id INTEGER PRIMARY KEY CHECK (id = 1), at DOUBLE PRECISION NOT NULL);
                """),
        // The readiness pre-flight: the phone's problems as a JSON array of names, and when the server heard
        // them. Both NULL for every device stored before, which reads as "never reported".
        Migration(
            sqlite: """
                ALTER TABLE devices ADD COLUMN readiness_problems TEXT;
                ALTER TABLE devices ADD COLUMN readiness_at REAL;
                """,
            postgres: """
                ALTER TABLE devices ADD COLUMN readiness_problems TEXT;
                ALTER TABLE devices ADD COLUMN readiness_at DOUBLE PRECISION;
                """),
        // When each user's stream last grew (wall clock), so a server of a cluster can find the users whose events
        // it may have missed on Redis (``RingerStore/recentSequences(since:)``). 0 for streams from before.
        Migration(
            sqlite: """
                ALTER TABLE event_sequences ADD COLUMN updated_at REAL NOT NULL DEFAULT 0;
                CREATE INDEX event_sequences_by_time ON event_sequences (updated_at);
                """,
            postgres: """
                ALTER TABLE event_sequences ADD COLUMN updated_at DOUBLE PRECISION NOT NULL DEFAULT 0;
                CREATE INDEX event_sequences_by_time ON event_sequences (updated_at);
                """),
        // Which server placed each call, and the servers' heartbeats: a call whose server died before its pushes
        // had an outcome has them sent again by another, once (``RingerStore/claimOrphanedRingingCall(at:deadAfter:)``).
        Migration(
            sqlite: """
                ALTER TABLE calls ADD COLUMN placed_by TEXT;
                ALTER TABLE calls ADD COLUMN pushes_recovered_at REAL;
                CREATE TABLE ringer_nodes (node TEXT PRIMARY KEY, heartbeat_at REAL NOT NULL);
                """,
            postgres: """
                ALTER TABLE calls ADD COLUMN placed_by TEXT;
                ALTER TABLE calls ADD COLUMN pushes_recovered_at DOUBLE PRECISION;
                CREATE TABLE ringer_nodes (node TEXT PRIMARY KEY, heartbeat_at DOUBLE PRECISION NOT NULL);
                """),
        // Reads that cost what they return: a user's calls are read a page at a time from each side's index in
        // (created_at, insertion order), which PostgreSQL's indexes now hold whole (SQLite's hold the rowid anyway);
        // and the retention sweep finds old calls and events by time (``RingerStore/prune(before:batch:)``).
        Migration(
            sqlite: """
                CREATE INDEX calls_by_time ON calls (created_at);
                CREATE INDEX events_by_time ON events (created_at);
                """,
            postgres: """
                CREATE INDEX calls_by_caller_order ON calls (caller_id, created_at, position);
                CREATE INDEX calls_by_callee_order ON calls (callee_id, created_at, position);
                DROP INDEX calls_by_caller;
                DROP INDEX calls_by_callee;
                CREATE INDEX calls_by_time ON calls (created_at);
                CREATE INDEX events_by_time ON events (created_at);
                """),
        // Group calls (decision 0007 §5): a row per callee's leg beside the call's JSON, which stays the truth, as
        // `calls.state` mirrors it. A group call's `calls.callee_id` is '' (no user id is empty). The partial unique
        // index is the database's own guard of `first_answer`: at most one leg of a call's race is ever accepted.
        // `created_at` is the call's, so a callee's calls are read in the calls' order. `ringer_nodes.group_calls`
        // says a server knows legs: while one that does not is alive, group calls are refused.
        Migration(
            sqlite: """
                CREATE TABLE call_legs (
                  call_id TEXT NOT NULL,
                  user_id TEXT NOT NULL,
                  state TEXT NOT NULL,
                  exclusive INTEGER NOT NULL,
                  created_at REAL NOT NULL,
                  expires_at REAL NOT NULL,
                  accepted_at REAL,
                  rung_by TEXT,
                  pushes_recovered_at REAL,
                  PRIMARY KEY (call_id, user_id)
                );
                CREATE UNIQUE INDEX call_legs_one_winner ON call_legs (call_id)
                  WHERE exclusive = 1 AND accepted_at IS NOT NULL;
                CREATE INDEX call_legs_by_user ON call_legs (user_id, created_at);
                CREATE INDEX call_legs_by_user_state ON call_legs (user_id, state);
                CREATE INDEX call_legs_by_state ON call_legs (state, expires_at);
                ALTER TABLE ringer_nodes ADD COLUMN group_calls INTEGER;
                """,
            postgres: """
                CREATE TABLE call_legs (
                  call_id TEXT NOT NULL,
                  user_id TEXT NOT NULL,
                  state TEXT NOT NULL,
                  exclusive INTEGER NOT NULL,
                  created_at DOUBLE PRECISION NOT NULL,
                  expires_at DOUBLE PRECISION NOT NULL,
                  accepted_at DOUBLE PRECISION,
                  rung_by TEXT,
                  pushes_recovered_at DOUBLE PRECISION,
                  PRIMARY KEY (call_id, user_id)
                );
                CREATE UNIQUE INDEX call_legs_one_winner ON call_legs (call_id)
                  WHERE exclusive = 1 AND accepted_at IS NOT NULL;
                CREATE INDEX call_legs_by_user ON call_legs (user_id, created_at);
                CREATE INDEX call_legs_by_user_state ON call_legs (user_id, state);
                CREATE INDEX call_legs_by_state ON call_legs (state, expires_at);
                ALTER TABLE ringer_nodes ADD COLUMN group_calls INTEGER;
                """),
        // API keys for the app's backend (decision 0009 §1): the SHA-256 of each key, never the key; `scopes` a JSON
        // array of names.
        Migration(
            sqlite: """
                CREATE TABLE api_keys (
                  key_id TEXT PRIMARY KEY,
                  name TEXT NOT NULL,
                  scopes TEXT NOT NULL,
                  key_hash TEXT NOT NULL,
                  created_at REAL NOT NULL,
                  last_used_at REAL
                );
                """,
            postgres: """
                CREATE TABLE api_keys (
                  key_id TEXT PRIMARY KEY,
                  name TEXT NOT NULL,
                  scopes TEXT NOT NULL,
                  key_hash TEXT NOT NULL,
                  created_at DOUBLE PRECISION NOT NULL,
                  last_used_at DOUBLE PRECISION,
                  position BIGSERIAL NOT NULL
                );
                """),
        // Webhooks (decision 0009 §3): endpoints with their sealed secrets (`event_types` space-separated, '' for
        // every type); the outbox of events, written in the transaction of the change that made them; a delivery per
        // event and subscribed endpoint, claimed by one server at a time (`claimed_by`, `claimed_until`); and each
        // call's count of events, so a receiver can order them.
        Migration(
            sqlite: """
                CREATE TABLE webhook_endpoints (
                  endpoint_id TEXT PRIMARY KEY,
                  url TEXT NOT NULL,
                  event_types TEXT NOT NULL,
                  description TEXT,
                  enabled INTEGER NOT NULL,
                  disabled_reason TEXT,
                  secret TEXT NOT NULL,
                  previous_secret TEXT,
                  previous_secret_expires_at REAL,
                  created_at REAL NOT NULL,
                  updated_at REAL NOT NULL
                );
                CREATE TABLE webhook_events (
                  event_id TEXT PRIMARY KEY,
                  type TEXT NOT NULL,
                  call_id TEXT,
                  payload TEXT NOT NULL,
                  created_at REAL NOT NULL
                );
                CREATE INDEX webhook_events_by_time ON webhook_events (created_at);
                CREATE TABLE webhook_deliveries (
                  delivery_id INTEGER PRIMARY KEY AUTOINCREMENT,
                  event_id TEXT NOT NULL,
                  endpoint_id TEXT NOT NULL,
                  state TEXT NOT NULL,
                  attempts INTEGER NOT NULL,
                  next_attempt_at REAL NOT NULL,
                  claimed_by TEXT,
                  claimed_until REAL,
                  last_attempt_at REAL,
                  last_status INTEGER,
                  last_error TEXT,
                  delivered_at REAL,
                  created_at REAL NOT NULL
                );
                CREATE INDEX webhook_deliveries_due ON webhook_deliveries (state, next_attempt_at);
                CREATE INDEX webhook_deliveries_by_endpoint ON webhook_deliveries (endpoint_id, delivery_id);
                CREATE INDEX webhook_deliveries_by_event ON webhook_deliveries (event_id);
                ALTER TABLE calls ADD COLUMN webhook_seq INTEGER NOT NULL DEFAULT 0;
                """,
            postgres: """
                CREATE TABLE webhook_endpoints (
                  endpoint_id TEXT PRIMARY KEY,
                  url TEXT NOT NULL,
                  event_types TEXT NOT NULL,
                  description TEXT,
                  enabled INTEGER NOT NULL,
                  disabled_reason TEXT,
                  secret TEXT NOT NULL,
                  previous_secret TEXT,
                  previous_secret_expires_at DOUBLE PRECISION,
                  created_at DOUBLE PRECISION NOT NULL,
                  updated_at DOUBLE PRECISION NOT NULL,
                  position BIGSERIAL NOT NULL
                );
                CREATE TABLE webhook_events (
                  event_id TEXT PRIMARY KEY,
                  type TEXT NOT NULL,
                  call_id TEXT,
                  payload TEXT NOT NULL,
                  created_at DOUBLE PRECISION NOT NULL
                );
                CREATE INDEX webhook_events_by_time ON webhook_events (created_at);
                CREATE TABLE webhook_deliveries (
                  delivery_id BIGSERIAL PRIMARY KEY,
                  event_id TEXT NOT NULL,
                  endpoint_id TEXT NOT NULL,
                  state TEXT NOT NULL,
                  attempts INTEGER NOT NULL,
                  next_attempt_at DOUBLE PRECISION NOT NULL,
                  claimed_by TEXT,
                  claimed_until DOUBLE PRECISION,
                  last_attempt_at DOUBLE PRECISION,
                  last_status INTEGER,
                  last_error TEXT,
                  delivered_at DOUBLE PRECISION,
                  created_at DOUBLE PRECISION NOT NULL
                );
                CREATE INDEX webhook_deliveries_due ON webhook_deliveries (state, next_attempt_at);
                CREATE INDEX webhook_deliveries_by_endpoint ON webhook_deliveries (endpoint_id, delivery_id);
                CREATE INDEX webhook_deliveries_by_event ON webhook_deliveries (event_id);
                ALTER TABLE calls ADD COLUMN webhook_seq BIGINT NOT NULL DEFAULT 0;
                """),
        // Push providers added through the API (decision 0009 §4): what the API shows as JSON, and the credential
        // (a `.p8` key or a service account) sealed by the server; every server reloads them when `updated_at` moves.
        Migration(
            sqlite: """
                CREATE TABLE push_providers (
                  provider_id TEXT PRIMARY KEY,
                  name TEXT NOT NULL UNIQUE,
                  info TEXT NOT NULL,
                  credential TEXT NOT NULL,
                  created_at REAL NOT NULL,
                  updated_at REAL NOT NULL
                );
                """,
            postgres: """
                CREATE TABLE push_providers (
                  provider_id TEXT PRIMARY KEY,
                  name TEXT NOT NULL UNIQUE,
                  info TEXT NOT NULL,
                  credential TEXT NOT NULL,
                  created_at DOUBLE PRECISION NOT NULL,
                  updated_at DOUBLE PRECISION NOT NULL,
                  position BIGSERIAL NOT NULL
                );
                """),
        // The push providers' revision: moved in the transaction of every change, so a server polling it never misses
        // one (a time can repeat or go back between servers; a count cannot).
        Migration(
            """
            CREATE TABLE push_provider_revision (id INTEGER PRIMARY KEY CHECK (id = 1), revision BIGINT NOT NULL);
            INSERT INTO push_provider_revision (id, revision) VALUES (1, 0);
            """),
        // The ringing calls and legs whose pushes no server has recovered, by the server that rings them: the push
        // recovery of every server, every second, finds the few servers with such calls in the index instead of
        // reading every ringing call (at 500 calls/s and 45 s of ringing, 22,500 rows a second; issue 33).
        Migration(
            """
            CREATE INDEX calls_ringing_by_node ON calls (placed_by, created_at)
              WHERE state = 'ringing' AND pushes_recovered_at IS NULL;
            CREATE INDEX call_legs_ringing_by_node ON call_legs (rung_by, created_at)
              WHERE state = 'ringing' AND pushes_recovered_at IS NULL;
            """),
    ]

    /// Applies every migration newer than the database's version, each in its own transaction.
    ///
    /// PostgreSQL: under a session advisory lock, so nodes starting together on one database apply each step
    /// once (the others wait, then find nothing left to do).
    /// - Throws: ``StoreError/newerSchema(found:known:)`` for a database a newer Ringer wrote (it is never
    ///   migrated down); ``StoreError`` otherwise. A failed migration is rolled back and the version stays put.
    static func migrate(_ db: any SQLConnection) throws {
        if db.dialect == .postgres {
            try db.execute("SELECT pg_advisory_lock(\(PostgresLocks.namespace), 0)")
        }
        defer {
            if db.dialect == .postgres { try? db.execute("SELECT pg_advisory_unlock(\(PostgresLocks.namespace), 0)") }
        }
        let version = try Self.version(db)
        guard version <= migrations.count else {
            throw StoreError.newerSchema(found: version, known: migrations.count)
        }
        for index in version..<migrations.count {
            try db.transaction {
                try db.execute(migrations[index].sql(for: db.dialect))
                try setVersion(index + 1, db)
            }
        }
    }

    /// The schema version a database is at (0 for an empty one).
    static func version(_ db: any SQLConnection) throws -> Int {
        var version: Int64 = 0
        switch db.dialect {
        case .sqlite:
            try db.query("PRAGMA user_version", []) { version = $0.integer(0) }
        case .postgres:
            try db.execute("CREATE TABLE IF NOT EXISTS ringer_schema (version INTEGER NOT NULL)")
            try db.query("SELECT version FROM ringer_schema", []) { version = $0.integer(0) }
        }
        return Int(version)
    }

    private static func setVersion(_ version: Int, _ db: any SQLConnection) throws {
        switch db.dialect {
        case .sqlite:
            try db.execute("PRAGMA user_version = \(version)")
        case .postgres:
            try db.execute("DELETE FROM ringer_schema")
            try db.execute("INSERT INTO ringer_schema (version) VALUES (\(version))")
        }
    }
}

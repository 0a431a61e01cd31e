extension PostgresTarget {
    /// Runs SQL that returns no rows (e.g. `CREATE DATABASE`, which cannot run in a transaction) on a connection of
    /// its own, closed afterwards. For the laboratory's throw-away databases (RingerTestKit's
    /// `PostgresScratchDatabase`), which must speak to a server exactly as the store does: same libpq
    /// connection, same errors, same password redaction. The server itself never calls it.
    /// - Parameter sql: one or more statements.
    /// - Throws: ``StoreError`` when the server cannot be reached or refuses.
    package func executeOnce(_ sql: String) throws {
        try PostgresConnection(self).execute(sql)
    }

    /// Runs one query with `?` placeholders bound to text on a connection of its own, closed afterwards.
    /// - Parameters:
    ///   - sql: one statement.
    ///   - bindings: a text value per `?`.
    /// - Returns: each row's first column as text, nil for NULL, in the server's order.
    /// - Throws: ``StoreError`` when the server cannot be reached or refuses.
    package func firstColumnOnce(_ sql: String, _ bindings: [String] = []) throws -> [String?] {
        var column: [String?] = []
        try PostgresConnection(self).query(sql, bindings.map(SQLValue.text)) { column.append($0.text(0)) }
        return column
    }
}

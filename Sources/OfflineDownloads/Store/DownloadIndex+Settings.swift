import GRDB

extension DownloadIndex {
    /// The stored value of the user's setting `key`, nil when never set.
    public func setting(_ key: String) async throws(IndexError) -> String? {
        try await read { db in
            try String.fetchOne(db, sql: "SELECT value FROM setting WHERE key = ?", arguments: [key])
        }
    }

    /// Stores the user's setting `key` (replacing what was there).
    public func setSetting(_ key: String, to value: String) async throws(IndexError) {
        try await write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO setting (key, value) VALUES (?, ?)", arguments: [key, value])
        }
    }
}

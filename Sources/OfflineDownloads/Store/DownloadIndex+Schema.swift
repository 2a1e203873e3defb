import GRDB

extension DownloadIndex {
    /// The index's schema, one migration per format change. Migrations are never
    /// edited once shipped: a change of schema is a new migration ("v2", …).
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: DownloadRecord.databaseTableName) { t in
                t.primaryKey("token", .text)
                t.column("videoID", .text).notNull()
                t.column("masterURL", .text).notNull()
                t.column("displayName", .text).notNull()
                t.column("parameters", .jsonText).notNull()
                t.column("selection", .jsonText).notNull()
                t.column("snapshot", .jsonText).notNull()
                t.column("requestedAt", .datetime).notNull()
                t.column("startedAt", .datetime)
                t.column("finishedAt", .datetime)
                t.column("licenseRequestedAt", .datetime)
                t.column("bytesDownloaded", .integer).notNull().defaults(to: 0)
                t.column("bytesExpected", .integer)
                t.column("errorMessage", .text)
                t.column("packageDirectory", .text).notNull()
            }
            try db.create(table: SegmentRecord.databaseTableName) { t in
                t.column("token", .text).notNull()
                    .references(DownloadRecord.databaseTableName, onDelete: .cascade)
                t.column("stream", .text).notNull()
                t.column("index", .integer).notNull()
                t.primaryKey(["token", "stream", "index"])
                t.column("ordinal", .integer).notNull()
                t.column("uri", .text).notNull()
                t.column("localPath", .text).notNull()
                t.column("expectedLength", .integer)
                t.column("bytes", .integer).notNull().defaults(to: 0)
                t.column("etag", .text)
                t.column("sha256", .text)
                t.column("state", .text).notNull()
                    .check { SegmentRecord.State.allCases.map(\.rawValue).contains($0) }
                // Lists a download's segments in download order, and refuses two at one place.
                t.uniqueKey(["token", "ordinal"])
            }
            try db.create(table: LicenseRecord.databaseTableName) { t in
                t.primaryKey("token", .text)
                    .references(DownloadRecord.databaseTableName, onDelete: .cascade)
                t.column("assetID", .text).notNull()
                t.column("keyID", .text).notNull()
                t.column("contentKey", .blob).notNull()
                t.column("kind", .text).notNull()
                    .check { LicenseRecord.Kind.allCases.map(\.rawValue).contains($0) }
                t.column("issuedAt", .datetime).notNull()
                t.column("expiresAt", .datetime)
                t.column("playDurationSeconds", .integer)
                t.column("firstPlayedAt", .datetime)
                t.column("signedLicense", .blob).notNull()
            }
        }
        // The user's settings, which outlive the process (the cellular setting).
        migrator.registerMigration("v2") { db in
            try db.create(table: "setting") { t in
                t.primaryKey("key", .text)
                t.column("value", .text).notNull()
            }
        }
        return migrator
    }
}

import Foundation
import GRDB

extension LicenseRecord.Kind: DatabaseValueConvertible {}

extension DownloadIndex {
    /// Saves the license of a download, replacing the one it had. Throws `.conflict`
    /// when the download is not in the index.
    public func saveLicense(_ license: LicenseRecord) async throws(IndexError) {
        try await write { db in try license.upsert(db) }
    }

    /// The license of the download `token`, or nil when it has none.
    public func license(for token: String) async throws(IndexError) -> LicenseRecord? {
        try await read { db in try LicenseRecord.fetchOne(db, key: token) }
    }

    /// Deletes the license of the download `token`; returns whether it had one.
    @discardableResult
    public func deleteLicense(for token: String) async throws(IndexError) -> Bool {
        try await write { db in try LicenseRecord.deleteOne(db, key: token) }
    }

    /// Records the first playback of the download `token` at `date`, unless one is
    /// recorded already (the first one starts a rental's play duration, later ones
    /// change nothing). Returns the first playback's date as stored. Throws
    /// `.notFound` when the download has no license.
    @discardableResult
    public func markFirstPlayback(for token: String, at date: Date) async throws(IndexError) -> Date {
        try await write { db in
            guard var license = try LicenseRecord.fetchOne(db, key: token) else {
                throw IndexError.notFound("the license of \(token)")
            }
            if license.firstPlayedAt == nil {
                try license.updateChanges(db) { $0.firstPlayedAt = date }
                // Read back, so the caller sees the date at the precision the index keeps.
                license = try LicenseRecord.fetchOne(db, key: token) ?? license
            }
            return license.firstPlayedAt ?? date
        }
    }
}

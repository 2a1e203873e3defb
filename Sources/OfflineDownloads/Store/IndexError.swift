import GRDB

/// Why the download index could not do what was asked, and what to do about it.
///
/// Thrown by every `DownloadIndex` call. `description` is one sentence for people
/// that ends with the remedy; the cases let the engine choose: `diskFull` suspends
/// downloads for storage, `corrupt` and `writtenByNewerEngine` stop the engine at
/// start-up, `notFound` and `conflict` are the engine's own mistakes or races.
public enum IndexError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file is not a database, or its pages are damaged.
    case corrupt(path: String, detail: String)
    /// The file or its directory cannot be created, opened or written (permissions, read-only volume).
    case cannotOpen(path: String, detail: String)
    /// The volume holding the index is full.
    case diskFull(path: String)
    /// The operating system reported an I/O error under the index.
    case ioFailure(path: String, detail: String)
    /// The index was migrated by a newer engine, whose schema this one does not know.
    case writtenByNewerEngine(path: String)
    /// No row answers to this name (a download token, a segment key, a license).
    case notFound(String)
    /// A write broke a rule of the schema (a token already used, a segment of an
    /// unknown download, two segments with the same ordinal); nothing was written.
    case conflict(String)
    /// A row exists but cannot be read back as a record (e.g. a JSON column an older
    /// engine wrote differently).
    case unreadableRecord(path: String, detail: String)
    /// The calling task was canceled before the index was written; nothing was written.
    case canceled
    /// Any other SQLite error, with its result code.
    case database(path: String, code: Int32, detail: String)

    /// One sentence that says what happened and what to do.
    public var description: String {
        switch self {
        case let .corrupt(path, detail):
            "the download index at \(path) is corrupt or unreadable (\(detail)); delete it to start over (downloaded files are then forgotten)"
        case let .cannotOpen(path, detail):
            "the download index at \(path) cannot be opened (\(detail)); check that its directory exists and is writable"
        case .diskFull(let path):
            "the disk holding the download index at \(path) is full; free some space and try again"
        case let .ioFailure(path, detail):
            "an I/O error occurred on the download index at \(path) (\(detail)); check the disk, then try again"
        case .writtenByNewerEngine(let path):
            "the download index at \(path) was written by a newer version of the engine; update the app, or delete the index to start over"
        case .notFound(let what):
            "\(what) is not in the download index; list the downloads again, it may have been deleted"
        case .conflict(let detail):
            "the download index refused the write (\(detail)); nothing was written"
        case let .unreadableRecord(path, detail):
            "a record of the download index at \(path) cannot be read (\(detail)); delete that download, or the index to start over"
        case .canceled:
            "the task was canceled before the download index was written; nothing was written, try again if it still matters"
        case let .database(path, code, detail):
            "the download index at \(path) failed with SQLite error \(code) (\(detail))"
        }
    }

    /// Maps any error met while using the index at `path` to an `IndexError`.
    static func wrapping(_ error: any Error, path: String) -> IndexError {
        if let error = error as? IndexError { return error }
        if error is CancellationError { return .canceled }
        guard let error = error as? DatabaseError else {
            if let error = error as? RecordError, case let .recordNotFound(table, key) = error {
                return .notFound("the \(table) row \(key)")
            }
            return .unreadableRecord(path: path, detail: String(describing: error))
        }
        return sqlite(code: error.resultCode.primaryResultCode.rawValue, detail: error.message ?? "\(error.resultCode)", path: path)
    }

    /// Maps an SQLite primary result code met on the index at `path`.
    static func sqlite(code: Int32, detail: String, path: String) -> IndexError {
        switch ResultCode(rawValue: code) {
        case .SQLITE_CORRUPT, .SQLITE_NOTADB: .corrupt(path: path, detail: detail)
        case .SQLITE_FULL: .diskFull(path: path)
        case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_READONLY, .SQLITE_AUTH: .cannotOpen(path: path, detail: detail)
        case .SQLITE_IOERR: .ioFailure(path: path, detail: detail)
        case .SQLITE_CONSTRAINT: .conflict(detail)
        default: .database(path: path, code: code, detail: detail)
        }
    }
}

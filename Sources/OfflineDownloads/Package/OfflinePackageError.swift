/// Why the local playlists could not be written, and what to do.
///
/// Thrown (typed) by `OfflinePackage.write(to:)`. Nothing is lost: the segment files
/// are untouched and the playlists can be written again from the same plan.
public enum OfflinePackageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A file or directory could not be created, written or renamed.
    case write(path: String, detail: String)
    /// A rendered path is absolute or climbs out with `..` (an engine bug).
    case invalidPath(String)

    /// One sentence that says what happened and what to do.
    public var description: String {
        switch self {
        case let .write(path, detail):
            "cannot write \(path) (\(detail)); free some space or check permissions, then write the package again"
        case .invalidPath(let path):
            "the playlist path \(path) is not inside the package; this is an engine bug, delete the download"
        }
    }
}

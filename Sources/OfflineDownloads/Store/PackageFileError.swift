#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a file operation on a package directory failed, and what to do about it.
///
/// Thrown by `PackageFiles`. `isDiskFull` tells the engine to suspend its downloads
/// for storage rather than fail them.
public enum PackageFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A system call failed with `errno`.
    case system(operation: String, path: String, errno: Int32)
    /// A segment's `localPath` is absolute or climbs out of the package with `..`.
    case invalidLocalPath(String)
    /// A directory could not be removed.
    case removal(path: String, detail: String)

    /// The volume is full (or the user's quota is spent).
    public var isDiskFull: Bool {
        if case .system(_, _, let code) = self { return code == ENOSPC || code == EDQUOT }
        return false
    }

    /// One sentence that says what happened and what to do.
    public var description: String {
        switch self {
        case let .system(operation, path, code):
            "cannot \(operation) \(path): \(String(cString: strerror(code))); \(Self.advice(code))"
        case .invalidLocalPath(let path):
            "the segment path \(path) is not inside the package (absolute or with ..); this is an engine bug, delete the download"
        case let .removal(path, detail):
            "cannot remove \(path) (\(detail)); check its permissions, or remove it by hand"
        }
    }

    private static func advice(_ code: Int32) -> String {
        switch code {
        case ENOSPC, EDQUOT: "free some space; the download resumes where it stopped"
        case EACCES, EPERM, EROFS: "check that the downloads directory is writable"
        case ENOENT: "the file is gone; reconcile the package so the segment is downloaded again"
        default: "check the disk, then resume the download"
        }
    }
}

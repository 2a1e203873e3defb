import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension OfflinePackage {
    /// Writes `render()` into the package `directory` (created if missing): each file
    /// to `<path>.tmp` first, then renamed over the old one, so a reader never sees a
    /// half-written playlist. Blocking file I/O: the engine calls it off its actor's
    /// executor, or accepts the short block (a few small files). Playlists are not
    /// fsynced: they can always be rendered again from the plan.
    public func write(to directory: URL) throws(OfflinePackageError) {
        let root = directory.standardizedFileURL.path
        do {
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        } catch {
            throw .write(path: root, detail: error.localizedDescription)
        }
        for file in render() {
            try Self.checkInside(file.relativePath)
            let path = root + "/" + file.relativePath
            let temporary = path + ".tmp"
            do {
                let parent = (path as NSString).deletingLastPathComponent
                try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
                try Data(file.text.utf8).write(to: URL(fileURLWithPath: temporary))
            } catch {
                throw .write(path: temporary, detail: error.localizedDescription)
            }
            guard rename(temporary, path) == 0 else {
                let detail = String(cString: strerror(errno))
                unlink(temporary)
                throw .write(path: path, detail: detail)
            }
        }
    }

    private static func checkInside(_ relativePath: String) throws(OfflinePackageError) {
        if relativePath.isEmpty || relativePath.hasPrefix("/") || relativePath.split(separator: "/").contains("..") {
            throw .invalidPath(relativePath)
        }
    }
}

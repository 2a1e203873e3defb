import BenchCore
import Foundation

/// Makes real-media segments with ffmpeg (a child process per segment) and keeps them in
/// the cache directory; a segment already there is read, not made again.
///
/// A `Sendable` value with no state beyond its configuration: safe from any thread,
/// blocking (run it off an event loop). A file appears in the cache only whole: ffmpeg
/// writes a temporary file that is renamed into place when it succeeds. Two callers asking
/// for the same missing segment at once both run ffmpeg; `OriginServer` avoids that by
/// asking once per path.
public struct RealMediaEncoder: Hashable, Sendable {
    /// Where segments go and how they are made.
    public let configuration: RealMediaConfiguration
    /// The ffmpeg executable, resolved.
    public let ffmpegPath: String

    /// An encoder; resolves ffmpeg and creates the cache directory now, so that a missing
    /// tool or an unusable directory is reported at start-up, not at the first segment.
    public init(configuration: RealMediaConfiguration) throws(ContentError) {
        guard let path = Self.locate(configuration.ffmpeg) else { throw .ffmpegNotFound(configuration.ffmpeg) }
        try Self.makeDirectory(configuration.cacheDirectory)
        guard FileManager.default.isWritableFile(atPath: configuration.cacheDirectory) else {
            throw .cacheDirectoryUnusable(path: configuration.cacheDirectory, reason: "not writable")
        }
        self.configuration = configuration
        self.ffmpegPath = path
    }

    /// The clear bytes of the segment `recipe` describes, made now if not cached.
    public func segment(_ recipe: RealSegmentRecipe) throws(ContentError) -> [UInt8] {
        let final = (configuration.cacheDirectory as NSString).appendingPathComponent(recipe.relativePath)
        if let bytes = FileManager.default.contents(atPath: final) { return Array(bytes) }
        let name = "\(recipe.videoID)/\(recipe.stream)/seg\(recipe.index).ts"
        try Self.makeDirectory((final as NSString).deletingLastPathComponent)
        let temporary = final + ".\(ProcessInfo.processInfo.processIdentifier).\(UInt32.random(in: 0...UInt32.max)).tmp"
        defer { try? FileManager.default.removeItem(atPath: temporary) }
        let (status, message) = run(recipe.arguments + [temporary])
        guard status == 0 else { throw .encodingFailed(segment: name, status: status, message: message) }
        guard rename(temporary, final) == 0 || FileManager.default.fileExists(atPath: final),
            let bytes = FileManager.default.contents(atPath: final)
        else {
            throw .encodingFailed(segment: name, status: 0, message: "cannot move the output into \(final): \(String(cString: strerror(errno)))")
        }
        return Array(bytes)
    }

    /// Runs ffmpeg; its exit status and the last lines of its stderr.
    private func run(_ arguments: [String]) -> (Int32, String) {
        let errorsPath = NSTemporaryDirectory() + "deadzone-ffmpeg-\(UUID().uuidString).stderr"
        defer { try? FileManager.default.removeItem(atPath: errorsPath) }
        let child: ChildProcess
        do { child = try ChildProcess.spawn(ffmpegPath, arguments, stderr: .file(errorsPath)) } catch { return (-1, "\(error)") }
        let status = child.waitForExit().status
        let output = FileManager.default.contents(atPath: errorsPath) ?? Data()
        let text = String(decoding: output, as: UTF8.self).split(separator: "\n").suffix(5).joined(separator: " | ")
        return (status, text.isEmpty ? "no message" : text)
    }

    /// `name` if it is a path to an executable, else the first executable `name` in PATH.
    static func locate(_ name: String) -> String? {
        let manager = FileManager.default
        if name.contains("/") { return manager.isExecutableFile(atPath: name) ? name : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":").lazy
            .map { ($0 as NSString).appendingPathComponent(name) as String }
            .first { manager.isExecutableFile(atPath: $0) }
    }

    private static func makeDirectory(_ path: String) throws(ContentError) {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw .cacheDirectoryUnusable(path: path, reason: "\(error.localizedDescription)")
        }
    }
}

import Foundation

extension StoredStream {
    /// Writes the segments, concatenated in playlist order, to `file` (through `file.part`,
    /// renamed into place); returns the bytes written. `bench download --export` calls it
    /// so a comparison can check the engine's output like any other client's.
    /// - Throws: `.notStandalone` for encrypted or init-section segments (they are not
    ///   playable on their own); `.cannotWrite` when a segment cannot be read or `file` written.
    public func export(to file: String) throws(StreamExportError) -> Int {
        guard !isEncrypted, !hasInitSection else {
            throw .notStandalone(isEncrypted ? "encrypted" : "fMP4 with an init section")
        }
        let temporary = file + ".part"
        var bytes = 0
        do {
            guard FileManager.default.createFile(atPath: temporary, contents: nil) else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temporary])
            }
            let output = try FileHandle(forWritingTo: URL(fileURLWithPath: temporary))
            defer { try? output.close() }
            for segment in segments {
                let data = try Data(contentsOf: segment)
                try output.write(contentsOf: data)
                bytes += data.count
            }
            try output.synchronize()
            guard rename(temporary, file) == 0 else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file, NSLocalizedDescriptionKey: String(cString: strerror(errno))])
            }
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw .cannotWrite(file: file, reason: "\(error)")
        }
        return bytes
    }
}

/// Why `StoredStream.export(to:)` wrote nothing.
public enum StreamExportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The segments are not media on their own (the reason says why); export a clear,
    /// MPEG-TS video instead.
    case notStandalone(String)
    /// A segment could not be read or the file written; check the path and the disk.
    case cannotWrite(file: String, reason: String)

    public var description: String {
        switch self {
        case .notStandalone(let why): "--export needs clear segments that stand alone: this video's are \(why)"
        case let .cannotWrite(file, reason): "cannot export to \(file): \(reason)"
        }
    }
}

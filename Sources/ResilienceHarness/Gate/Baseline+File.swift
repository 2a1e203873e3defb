import Foundation

extension Baseline {
    /// The baseline's conventional place, relative to the repository root.
    public static let defaultPath = "Reports/baseline.json"

    /// Reads and checks the baseline at `url`.
    ///
    /// Throws `BaselineError.missing` when there is no file (make one with
    /// `bench gate --update-baseline`), `.unsupportedSchemaVersion` for a file of
    /// another version, `.malformed` for anything else that is not a baseline.
    public static func read(from url: URL) throws(BaselineError) -> Baseline {
        guard FileManager.default.fileExists(atPath: url.path) else { throw .missing(path: url.path) }
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw .unreadable(path: url.path, reason: error.localizedDescription)
        }
        return try decode(data, path: url.path)
    }

    /// Decodes a baseline from JSON; `path` only names the source in errors.
    public static func decode(_ data: Data, path: String = "baseline.json") throws(BaselineError) -> Baseline {
        struct Version: Decodable { var schemaVersion: Int? }
        let version: Int?
        do { version = try JSONDecoder().decode(Version.self, from: data).schemaVersion } catch {
            throw .malformed(path: path, reason: "not a JSON object: \(error)")
        }
        guard let version else { throw .malformed(path: path, reason: "no schemaVersion") }
        guard version == currentSchemaVersion else {
            throw .unsupportedSchemaVersion(path: path, found: version, supported: currentSchemaVersion)
        }
        do { return try JSONDecoder().decode(Baseline.self, from: data) } catch {
            throw .malformed(path: path, reason: String(describing: error))
        }
    }

    /// The JSON form: pretty-printed with sorted keys, so a change reads well in a diff.
    public func encoded() throws(BaselineError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do { return try encoder.encode(self) } catch {
            throw .malformed(path: "baseline.json", reason: "cannot encode: \(error)")
        }
    }

    /// Writes the baseline to `url` atomically (a temporary file renamed into place).
    public func write(to url: URL) throws(BaselineError) {
        let data = try encoded()
        do { try data.write(to: url, options: .atomic) } catch {
            throw .unwritable(path: url.path, reason: error.localizedDescription)
        }
    }
}

/// Why a baseline could not be read or written; each says what to do.
public enum BaselineError: Error, Sendable, Hashable, CustomStringConvertible {
    case missing(path: String)
    case unreadable(path: String, reason: String)
    case malformed(path: String, reason: String)
    case unsupportedSchemaVersion(path: String, found: Int, supported: Int)
    case unwritable(path: String, reason: String)

    public var description: String {
        switch self {
        case let .missing(path):
            "no baseline at \(path): record one from a good run with `bench gate --update-baseline`"
        case let .unreadable(path, reason):
            "cannot read the baseline \(path) (\(reason)): check its permissions"
        case let .malformed(path, reason):
            "\(path) is not a Deadzone baseline (\(reason)): fix it by hand or record a new one with "
                + "`bench gate --update-baseline`"
        case let .unsupportedSchemaVersion(path, found, supported):
            "\(path) has baseline schema version \(found), this Deadzone reads version \(supported): "
                + (found > supported
                    ? "update Deadzone, or record a new baseline with `bench gate --update-baseline`"
                    : "record a new baseline with `bench gate --update-baseline`")
        case let .unwritable(path, reason):
            "cannot write the baseline \(path) (\(reason)): check the directory exists, its permissions and free space"
        }
    }
}

import BenchResults
import Foundation

/// `report.json`: a `RunReport` as pretty-printed JSON with sorted keys and ISO-8601
/// dates (to the second), schema in `docs/report-schema.md`.
///
/// Stateless; call from any thread. Reading checks `schemaVersion` before anything
/// else, so a report from another Deadzone is refused with a message, not misread.
public enum ReportJSON {
    /// The file name inside a run's report directory.
    public static let fileName = "report.json"

    /// Encodes `report`.
    public static func encode(_ report: RunReport) throws(ReportJSONError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        do { return try encoder.encode(report) } catch {
            throw .unencodable(reason: String(describing: error))
        }
    }

    /// Decodes a report; `path` only names the source in errors.
    public static func decode(_ data: Data, path: String = fileName) throws(ReportJSONError) -> RunReport {
        struct Version: Decodable { var schemaVersion: Int? }
        let version: Int?
        do { version = try JSONDecoder().decode(Version.self, from: data).schemaVersion } catch {
            throw .malformed(path: path, reason: "not a JSON object (\(error))")
        }
        guard let version else { throw .malformed(path: path, reason: "no schemaVersion: not a Deadzone report") }
        guard version == RunReport.currentSchemaVersion else {
            throw .unsupportedSchemaVersion(path: path, found: version, supported: RunReport.currentSchemaVersion)
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom(TraceFile.decodeDate)
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        do { return try decoder.decode(RunReport.self, from: data) } catch {
            throw .malformed(path: path, reason: String(describing: error))
        }
    }

    /// Reads and decodes `url`.
    public static func read(from url: URL) throws(ReportJSONError) -> RunReport {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw .unreadable(path: url.path, reason: error.localizedDescription)
        }
        return try decode(data, path: url.path)
    }
}

/// Why `report.json` could not be made or read; each says what to do.
public enum ReportJSONError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file has a `schemaVersion` this Deadzone does not read.
    case unsupportedSchemaVersion(path: String, found: Int, supported: Int)
    /// The file is not a report (not JSON, no `schemaVersion`, a field missing or mistyped).
    case malformed(path: String, reason: String)
    case unreadable(path: String, reason: String)
    /// The report holds something JSON cannot carry (a bug in whoever made it).
    case unencodable(reason: String)

    public var description: String {
        switch self {
        case let .unsupportedSchemaVersion(path, found, supported):
            "\(path) has report schema version \(found), this Deadzone reads version \(supported): "
                + (found > supported
                    ? "read it with the Deadzone that wrote it, or update this one"
                    : "re-run the scenarios with this Deadzone to get a current report")
        case let .malformed(path, reason):
            "\(path) is not a Deadzone report (\(reason)): pass the report.json of a run (Reports/<run>/report.json)"
        case let .unreadable(path, reason):
            "cannot read \(path) (\(reason)): check the path and its permissions"
        case let .unencodable(reason):
            "cannot encode the report (\(reason)): this is a bug in what made the report; please report it"
        }
    }
}

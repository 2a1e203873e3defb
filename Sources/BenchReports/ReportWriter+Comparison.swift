import BenchResults
import BenchVocabulary
import Foundation

extension ReportWriter {
    /// Writes a comparison's report directory: `report.json` (`ComparisonReport`),
    /// `trace.jsonl`, `junit.xml` (`ComparisonJUnit`) and `report.html`
    /// (`ComparisonHTML`), each under a temporary name then renamed, as `write(_:trace:comparison:to:)` does.
    @discardableResult
    public func write(_ report: ComparisonReport, trace: [TraceEntry], to directory: URL) throws(ReportWriterError) -> ReportFiles {
        try writeFamily(
            to: directory, trace: trace, json: { () throws(ReportJSONError) in try ComparisonJSON.encode(report) },
            junit: { ComparisonJUnit.render(report) },
            html: { () throws(HTMLReportError) in try ComparisonHTML.render(report, trace: trace) })
    }
}

/// A comparison's `report.json`: the same encoding as `ReportJSON` (pretty, sorted keys,
/// ISO-8601 dates), with `kind: "comparison"` telling it from a scenario run's.
public enum ComparisonJSON {
    /// Encodes `report`.
    public static func encode(_ report: ComparisonReport) throws(ReportJSONError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        do { return try encoder.encode(report) } catch {
            throw .unencodable(reason: String(describing: error))
        }
    }

    /// Decodes a comparison report; `path` only names the source in errors.
    public static func decode(_ data: Data, path: String = ReportJSON.fileName) throws(ReportJSONError) -> ComparisonReport {
        struct Header: Decodable {
            var schemaVersion: Int?
            var kind: String?
        }
        let header: Header
        do { header = try JSONDecoder().decode(Header.self, from: data) } catch {
            throw .malformed(path: path, reason: "not a JSON object (\(error))")
        }
        guard header.kind == "comparison" else {
            throw .malformed(path: path, reason: "not a comparison report (kind \(header.kind ?? "missing"))")
        }
        guard header.schemaVersion == ComparisonReport.currentSchemaVersion else {
            throw .unsupportedSchemaVersion(path: path, found: header.schemaVersion ?? 0, supported: ComparisonReport.currentSchemaVersion)
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom(TraceFile.decodeDate)
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        do { return try decoder.decode(ComparisonReport.self, from: data) } catch {
            throw .malformed(path: path, reason: String(describing: error))
        }
    }
}

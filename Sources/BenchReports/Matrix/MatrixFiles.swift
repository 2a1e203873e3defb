import BenchResults
import Foundation

/// Writes a matrix's own files: `matrix.html`, `matrix.json` and `junit.xml` (the runs
/// themselves are played by `bench matrix`, each into its own report directory).
public enum MatrixFiles {
    /// The files of a matrix directory.
    public static let jsonFileName = "matrix.json"
    public static let junitFileName = "junit.xml"

    /// Writes `matrix.html`, `matrix.json` and `junit.xml` into `directory`.
    public static func write(_ matrix: Matrix, to directory: URL) throws(ReportWriterError) {
        let writer = ReportWriter()
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw .cannotCreateDirectory(path: directory.path, reason: "\(error)")
        }
        let json: Data
        do { json = try encode(matrix) } catch {
            throw .cannotRender(path: directory.appendingPathComponent(jsonFileName).path, reason: "\(error)")
        }
        for (name, data) in [
            (jsonFileName, json), (junitFileName, Data(MatrixJUnit.render(matrix).utf8)),
            (MatrixHTML.fileName, Data(MatrixHTML.render(matrix).utf8)),
        ] {
            try writer.place(directory.appendingPathComponent(name)) { url throws(ReportWriterError) in
                try ReportWriter.writeData(data, to: url)
            }
        }
        ReportWriter.syncDirectory(directory)
    }

    /// `matrix.json`: the schema version, the columns, each column's summary, the rows.
    public static func encode(_ matrix: Matrix) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return try encoder.encode(Document(
            schemaVersion: matrix.schemaVersion, columns: matrix.columns, summary: matrix.summary, rows: matrix.rows,
            shard: matrix.shard, mergedFrom: matrix.mergedFrom))
    }

    /// The matrix `directory`'s `matrix.json` holds (its summary is computed again).
    public static func read(from directory: URL) throws -> Matrix {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let document = try decoder.decode(
            Document.self, from: Data(contentsOf: directory.appendingPathComponent(jsonFileName)))
        return Matrix(
            schemaVersion: document.schemaVersion, columns: document.columns, rows: document.rows, shard: document.shard,
            mergedFrom: document.mergedFrom)
    }

    /// `matrix.json`'s shape.
    private struct Document: Codable {
        var schemaVersion: Int
        var columns: [MatrixColumn]
        var summary: [MatrixColumnSummary]
        var rows: [MatrixRow]
        var shard: ShardRecord?
        var mergedFrom: [MergedShard]?
    }
}

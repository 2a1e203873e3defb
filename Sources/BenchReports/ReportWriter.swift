import BenchResults
import BenchVocabulary
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes a run's report directory (`Reports/<run>/`): `report.json`, `trace.jsonl`,
/// `junit.xml` and `report.html`, in that order.
///
/// Called by the runner (or `bench report`) once a run has ended, on whatever thread
/// it is on; it blocks on file I/O. It creates the directory, writes each file under a
/// temporary name in it, flushes it to disk and renames it into place, so a file is
/// either absent, the previous version, or complete. If one fails (full disk, no
/// permission, the template missing) it stops with a `ReportWriterError` naming the
/// file: the files written before stay, the temporary one is removed.
public struct ReportWriter: Sendable {
    /// Creates a writer.
    public init() {}

    /// Writes the four files into `directory` and returns where they are. `comparison`
    /// and `baselineNote` go to the HTML page (see `HTMLReport.render`).
    @discardableResult
    public func write(
        _ report: RunReport, trace: [TraceEntry], comparison: GateComparison? = nil, baselineNote: String? = nil,
        to directory: URL
    ) throws(ReportWriterError) -> ReportFiles {
        let files = try writeFamily(
            to: directory, trace: trace, json: { () throws(ReportJSONError) in try ReportJSON.encode(report) },
            junit: { JUnitReport.render(report) },
            html: { () throws(HTMLReportError) in
                try HTMLReport.render(report, trace: trace, comparison: comparison, baselineNote: baselineNote)
            })
        try writeLaunchLogs(report, to: directory)
        return files
    }

    /// Each scenario's launch logs (`LaunchLog.file(scenario:)`), which the HTML report links.
    func writeLaunchLogs(_ report: RunReport, to directory: URL) throws(ReportWriterError) {
        for scenario in report.scenarios {
            for log in scenario.stderr ?? [] {
                let url = directory.appendingPathComponent(log.file(scenario: scenario.name))
                do {
                    try FileManager.default.createDirectory(
                        at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                } catch {
                    throw .cannotCreateDirectory(path: url.deletingLastPathComponent().path, reason: Self.reason(error))
                }
                let cut = log.truncated ? "[the first \(log.bytes - log.tail.utf8.count) bytes left out]\n" : ""
                try place(url) { url throws(ReportWriterError) in try Self.writeData(Data((cut + log.tail).utf8), to: url) }
            }
        }
    }

    /// Creates `directory` and writes the four files into it, in order: report.json,
    /// trace.jsonl, junit.xml, report.html (each made by its closure just before it is
    /// written); the run's and the comparison's reports share it.
    func writeFamily(
        to directory: URL, trace: [TraceEntry], json: () throws(ReportJSONError) -> Data, junit: () -> String,
        html: () throws(HTMLReportError) -> String
    ) throws(ReportWriterError) -> ReportFiles {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw .cannotCreateDirectory(path: directory.path, reason: Self.reason(error))
        }
        let files = ReportFiles(directory: directory)

        let jsonData: Data
        do { jsonData = try json() } catch { throw .cannotRender(path: files.reportJSON.path, reason: error.description) }
        try place(files.reportJSON) { url throws(ReportWriterError) in try Self.writeData(jsonData, to: url) }

        try place(files.traceJSONL) { url throws(ReportWriterError) in
            try Self.writeTrace(trace, to: url, named: files.traceJSONL.path)
        }

        let junitData = Data(junit().utf8)
        try place(files.junitXML) { url throws(ReportWriterError) in try Self.writeData(junitData, to: url) }

        let htmlData: Data
        do { htmlData = Data(try html().utf8) } catch {
            throw .cannotRender(path: files.reportHTML.path, reason: error.description)
        }
        try place(files.reportHTML) { url throws(ReportWriterError) in try Self.writeData(htmlData, to: url) }
        Self.syncDirectory(directory)
        return files
    }

    /// Writes through `body` to a temporary name beside `destination`, then renames it.
    func place(_ destination: URL, _ body: (URL) throws(ReportWriterError) -> Void) throws(ReportWriterError) {
        let temporary = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).\(getpid()).tmp")
        do {
            try body(temporary)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            if case .cannotWrite = error { throw .cannotWrite(path: destination.path, reason: error.reason) }
            throw error
        }
        guard rename(temporary.path, destination.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw .cannotWrite(path: destination.path, reason: reason)
        }
    }

    /// Writes `data` to a new file at `url` and flushes it to disk.
    static func writeData(_ data: Data, to url: URL) throws(ReportWriterError) {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw .cannotWrite(path: url.path, reason: "cannot create the file")
        }
        do {
            let handle = try FileHandle(forWritingTo: url)
            defer { try? handle.close() }
            try handle.write(contentsOf: data)
            try handle.synchronize()
        } catch {
            throw .cannotWrite(path: url.path, reason: reason(error))
        }
    }

    /// Writes the trace to `url`; errors name `path`, where the file is going.
    static func writeTrace(_ trace: [TraceEntry], to url: URL, named path: String) throws(ReportWriterError) {
        do { try TraceFile.write(trace, to: url) } catch {
            switch error {
            case let .unencodable(reason): throw .cannotRender(path: path, reason: reason)
            case let .unwritable(_, reason): throw .cannotWrite(path: path, reason: reason)
            default: throw .cannotWrite(path: path, reason: error.description)
            }
        }
    }

    /// Flushes the directory's entries (the renames) to disk; best effort.
    static func syncDirectory(_ directory: URL) {
        let descriptor = open(directory.path, O_RDONLY)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        _ = close(descriptor)
    }

    private static func reason(_ error: any Error) -> String {
        let error = error as NSError
        if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain,
            let code = POSIXErrorCode(rawValue: Int32(underlying.code))
        {
            return String(cString: strerror(code.rawValue))
        }
        return error.localizedDescription
    }
}

/// Where `ReportWriter` put a run's files.
public struct ReportFiles: Sendable, Hashable {
    public var directory: URL
    public var reportJSON: URL { directory.appendingPathComponent(ReportJSON.fileName) }
    public var traceJSONL: URL { directory.appendingPathComponent(TraceFile.fileName) }
    public var junitXML: URL { directory.appendingPathComponent(JUnitReport.fileName) }
    public var reportHTML: URL { directory.appendingPathComponent(HTMLReport.fileName) }

    /// The files of the report directory `directory`.
    public init(directory: URL) {
        self.directory = directory
    }
}

/// Why a report directory could not be written; each names the path and what to do.
/// Files written before the failure stay.
public enum ReportWriterError: Error, Sendable, Hashable, CustomStringConvertible {
    case cannotCreateDirectory(path: String, reason: String)
    /// Writing or renaming the file failed (full disk, permissions, a read-only file system).
    case cannotWrite(path: String, reason: String)
    /// The content could not be made (a missing template, a value JSON cannot carry).
    case cannotRender(path: String, reason: String)

    /// The path the error is about.
    public var path: String {
        switch self {
        case let .cannotCreateDirectory(path, _), let .cannotWrite(path, _), let .cannotRender(path, _): path
        }
    }

    var reason: String {
        switch self {
        case let .cannotCreateDirectory(_, reason), let .cannotWrite(_, reason), let .cannotRender(_, reason): reason
        }
    }

    public var description: String {
        switch self {
        case let .cannotCreateDirectory(path, reason):
            "cannot create the report directory \(path) (\(reason)): check that its parent is a writable directory, "
                + "or choose another report directory"
        case let .cannotWrite(path, reason):
            "cannot write \(path) (\(reason)): check free space and permissions; the report files written before it are kept"
        case let .cannotRender(path, reason):
            "cannot make \(path): \(reason)"
        }
    }
}

import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where a response body goes: kept in memory (playlists, licenses), or appended to a
/// `.part` file from the size it already has (keys, init sections, segments: a `206` for
/// the bytes from `have` on appends; for a whole resource a `200` starts the file again,
/// for a byte `range` of one it is not the range and is never written). A body that is
/// not the resource (an error status, a captive portal's page, another range) is kept in
/// memory, never written.
enum BodyDestination: Sendable {
    case memory
    case file(URL, have: Int, range: ByteRange?)
}

/// One URLSession task and what it received, filled in by the session's delegate and
/// waited on by the thread that asked for it.
// @unchecked: every field changes under `condition`. The thread that asked reads `response`,
// `body`, `received` and `error` only after `wait` returned `.completed`, which it saw under
// `condition` after the delegate's last write (URLSession reports completion last).
final class Transfer: @unchecked Sendable {
    let destination: BodyDestination
    private let onBytes: @Sendable (Int) -> Void
    private let condition = NSCondition()
    private var task: URLSessionTask?
    private var file: FileHandle?
    private var stopped = false
    private(set) var response: HTTPURLResponse?
    private(set) var body = Data()
    private(set) var received = 0
    private(set) var error: (any Error)?
    private(set) var done = false
    private var lastActivity = Date()

    init(destination: BodyDestination, onBytes: @escaping @Sendable (Int) -> Void) {
        self.destination = destination
        self.onBytes = onBytes
    }

    func attach(_ task: URLSessionTask) { condition.withLock { self.task = task } }

    /// The head came: decides where the body goes.
    func accept(_ response: HTTPURLResponse) {
        condition.withLock {
            self.response = response
            lastActivity = Date()
            guard !stopped, case .file(let url, let have, let range) = destination, !Responses.isPortal(response) else { return }
            if response.statusCode == 200, range == nil {
                _ = FileManager.default.createFile(atPath: url.path, contents: nil)
                file = try? FileHandle(forWritingTo: url)
            } else if response.statusCode == 206, Responses.continues(response, have: have, range: range) {
                if have == 0 { _ = FileManager.default.createFile(atPath: url.path, contents: nil) }  // a range's first bytes
                file = try? FileHandle(forWritingTo: url)
                _ = try? file?.seekToEnd()
            }
        }
    }

    /// A piece of the body: written (to the disk at once: what it holds at a kill is what
    /// a relaunch resumes after), then counted.
    func receive(_ data: Data) {
        let written: Bool = condition.withLock {
            guard !stopped else { return false }
            lastActivity = Date()
            if let file {
                do { try file.write(contentsOf: data) } catch {
                    self.error = error
                    stopped = true
                    return false
                }
            } else {
                body.append(data)
            }
            received += data.count
            return true
        }
        if written { onBytes(data.count) }
    }

    func complete(_ error: (any Error)?) {
        condition.withLock {
            if self.error == nil { self.error = error }
            done = true
            try? file?.close()
            file = nil
            condition.broadcast()
        }
    }

    /// Cancels the task; from now on nothing more of its body is written.
    ///
    /// A task that has completed is not cancelled: swift-corelibs-foundation (Linux) traps
    /// ("Trying to access a behaviour for a task that in not in the registry") when a
    /// cancel's failure report finds the task already gone from the session's registry,
    /// which a cancel at the moment a reset connection fails the task can do (seen once in
    /// CI, at an outage). Only a running task is cancelled, once; the window that is left
    /// is the few microseconds between the check and the cancel.
    func stop() {
        let task: URLSessionTask? = condition.withLock {
            let running = !stopped && !done
            stopped = true
            try? file?.close()
            file = nil
            condition.broadcast()
            return running ? self.task : nil
        }
        guard let task, task.state == .running else { return }
        task.cancel()
    }

    /// How a wait ended.
    enum Outcome { case completed, stopped, stalled }

    /// Waits until the task completes, is stopped, or receives nothing for `stall` seconds.
    func wait(stall: TimeInterval) -> Outcome {
        condition.withLock {
            while true {
                if stopped { return .stopped }
                if done { return .completed }
                if Date().timeIntervalSince(lastActivity) > stall { return .stalled }
                _ = condition.wait(until: Date().addingTimeInterval(0.25))
            }
        }
    }
}

/// Reading response heads.
enum Responses {
    static let webPages: Set<String> = ["text/html", "application/xhtml+xml"]

    static func header(_ response: HTTPURLResponse, _ name: String) -> String? {
        response.value(forHTTPHeaderField: name)
    }

    static func contentRange(_ response: HTTPURLResponse) -> String? { header(response, "Content-Range") }

    /// Whether a `206` holds what was asked of a file holding its first `have` bytes: the
    /// rest of the resource (`bytes <have>-`), or of its byte `range`, exactly
    /// (`bytes <offset+have>-<last>/`).
    static func continues(_ response: HTTPURLResponse, have: Int, range: ByteRange?) -> Bool {
        let expected = range.map { "bytes \($0.offset + have)-\($0.last)/" } ?? "bytes \(have)-"
        return contentRange(response)?.hasPrefix(expected) == true
    }

    /// A captive portal's answer: 511, or a 2xx web page (nothing this app asks for is one).
    static func isPortal(_ response: HTTPURLResponse) -> Bool {
        let type = (header(response, "Content-Type") ?? "").split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        return response.statusCode == 511 || ((200..<300).contains(response.statusCode) && webPages.contains(type))
    }
}

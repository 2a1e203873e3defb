import AppProtocol
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The agent's stdin as a stream of lines.
///
/// The blocking read(2) runs on a dedicated thread, never on the cooperative pool: a
/// read that waits for the harness would otherwise hold one of its few threads. The
/// thread owns the descriptor's reading and its line buffer; it only hands finished
/// lines over, through the stream's continuation (thread-safe).
enum AgentInput {
    /// Starts the reader thread and returns its lines; the stream finishes at end of
    /// input (the harness closed the pipe or died) or on a read error.
    static func lines(descriptor: Int32 = 0) -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        let thread = Thread {
            var splitter = AppLineSplitter()
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                if count < 0 { AgentLog.write("stdin failed: \(String(cString: strerror(errno)))") }
                guard count > 0 else { break }  // read(2) returning 0 is end of input
                for line in splitter.append(buffer[..<count]) { continuation.yield(line) }
            }
            if let last = splitter.finish() { continuation.yield(last) }
            continuation.finish()
        }
        thread.name = "agent-stdin"
        thread.start()
        return stream
    }
}

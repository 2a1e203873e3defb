import Foundation
import Testing
@testable import BenchCore

/// The signal-proof write: whole data across partial writes, and a clean return when
/// the reader is gone.
@Suite(.timeLimit(.minutes(2))) struct FileHandleSignalsTests {
    /// A pattern larger than a pipe's buffer (64 KiB on Linux), so writes are partial.
    static let payload = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) })

    @Test func everyByteGoesThroughAPipeInPartialWrites() async throws {
        let pipe = Pipe()
        Thread {
            pipe.fileHandleForWriting.writeSurvivingSignals(Self.payload)
            try? pipe.fileHandleForWriting.close()
        }.start()
        let received = await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: (try? pipe.fileHandleForReading.readToEnd()) ?? Data()) }.start()
        }
        #expect(received.count == Self.payload.count)
        #expect(received == Self.payload)
    }

    @Test func writingToAPipeWithNoReaderGivesUpInsteadOfStopping() throws {
        signal(SIGPIPE, SIG_IGN)  // as every bench command does; the write then fails with EPIPE
        let pipe = Pipe()
        try pipe.fileHandleForReading.close()
        pipe.fileHandleForWriting.writeSurvivingSignals(Self.payload)  // returns; no trap
        #expect(write(pipe.fileHandleForWriting.fileDescriptor, "x", 1) == -1)
    }
}

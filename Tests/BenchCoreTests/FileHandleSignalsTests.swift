import Foundation
import Testing
@testable import BenchCore

/// The signal-proof pipe reads and writes: whole data across many reads and partial
/// writes, and a clean end at end of file or when the reader is gone.
struct FileHandleSignalsTests {
    /// A pattern larger than a pipe's buffer (64 KiB on Linux), so writes are partial.
    static let payload = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) })

    @Test func aWriterAndAReaderMoveEveryByteThroughAPipe() async throws {
        let pipe = Pipe()
        let writer = Thread {
            pipe.fileHandleForWriting.writeSurvivingSignals(Self.payload)
            try? pipe.fileHandleForWriting.close()
        }
        writer.start()
        let received = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: pipe.fileHandleForReading.readToEndSurvivingSignals()) }
        }
        #expect(received.count == Self.payload.count)
        #expect(received == Self.payload)
    }

    @Test func oneReadReturnsWhatIsThereAndThenEndOfFile() throws {
        let pipe = Pipe()
        pipe.fileHandleForWriting.writeSurvivingSignals(Data("hello".utf8))
        #expect(pipe.fileHandleForReading.readSomeSurvivingSignals(maximum: 3) == Data("hel".utf8))
        #expect(pipe.fileHandleForReading.readSomeSurvivingSignals() == Data("lo".utf8))
        try pipe.fileHandleForWriting.close()
        #expect(pipe.fileHandleForReading.readSomeSurvivingSignals().isEmpty)
    }

    @Test func writingToAPipeWithNoReaderGivesUpInsteadOfStopping() throws {
        signal(SIGPIPE, SIG_IGN)  // as every bench command does; the write then fails with EPIPE
        let pipe = Pipe()
        try pipe.fileHandleForReading.close()
        pipe.fileHandleForWriting.writeSurvivingSignals(Self.payload)  // returns; no trap
        #expect(write(pipe.fileHandleForWriting.fileDescriptor, "x", 1) == -1)
    }

    /// The writer fills the second pipe before it writes a byte to the first: reading the
    /// first alone would wait forever; reading the second in the background at the same
    /// time lets both finish.
    @Test func aBackgroundReadDrainsOnePipeWhileTheOtherIsRead() async throws {
        let first = Pipe(), second = Pipe()
        Thread {
            second.fileHandleForWriting.writeSurvivingSignals(Self.payload)
            try? second.fileHandleForWriting.close()
            first.fileHandleForWriting.writeSurvivingSignals(Data("done".utf8))
            try? first.fileHandleForWriting.close()
        }.start()
        let readSecond = second.fileHandleForReading.readToEndInBackground()
        let (a, b) = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let a = first.fileHandleForReading.readToEndSurvivingSignals()
                continuation.resume(returning: (a, readSecond()))
            }
        }
        #expect(a == Data("done".utf8))
        #expect(b == Self.payload)
        #expect(readSecond() == Self.payload, "a second call returns the same data at once")
    }
}

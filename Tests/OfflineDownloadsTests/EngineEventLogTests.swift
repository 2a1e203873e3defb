import Foundation
import Testing
@testable import OfflineDownloads

/// The lines `bench download` prints for the engine's events.
@Suite struct EngineEventLogTests {
    /// One line per decile reached, per stream: 5 % shows 0 %, 7 % nothing new, 35 % shows 30 %.
    @Test func progressIsShownOncePerDecilePerStream() {
        var log = EngineEventLog()
        let token = DownloadToken("t1")
        let lines = [0.05, 0.07, 0.35, 0.39, 1.0].map { log.line(for: .progress(token, selection: "video", fraction: $0)) }
        #expect(lines == ["t1 video 0%", nil, "t1 video 30%", nil, "t1 video 100%"])
        #expect(log.line(for: .progress(token, selection: "audio_en", fraction: 0.12)) == "t1 audio_en 10%")
    }

    @Test func stateChangesAndErrorsAreShownAndStoredSegmentsAreNot() {
        var log = EngineEventLog()
        let token = DownloadToken("t2")
        #expect(log.line(for: .stateChanged(token, from: .requested, to: .downloading)) == "t2 \(DownloadState.requested) -> \(DownloadState.downloading)")
        #expect(log.line(for: .error(nil, message: "disk full")) == "engine error: disk full")
        #expect(log.line(for: .segmentStored(token, stream: "video", index: 0, bytes: 10, uri: "s0.ts")) == nil)
    }
}

/// `bench download --export`: the stored segments, concatenated, or an error that writes nothing.
@Suite struct StoredStreamExportTests {
    private func segments() throws -> (directory: String, files: [URL]) {
        let directory = NSTemporaryDirectory() + "deadzone-export-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let files = try ["abc", "de", "f"].enumerated().map { index, text in
            let url = URL(fileURLWithPath: directory + "/seg\(index).ts")
            try Data(text.utf8).write(to: url)
            return url
        }
        return (directory, files)
    }

    @Test func clearSegmentsAreConcatenatedInOrder() throws {
        let (directory, files) = try segments()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let stream = StoredStream(name: "video", segments: files, isEncrypted: false, hasInitSection: false)
        #expect(try stream.export(to: directory + "/out.ts") == 6)
        #expect(try String(contentsOfFile: directory + "/out.ts", encoding: .utf8) == "abcdef")
        #expect(!FileManager.default.fileExists(atPath: directory + "/out.ts.part"))
    }

    @Test func encryptedSegmentsAreRefusedAndNothingIsWritten() throws {
        let (directory, files) = try segments()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let stream = StoredStream(name: "video", segments: files, isEncrypted: true, hasInitSection: false)
        #expect(throws: StreamExportError.notStandalone("encrypted")) { try stream.export(to: directory + "/out.ts") }
        #expect(!FileManager.default.fileExists(atPath: directory + "/out.ts"))
        let missing = StoredStream(name: "video", segments: files + [URL(fileURLWithPath: directory + "/gone.ts")],
                                   isEncrypted: false, hasInitSection: false)
        #expect { try missing.export(to: directory + "/out.ts") } throws: { "\($0)".hasPrefix("cannot export to") }
        #expect(!FileManager.default.fileExists(atPath: directory + "/out.ts.part"))
    }
}

import FixtureOrigin
import BenchCore
import Foundation
import Testing

/// `bench download --export FILE`: the engine as a black-box client. Run through the
/// real `bench` executable, through the conditioner's WiFi listener (`--via`).
@Suite(.timeLimit(.minutes(2))) struct BenchExportTests {
    struct Outcome {
        var status: Int32
        var output: String
        var errors: String
    }

    /// Runs `bench download arguments` to its end (60 s at most).
    static func benchDownload(_ arguments: [String]) async throws -> Outcome {
        let run = try await ChildProcess.run(
            try ChildProcessRecoveryTests.benchExecutable(), ["download"] + arguments, timeout: .seconds(60))
        return Outcome(status: run.status, output: run.stdout, errors: run.stderr)
    }

    @Test func exportWritesTheVideoVariantsSegmentsAsServed() async throws {
        try await withEngine { fixture in
            let file = fixture.scratch.file("clear.ts")
            let outcome = try await Self.benchDownload([
                fixture.server.url("/videos/clear").absoluteString, "--storage", fixture.scratch.file("storage"),
                "--via", fixture.endpoint(.wifi), "--export", file,
            ])
            #expect(outcome.status == 0, "\(outcome.output)\(outcome.errors)")
            // The 400k variant's 21 segments, in playlist order, byte for byte.
            var expected = Data()
            for index in 0..<21 {
                let segment = try #require(fixture.server.store.resource(at: "/videos/clear/400k/seg\(index).ts"))
                expected.append(contentsOf: segment.bytes)
            }
            let exported = try Data(contentsOf: URL(fileURLWithPath: file))
            #expect(exported.count == expected.count)
            #expect(exported == expected)
            #expect(outcome.output.contains("exported 21 segments (\(expected.count) bytes)"), "\(outcome.output)")
            #expect(fixture.requests(through: .wifi).filter { $0.path.hasSuffix(".ts") }.count == 21)
        }
    }

    @Test(arguments: ["protected", "http-key"])
    func exportOfAnEncryptedVideoIsBadInput(video: String) async throws {
        try await withEngine { fixture in
            let file = fixture.scratch.file("out.ts")
            let outcome = try await Self.benchDownload([
                fixture.server.url("/videos/\(video)").absoluteString, "--storage", fixture.scratch.file("storage"),
                "--export", file,
            ])
            #expect(outcome.status == 2, "\(outcome.output)\(outcome.errors)")
            #expect(outcome.errors.contains("encrypted"), "\(outcome.errors)")
            #expect(!FileManager.default.fileExists(atPath: file))
            #expect(!fixture.server.requestLog.contains { $0.path.hasSuffix(".ts") }, "nothing is downloaded")
        }
    }

    @Test func exportOfSeveralVideosIsBadInput() async throws {
        try await withEngine { fixture in
            let outcome = try await Self.benchDownload([
                fixture.server.url("/videos/clear").absoluteString, fixture.server.url("/videos/multilang").absoluteString,
                "--storage", fixture.scratch.file("storage"), "--export", fixture.scratch.file("out.ts"),
            ])
            #expect(outcome.status == 2, "\(outcome.output)\(outcome.errors)")
            #expect(outcome.errors.contains("exactly one VIDEO"), "\(outcome.errors)")
            #expect(fixture.server.requestLog.isEmpty, "refused before anything is asked of the origin")
        }
    }
}

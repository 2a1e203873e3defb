import BenchCore
import Foundation
import StreamRecorder
import Testing
import TestSupport

extension RecordedStreams {
    /// `crash-recovery` on recorded streams: the app is SIGKILLed in the middle of a
    /// single-file byte-range stream and of an fMP4 stream with its init section, recorded
    /// from nginx, and relaunched told it crashed. The judge identifies what the disk held
    /// by the recording's resources (byte ranges of one file, init sections, segments at
    /// their recorded paths) and requires each range or segment held in part to be resumed
    /// from there: Deadzone's engine passes, having resumed a range, and the variant that
    /// resumes a byte range from the file's start (`byte-range-from-zero`) fails.
    @Suite(.timeLimit(.minutes(6))) struct RecordedCrashRecoveryTests {
        /// A slow clean WiFi: a 120-KiB segment takes seconds, so the kill lands inside one.
        static let slowLinks = """
            name: slow-wifi
            description: a slow clean WiFi, so that a kill lands inside a segment
            duration: 5m
            interfaces:
              wifi: {downlink: {rate: 300kbit/s, delay: 10ms}, uplink: {rate: 300kbit/s, delay: 10ms}}
              cellular: {expensive: true, downlink: {rate: 300kbit/s, delay: 20ms}, uplink: {rate: 300kbit/s, delay: 20ms}}

            """

        /// The stream `shape` requested; once a quarter of it is stored and the origin has
        /// begun the next segment, two seconds later, the app is killed and relaunched.
        static func crashScenario(_ shape: String) -> String {
            """
            name: recorded-\(shape)-crash
            summary: The recorded \(shape) stream, its download killed mid-segment and relaunched; what the disk held is not fetched again and each part held is resumed by Range.
            asserts: [crash-recovery, integrity]
            needs: [crashRecovery, inspect]
            minimum-crash-restarts: 1
            steps:
              - up: wifi
              - wait-for-path: [wifi]
              - launch
              - request: \(shape)
              - wait: {progress: \(shape), at-least: 0.25}
                label: \(shape) at 25 %
              - wait-for-media-response
              - hold: 2s
              - kill: crash
              - wait-settled: all
              - inspect: all

            """
        }

        /// The byte-range and fMP4 shapes of `scripts/make-hls-trees`, at 1 Mbit/s constant
        /// rate: segments of about 120 KiB (the script's are about 15 KiB, which an engine
        /// receives whole between two of the harness's looks), made under `trees` (nginx
        /// serves it) as `big-byterange/` and `big-fmp4/`.
        static func makeBigTrees(in trees: String) async throws {
            let video = "-c:v libx264 -preset ultrafast -g 10 -keyint_min 10 -sc_threshold 0 -pix_fmt yuv420p -bf 0 "
                + "-b:v 1M -minrate 1M -maxrate 1M -bufsize 1M -x264-params nal-hrd=cbr"
            let script = """
                set -euo pipefail
                ff() { ffmpeg -hide_banner -loglevel error -nostdin -y "$@"; }
                pattern=(-f lavfi -i "testsrc=size=320x180:rate=10:duration=4")
                vod=(-f hls -hls_time 1 -hls_playlist_type vod)
                mkdir -p big-byterange big-fmp4
                (cd big-byterange && ff "${pattern[@]}" \(video) "${vod[@]}" -hls_flags single_file \
                  -master_pl_name master.m3u8 -hls_segment_filename 'v%v/all.ts' -var_stream_map "v:0" 'v%v/index.m3u8')
                (cd big-fmp4 && ff "${pattern[@]}" -f lavfi -i "sine=frequency=440:sample_rate=22050:duration=4" \(video) \
                  -c:a aac -b:a 32k "${vod[@]}" -hls_segment_type fmp4 -master_pl_name master.m3u8 \
                  -hls_fmp4_init_filename init.mp4 -hls_segment_filename 'v%v/seg%d.m4s' -var_stream_map "v:0,a:0" 'v%v/index.m3u8')
                """
            let made = try await ChildProcess.run("bash", ["-c", "cd \(trees) && " + script], timeout: .seconds(120))
            try #require(made.status == 0, "ffmpeg failed: \(made.stderr)")
        }

        @Test func aKillInsideAByteRangeOrAnFMP4SegmentIsJudgedOnWhatTheDiskHeld() async throws {
            let scratch = try await RecordFromNginxTests.Scratch.start()
            do {
                let bench = try RecordCommandTests.bench()
                try await Self.makeBigTrees(in: scratch.trees)
                _ = try await scratch.recorder().record(["byterange", "fmp4"].map { (shape: String) in
                    StreamRecorder.Request(id: shape, url: scratch.origin.url("/big-\(shape)/master.m3u8"))
                })
                try Self.slowLinks.write(toFile: scratch.root + "/links.yaml", atomically: true, encoding: .utf8)
                var files: [String] = []
                for shape in ["byterange", "fmp4"] {
                    let file = scratch.root + "/\(shape)-crash.yaml"
                    try Self.crashScenario(shape).write(toFile: file, atomically: true, encoding: .utf8)
                    files += ["--scenario-file", file]
                }
                func run(_ label: String, _ extra: [String] = []) async throws -> (ChildProcess.Outcome, [String: Verdicts]) {
                    let out = scratch.root + "/" + label
                    let result = try await ChildProcess.run(bench, [
                        "--profile", scratch.root + "/links.yaml", "--catalog", scratch.catalog, "--time-limit", "150",
                        "--out", out,
                    ] + files + extra, timeout: .seconds(240))
                    return (result, try Self.verdicts(out))
                }

                let (honest, verdicts) = try await run("honest")
                #expect(honest.status == 0, "\(honest.stdout)\n\(honest.stderr)")
                for shape in ["byterange", "fmp4"] {
                    let scenario = verdicts["recorded-\(shape)-crash"] ?? [:]
                    let recovery = scenario["crash-recovery"]
                    #expect(recovery?.outcome == "passed", "\(shape): \(recovery.map(String.init(describing:)) ?? "missing")")
                    // Not vacuous: the kill cut bytes in flight, and a part the disk held was resumed.
                    #expect(recovery?.summary.contains("(1 after a crash or memory pressure with bytes in flight") == true,
                            "\(shape): \(recovery?.summary ?? "")")
                    #expect((recovery.map(Self.resumedCount) ?? 0) >= 1, "\(shape): nothing resumed: \(recovery?.summary ?? "")")
                    let integrity = scenario["integrity"]
                    #expect(integrity?.outcome == "passed" && integrity?.summary.contains("byte-identical") == true,
                            "\(shape): \(integrity.map(String.init(describing:)) ?? "missing")")
                }
                // The single-file stream's resume is of a byte range, from its offset plus what the disk held.
                let ranged = verdicts["recorded-byterange-crash"]?["crash-recovery"]?.evidence ?? []
                #expect(ranged.contains { $0.contains("with Range bytes=") && $0.contains("resumed: the disk held")
                    && $0.contains("/big-byterange/v0/all.ts#bytes=") }, "\(ranged)")

                let (fromZero, wrong) = try await run("from-zero", ["--misbehave", "byte-range-from-zero"])
                #expect(fromZero.status == 1, "\(fromZero.stdout)")
                let restarted = wrong["recorded-byterange-crash"]?["crash-recovery"]
                #expect(restarted?.outcome == "failed", "\(restarted.map(String.init(describing:)) ?? "missing")")
                #expect(restarted?.evidence.contains { $0.contains("(the ") && $0.contains("bytes held counted from the file's "
                    + "start, not from its range's first byte)") && $0.contains("it must resume with Range bytes=") } == true,
                    "\(restarted?.evidence ?? [])")
                let fmp4 = wrong["recorded-fmp4-crash"]?["crash-recovery"]
                #expect(fmp4?.outcome == "passed", "a stream with no byte range: \(fmp4.map(String.init(describing:)) ?? "missing")")
            } catch {
                await scratch.stop()
                throw error
            }
            await scratch.stop()
        }

        /// One property's verdict in a report: its outcome, summary and evidence texts.
        struct Verdict: CustomStringConvertible {
            var outcome: String
            var summary: String
            var evidence: [String]
            var description: String { "\(outcome) \(summary); " + evidence.joined(separator: "; ") }
        }

        typealias Verdicts = [String: Verdict]

        /// Each scenario's verdicts, by property, in a run's `report.json`.
        static func verdicts(_ report: String) throws -> [String: Verdicts] {
            let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report + "/report.json")))
            let scenarios = (json as? [String: Any])?["scenarios"] as? [[String: Any]] ?? []
            return Dictionary(uniqueKeysWithValues: scenarios.map { scenario in
                let verdicts = scenario["verdicts"] as? [[String: Any]] ?? []
                return (scenario["name"] as? String ?? "", Dictionary(uniqueKeysWithValues: verdicts.map { verdict in
                    (verdict["property"] as? String ?? "", Verdict(
                        outcome: verdict["outcome"] as? String ?? "", summary: verdict["summary"] as? String ?? "",
                        evidence: (verdict["evidence"] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String }))
                }))
            })
        }

        /// N of "N partial copies resumed by Range" in a `crash-recovery` summary (0 when absent).
        static func resumedCount(_ verdict: Verdict) -> Int {
            let words = verdict.summary.split(separator: " ")
            guard let index = words.firstIndex(where: { $0 == "partial" }), index > 0 else { return 0 }
            return Int(words[index - 1]) ?? 0
        }
    }
}

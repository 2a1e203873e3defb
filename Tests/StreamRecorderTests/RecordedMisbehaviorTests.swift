import BenchCore
import Foundation
@testable import StreamRecorder
import Testing
import TestSupport

/// The misbehaving variants that only a recorded stream can show (the fixture catalog has
/// no init sections and no byte ranges), each caught on the shape it breaks, recorded
/// from nginx: `HarnessSeamMisbehaviorTests.playedOnRecordedStreams` names them.
extension RecordedStreams.RecordCommandTests {
    /// A slow clean WiFi: two of the single-file stream's 15 KiB ranges at once take 8 s,
    /// so a cut 2 s into them lands inside both, with margin on a loaded machine.
    static let slowLinks = """
        name: slow-links
        description: a slow clean WiFi, so that a cut lands inside a byte range
        duration: 5m
        interfaces:
          wifi: {downlink: {rate: 32kbit/s, delay: 10ms}, uplink: {rate: 32kbit/s, delay: 10ms}}
          cellular: {expensive: true, downlink: {rate: 32kbit/s, delay: 20ms}, uplink: {rate: 32kbit/s, delay: 20ms}}

        """

    /// Two ranges stored (progress 50 %), the next two under way for two seconds, then
    /// every connection reset: the engine resumes each range it holds in part.
    static let cutByteRanges = """
        name: recorded-byterange-cut
        summary: >-
          The recorded single-file byte-range stream, its connections cut while its third and fourth ranges are under
          way; each range held in part must be resumed inside its own range, every segment byte-exact.
        asserts: [integrity]
        needs: [inspect]
        steps:
          - up: wifi
          - wait-for-path: [wifi]
          - launch
          - request: byterange
          - wait: {progress: byterange, at-least: 0.5}
            label: byterange at 50 %
          - wait-for-media-response
          - hold: 2s
          - cut: wifi
          - wait-settled: all
          - inspect: all

        """

    /// Each variant fails exactly `integrity`, and only on the stream whose shape it
    /// breaks, where Deadzone's honest engine passes the same scenarios; the byte-range
    /// one only after a resume really happened (the trace shows the `Range` it asked).
    @Test func aVariantThatDropsInitSectionsOrRestartsAByteRangeIsCaught() async throws {
        let scratch = try await RecordedStreams.RecordFromNginxTests.Scratch.start()
        do {
            let bench = try Self.bench()
            _ = try await scratch.recorder().record(["fmp4", "byterange"].map { (shape: String) in
                StreamRecorder.Request(id: shape, url: scratch.origin.url("/\(shape)/master.m3u8"))
            })
            for (name, text) in [("links", Self.slowLinks), ("cut", Self.cutByteRanges)] {
                try text.write(toFile: "\(scratch.root)/\(name).yaml", atomically: true, encoding: .utf8)
            }
            let wholeFMP4 = try scratch.wholeDownload("fmp4", name: "recorded-fmp4")
            let ranges = try Self.byteRanges(of: scratch.trees + "/byterange/v0/index.m3u8")
            try #require(ranges.count == 4 && ranges.dropFirst().allSatisfy { $0.offset > 0 }, "\(ranges)")
            func run(_ label: String, _ misbehave: [String]) async throws -> (ChildProcess.Outcome, String) {
                let out = "\(scratch.root)/\(label)"
                let result = try await ChildProcess.run(bench, [
                    "--profile", scratch.root + "/links.yaml", "--catalog", scratch.catalog, "--time-limit", "120",
                    "--scenario-file", wholeFMP4, "--scenario-file", scratch.root + "/cut.yaml",
                    "--out", out,
                ] + misbehave, timeout: .seconds(200))
                return (result, out)
            }

            let (honest, honestOut) = try await run("honest", [])
            #expect(honest.status == 0, "\(honest.stdout)\n\(honest.stderr)")
            let honestVerdicts = try Self.verdicts(honestOut)
            for scenario in ["recorded-fmp4", "recorded-byterange-cut"] {
                let integrity = honestVerdicts[scenario]?["integrity"] ?? "missing"
                #expect(integrity.hasPrefix("passed") && integrity.contains("segments byte-identical"), "\(scenario): \(integrity)")
            }
            // The honest resume asks the rest of its own range: from past its offset to its end.
            let honestRanges = try Self.rangesAsked(honestOut, path: "/byterange/v0/all.ts")
            #expect(honestRanges.contains { asked in
                ranges.contains { asked.first > $0.first && asked.first <= $0.last && asked.last == $0.last }
            }, "no range resumed in the honest run: \(honestRanges)")

            let (dropping, droppingOut) = try await run("drops-init-sections", ["--misbehave", "drops-init-sections"])
            #expect(dropping.status == 1, "\(dropping.stdout)")
            let dropped = try Self.verdicts(droppingOut)
            #expect(Self.failed(dropped["recorded-fmp4"]) == ["integrity"], "\(dropped)")
            #expect(Self.failed(dropped["recorded-byterange-cut"]) == [], "a stream with no init section: \(dropped)")
            #expect(dropped["recorded-fmp4"]?["integrity"]?.contains("none for /fmp4/v0/init.mp4: absent") == true,
                    "\(dropped)")

            let (fromZero, fromZeroOut) = try await run("byte-range-from-zero", ["--misbehave", "byte-range-from-zero"])
            #expect(fromZero.status == 1, "\(fromZero.stdout)")
            let restarted = try Self.verdicts(fromZeroOut)
            #expect(Self.failed(restarted["recorded-byterange-cut"]) == ["integrity"], "\(restarted)")
            #expect(Self.failed(restarted["recorded-fmp4"]) == [], "a stream with no byte range: \(restarted)")
            #expect(restarted["recorded-byterange-cut"]?["integrity"]?.contains("differing /byterange/v0/all.ts") == true,
                    "\(restarted)")
            // The situation happened: a range past the file's first, resumed from the file's start.
            let wrongRanges = try Self.rangesAsked(fromZeroOut, path: "/byterange/v0/all.ts")
            #expect(wrongRanges.contains { asked in
                ranges.dropFirst().contains { asked.first > 0 && asked.first < $0.first && asked.last == $0.length - 1 }
            }, "no range resumed from the file's start: \(wrongRanges)")
        } catch {
            await scratch.stop()
            throw error
        }
        await scratch.stop()
    }

    /// A byte range as first and last byte (inclusive).
    struct Span: Hashable, CustomStringConvertible {
        var first: Int
        var last: Int
        var offset: Int { first }
        var length: Int { last - first + 1 }
        var description: String { "\(first)-\(last)" }
    }

    /// The EXT-X-BYTERANGEs of a media playlist, each at its offset (an omitted offset
    /// follows the previous range).
    static func byteRanges(of playlist: String) throws -> [Span] {
        var next = 0
        return try String(contentsOfFile: playlist, encoding: .utf8).split(separator: "\n")
            .filter { $0.hasPrefix("#EXT-X-BYTERANGE:") }.map { line in
                let parts = line.dropFirst("#EXT-X-BYTERANGE:".count).split(separator: "@")
                let length = try #require(Int(parts[0]))
                let offset = parts.count > 1 ? try #require(Int(parts[1])) : next
                next = offset + length
                return Span(first: offset, last: offset + length - 1)
            }
    }

    /// The `Range`s the origin was asked for `path` in a run's trace, in order.
    static func rangesAsked(_ report: String, path: String) throws -> [Span] {
        let lines = try String(contentsOfFile: report + "/trace.jsonl", encoding: .utf8).split(separator: "\n")
        return lines.compactMap { line -> Span? in
            guard let entry = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                entry["source"] as? String == "origin", let event = entry["event"] as? [String: Any],
                event["path"] as? String == path, let range = event["range"] as? String, range.hasPrefix("bytes=")
            else { return nil }
            let bounds = range.dropFirst("bytes=".count).split(separator: "-").compactMap { Int($0) }
            return bounds.count == 2 ? Span(first: bounds[0], last: bounds[1]) : nil
        }
    }

    /// Each scenario's verdicts in a run's `report.json`: property → "outcome summary; evidence…".
    static func verdicts(_ report: String) throws -> [String: [String: String]] {
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report + "/report.json")))
        let scenarios = (json as? [String: Any])?["scenarios"] as? [[String: Any]] ?? []
        return Dictionary(uniqueKeysWithValues: scenarios.map { scenario in
            let verdicts = scenario["verdicts"] as? [[String: Any]] ?? []
            return (scenario["name"] as? String ?? "", Dictionary(uniqueKeysWithValues: verdicts.map { verdict in
                let evidence = (verdict["evidence"] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String }
                return (verdict["property"] as? String ?? "",
                        "\(verdict["outcome"] ?? "") \(verdict["summary"] ?? ""); " + evidence.joined(separator: "; "))
            }))
        })
    }

    /// The properties that failed among `verdicts`, sorted; nil for no verdicts (no such
    /// scenario in the report), which equals no list.
    static func failed(_ verdicts: [String: String]?) -> [String]? {
        verdicts.map { $0.filter { $0.value.hasPrefix("failed") }.keys.sorted() }
    }
}

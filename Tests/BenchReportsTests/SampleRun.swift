import BenchCore
import BenchResults
import BenchVocabulary
import Foundation
import AppProtocol

/// A small run built in code: three scenarios (one passing, one with a failed property
/// after a kill and relaunch, one that could not finish) and a trace that touches both
/// interfaces, two downloads (one named with markup), the lifecycle, the origin and the
/// license server. Strings carry markup, quotes and a control character on purpose.
enum SampleRun {
    static let hostileText = "Segment <seg3> fetched twice & \"again\" 'sic' \u{1}"
    static let hostileDownload = "<script>alert(\"pwn\")</script>&amp;"
    static let hostileInterface = "wlan<0>&"

    static func ns(_ seconds: Double) -> UInt64 { UInt64(seconds * 1e9) }

    static func report() -> RunReport {
        RunReport(
            run: RunMetadata(
                profile: "subway-commute", profilePath: "Profiles/subway-commute.yaml", seed: 42,
                startedAt: Date(timeIntervalSince1970: 1_760_000_000), durationSeconds: 30.5,
                versions: ["deadzone": "0.1.0", "swift": "6.3.1"], machine: ["os": "Debian 12", "cpus": "2"]),
            scenarios: [
                ScenarioResult(
                    name: "auto-suspend", summary: "WiFi drops for 3 s while downloading.",
                    verdicts: [
                        Verdict(
                            property: "auto-suspend-on-disconnect", outcome: .passed,
                            summary: "dl-1 suspended 0.3 s after wifi went down",
                            evidence: [Evidence(t: ns(4), "wifi down (reset)"), Evidence(t: ns(4.3), "dl-1 → suspended(network)")]),
                        Verdict(property: "no-cellular-unless-allowed", outcome: .notApplicable, summary: "cellular never up"),
                    ],
                    metrics: ScenarioMetrics(
                        timeToCompleteSeconds: 8, goodputBitsPerSecond: 2_000_000, bytesByInterface: ["wifi": 1_500_000],
                        suspendLatencySeconds: 0.3),
                    startNanoseconds: ns(1), endNanoseconds: ns(11)),
                ScenarioResult(
                    name: "crash-recovery", summary: "The agent is killed half-way, then relaunched.",
                    verdicts: [
                        Verdict(property: "legal-transitions", outcome: .passed, summary: "all transitions legal"),
                        Verdict(
                            property: "recovery-after-crash", outcome: .failed, summary: hostileText,
                            evidence: [Evidence(t: ns(16), "killed <pid 42>"), Evidence(t: ns(18.25), "GET /seg3.ts again & again")]),
                        Verdict(property: "license-before-background", outcome: .notApplicable, summary: "no protected download"),
                    ],
                    metrics: ScenarioMetrics(timeToCompleteSeconds: 8, bytesRefetchedAfterCrash: 200_000),
                    startNanoseconds: ns(12), endNanoseconds: ns(25)),
                ScenarioResult(
                    name: "time-limit", summary: "Runs out of time.",
                    verdicts: [Verdict(property: "monotonic-progress", outcome: .passed, summary: "progress never went back")],
                    metrics: ScenarioMetrics(), startNanoseconds: ns(26), endNanoseconds: ns(30),
                    error: "time limit 4 s passed <&>"),
            ])
    }

    static func trace() -> [TraceEntry] {
        var entries: [TraceEntry] = []
        func at(_ seconds: Double, _ event: TraceEvent) { entries.append(TraceEntry(t: ns(seconds), event)) }
        at(0.1, .conditioner(.listening(interface: .wifi, endpoint: "127.0.0.2:4000")))
        at(0.1, .conditioner(.listening(interface: .cellular, endpoint: "127.0.0.3:4001")))
        // Scenario 1: wifi drops from 4 s to 7 s.
        at(1, .harness(.scenarioStarted(name: "auto-suspend", profile: "subway-commute", seed: 42)))
        at(1, .harness(.lifecycle(foreground: true)))
        at(1, .harness(.downloadRequested(video: "v1", download: "dl-1", allowsCellular: false, protected: false, error: nil)))
        at(1.1, .agent(.stateChanged(download: "dl-1", from: .notDownloaded, to: .requested)))
        at(1.2, .agent(.stateChanged(download: "dl-1", from: .requested, to: .downloading)))
        at(1.3, .origin(origin(interface: "wifi", bytes: 500_000, duration: 2)))
        at(1.4, .origin(origin(interface: hostileInterface, bytes: 1000, duration: 0)))
        at(2, .license(LicenseEvent(atNanoseconds: 99, kind: .certificateServed)))
        for step in 0..<6 {
            at(1.5 + Double(step) * 0.5, .conditioner(.bytesForwarded(
                connection: 1, interface: .wifi, direction: .downlink, bytes: 100_000, total: 100_000 * (step + 1))))
        }
        at(2.5, .agent(.stateChanged(download: hostileDownload, from: .requested, to: .downloading)))
        at(4, .harness(.interfaceSet(.wifi, up: false, mode: .reset)))
        at(4, .conditioner(.interfaceDown(interface: .wifi, mode: .reset)))
        at(4.3, .agent(.stateChanged(download: "dl-1", from: .downloading, to: .suspended(.network))))
        at(7, .conditioner(.interfaceUp(interface: .wifi)))
        at(7.4, .agent(.stateChanged(download: "dl-1", from: .suspended(.network), to: .downloading)))
        at(9, .agent(.stateChanged(download: "dl-1", from: .downloading, to: .downloaded)))
        at(9, .agent(.finished(download: "dl-1", package: "/tmp/p")))
        at(10, .harness(.lifecycle(foreground: false)))
        // Scenario 2: dl-2 over cellular, a kill at 16 s, a relaunch at 17 s.
        at(12.5, .harness(.downloadRequested(video: "v2", download: "dl-2", allowsCellular: true, protected: false, error: nil)))
        at(12.6, .agent(.stateChanged(download: "dl-2", from: .requested, to: .downloading)))
        for step in 0..<6 {
            at(13 + Double(step) * 0.5, .conditioner(.bytesForwarded(
                connection: 2, interface: .cellular, direction: .downlink, bytes: 50_000, total: 50_000 * (step + 1))))
        }
        at(14.9, .license(LicenseEvent(atNanoseconds: 88_000, kind: .requestReceived(
            endpoint: .license, assetID: "v2", keyID: "k2", nonce: "n1", terms: .rental, appInBackground: false))))
        at(15, .agent(.licenseAcquired(download: "dl-2", expiration: Date(timeIntervalSince1970: 1_760_086_400))))
        at(16, .harness(.killed(pid: 42, reason: "crash at 50% <&>")))
        at(17, .harness(.launched(pid: 43, after: .crash)))
        at(17.1, .agent(.launched(pid: 43, after: .crash)))
        at(20, .agent(.stateChanged(download: "dl-2", from: .downloading, to: .downloaded)))
        at(27, .harness(.note("still waiting")))
        return entries
    }

    static func origin(interface: String?, bytes: Int, duration: Double) -> OriginRequestRecord {
        OriginRequestRecord(
            connectionID: 1, interface: interface, proxySource: "127.0.0.2:5000", method: "GET", path: "/videos/v1/seg1.ts",
            range: nil, status: 200, bytesSent: bytes, startedAtNanoseconds: 123_456, timeToFirstByteNanoseconds: 1000,
            durationNanoseconds: ns(duration), faultRuleID: nil, completed: true)
    }
}

import AppProtocol
import BenchCore
import BenchVocabulary
import Foundation

/// One trace entry of every kind each source can say, for the coding tests: every
/// `ConditionerEvent.Kind`, every `HarnessEvent`, every `LicenseEvent` kind, every
/// `AppEvent` and an origin record (with its optional fields set and left out).
enum TraceSamples {
    static let path = NetworkPath(interfaces: [
        PathInterface(kind: .wifi, isExpensive: false, isConstrained: false, endpoint: "127.0.0.1:4001"),
        PathInterface(kind: .cellular, isExpensive: true, isConstrained: true, endpoint: "127.0.0.1:4002"),
    ])

    static var stats: ConnectionStats {
        var stats = ConnectionStats()
        stats.bytesDownlink = 1_000
        stats.bytesUplink = 200
        stats.packetsLost = 1
        stats.stalls = 2
        stats.ageMilliseconds = 1_500.5
        return stats
    }

    static let conditioner: [ConditionerEvent.Kind] = [
        .listening(interface: .wifi, endpoint: "127.0.0.1:4001"),
        .connectionAccepted(connection: 1, interface: .wifi, peer: "127.0.0.1:50000"),
        .connectionRefused(interface: .cellular, peer: "127.0.0.1:50001"),
        .upstreamConnected(connection: 1, interface: .wifi, connectMilliseconds: 0.25),
        .tunnelOpened(connection: 1, interface: .wifi, target: "127.0.0.1:8080"),
        .requestForwarded(connection: 2, interface: .cellular, target: "example.com:80"),
        .requestIntercepted(connection: 3, interface: .wifi, target: "cdn.example.com:443"),
        .upstreamFailed(connection: 2, interface: .wifi, error: "connection refused"),
        .appSent(connection: 1, interface: .wifi, bytes: 169),
        .bytesForwarded(connection: 1, interface: .wifi, direction: .downlink, bytes: 100_000, total: 200_000),
        .stalled(connection: 1, interface: .wifi, direction: .downlink, pendingBytes: 4_096),
        .flowResumed(connection: 1, interface: .wifi, direction: .uplink, stalledMilliseconds: 250),
        .packetLost(connection: 1, interface: .cellular, direction: .downlink, bytes: 1_500, heldMilliseconds: 200),
        .connectionReset(connection: 1, interface: .wifi, reason: "interface down"),
        .connectionClosed(connection: 1, interface: .wifi, reason: "client closed", stats: stats),
        .interfaceUp(interface: .wifi),
        .interfaceDown(interface: .wifi, mode: .reset),
        .linkChanged(interface: .cellular, summary: "1 Mbit/s down, 50 ms"),
        .listenerFailed(interface: .wifi, error: "address in use"),
        .pathChanged(path: path),
        .pathPublished(path: NetworkPath(interfaces: [])),
        .phaseApplied(index: 0, label: "outage", at: 3.5),
        .phaseApplied(index: 1, label: nil, at: 7),
        .profileStateHeld(interface: .cellular, state: .down(.blackhole), phase: 2),
        .profileStateOverridden(interface: .wifi, state: .down(.refuse)),
        .timelineFinished,
        .timelineControlled(action: .moved, at: 12.5),
        .stopped,
    ]

    static let inspection = AppInspection(
        download: "dl-1", known: true, state: .suspended(.network), playable: false, unplayableReason: "incomplete",
        licenseExpiration: Date(timeIntervalSince1970: 1_760_000_000), package: "/tmp/p/master.m3u8", files: 3,
        segmentHashes: ["/videos/clear/400k/seg0.ts": "ab"], packageComplete: false)

    static let findings = PackageFindings(
        directory: "/tmp/p", problems: ["a problem"],
        playlists: [
            PlaylistFindings(
                uri: "video.m3u8", role: "variant", rendition: "/videos/clear/400k/index.m3u8", expected: 2, listed: 2,
                present: 1, matching: 1, missing: ["/videos/clear/400k/seg1.ts"],
                keys: [SidecarFinding(uri: "key.bin", origin: "/videos/k/key", outcome: .matches)],
                initSections: [SidecarFinding(uri: nil, origin: "/videos/k/init.mp4", outcome: .absent)])
        ])

    static let harness: [HarnessEvent] = [
        .scenarioStarted(name: "auto-suspend", profile: "flaky-wifi", seed: 7),
        .scenarioFinished(name: "auto-suspend", timedOut: false),
        .pathGiven(interfaces: [.wifi, .cellular]),
        .pathAcknowledged(interfaces: []),
        .interfaceSet(.wifi, up: false, mode: .reset),
        .interfaceSet(.wifi, up: true, mode: nil),
        .lifecycle(foreground: false),
        .licenseServerBackground(true),
        .preparingForBackground,
        .preparedForBackground(unfinished: ["dl-2"]),
        .downloadRequested(video: "clear", download: "dl-1", allowsCellular: false, protected: false, error: nil),
        .downloadRequested(video: "clear", download: nil, allowsCellular: true, protected: true, error: "refused"),
        .licenseKeyOf(download: "dl-3", assetID: "protected", keyID: "k1", licenseURL: "/license"),
        .userAction(action: "pause", download: "dl-1", error: nil),
        .userAction(action: "cancel", download: "dl-1", error: "unknown download"),
        .allowsCellularSet(true),
        .killed(pid: 42, reason: "crash at 50%"),
        .diskAtKill(pid: 42, stored: ["/videos/clear/400k/seg0.ts"], partial: ["/videos/clear/400k/seg1.ts": 10], unknown: ["x.tmp": 3]),
        .leftAfterRemoval(download: "dl-1", stored: [], partial: [:], packageFiles: ["dl-1/master.m3u8"]),
        .diskWhilePaused(download: "dl-1", stored: ["/videos/clear/400k/seg0.ts"], partial: ["/videos/clear/400k/seg1.ts": 4096]),
        .launched(pid: 43, after: .crash),
        .helloAnswered(app: "deadzone-agent 1.0", capabilities: ["inspect"]),
        .inspected(inspection),
        .packageRead(download: "dl-1", master: "/tmp/p/master.m3u8", cause: .downloaded, found: findings),
        .packageRead(download: "dl-1", master: nil, cause: .inspected, found: PackageFindings(directory: "")),
        .agentExited(pid: 43, status: 0),
        .note("trigger progress ≥ 0.5 met"),
        .clientLaunched(client: "ffmpeg", mode: "kill-rerun", pid: 50, attempt: 2),
        .clientExited(client: "ffmpeg", pid: 50, status: 137),
        .originFaultBegan(index: 0, label: "station portal", path: "/**", fault: "captive portal", rule: "profile-origin-0"),
        .originFaultBegan(index: 1, label: nil, path: "/videos/**", fault: "status 503", rule: "profile-origin-1"),
        .originFaultEnded(index: 0, label: "station portal", rule: "profile-origin-0"),
        .originFaultEnded(index: 1, label: nil, rule: "profile-origin-1"),
        .storageSynced(read: "kill", seconds: 0.25, error: nil),
        .storageSynced(read: "downloaded", seconds: 60, error: "`adb pull` failed (exit status 1)"),
    ]

    static let license: [LicenseEvent.Kind] = [
        .requestReceived(endpoint: .license, assetID: "v1", keyID: "k1", nonce: "n", terms: .rental, appInBackground: true),
        .requestReceived(endpoint: .certificate, assetID: nil, keyID: nil, nonce: nil, terms: nil, appInBackground: false),
        .certificateServed,
        .licenseIssued(assetID: "v1", keyID: "k1", nonce: "n", terms: .purchase, expiresAt: nil, signature: "sig"),
        .licenseRenewed(assetID: "v1", keyID: "k1", nonce: "n2", expiresAt: 1_760_000_000, renewalOf: "n", signature: "sig2"),
        .licenseRefused(endpoint: .renewal, code: .appInBackground),
        .requestRejected(endpoint: .license, method: "PUT", path: "/license", status: 405, reason: "method not allowed"),
    ]
    /// The license server's event names (`LicenseEvent`'s `event`).
    static let licenseNames: Set<String> = [
        "request_received", "certificate_served", "license_issued", "license_renewed", "license_refused", "request_rejected",
    ]

    static let expiration = Date(timeIntervalSince1970: 1_760_086_400)
    static let agent: [AppEvent] = [
        .launched(pid: 43, after: .clean),
        .stateChanged(download: "dl-1", from: .downloading, to: .suspended(.network)),
        .progress(download: "dl-1", selection: "video", fraction: 0.5),
        .segmentStored(download: "dl-1", stream: "video", index: 3, bytes: 100_000, path: "/videos/clear/400k/seg3.ts"),
        .licenseAcquired(download: "dl-2", expiration: expiration),
        .licenseRenewed(download: "dl-2", expiration: expiration),
        .licenseFailed(download: "dl-2", reason: "app_in_background"),
        .finished(download: "dl-1", package: "/tmp/p/master.m3u8"),
        .evicted(download: "dl-2"),
        .error(download: nil, message: "disk full"),
        .error(download: "dl-1", message: "bad playlist"),
        .partialSegmentsFound([
            AppPartialSegment(download: "dl-1", stream: "video", index: 4, path: "/videos/clear/400k/seg4.ts", bytes: 10, byteRange: "bytes=0-99")
        ]),
    ]
    /// The app protocol's event names (`AppEvent.name`).
    static let agentNames: Set<String> = [
        "launched", "stateChanged", "progress", "segmentStored", "licenseAcquired", "licenseRenewed", "licenseFailed",
        "finished", "evicted", "error", "partialSegmentsFound",
    ]

    static let origin: [OriginRequestRecord] = [
        OriginRequestRecord(
            connectionID: 1, interface: "wifi", proxySource: "127.0.0.2:5000", method: "GET", path: "/videos/v1/seg1.ts",
            range: "bytes=0-99", status: 206, bytesSent: 100, startedAtNanoseconds: 123_456, timeToFirstByteNanoseconds: 1_000,
            durationNanoseconds: 2_000_000, faultRuleID: "cut", completed: false, rejection: nil),
        OriginRequestRecord(
            connectionID: 2, interface: nil, proxySource: nil, method: "-", path: "-", range: nil, status: 0, bytesSent: 0,
            startedAtNanoseconds: 5, timeToFirstByteNanoseconds: nil, durationNanoseconds: 0, faultRuleID: nil, completed: false,
            rejection: "no PROXY header"),
    ]

    /// Every sample as a trace entry, `t` counting up.
    static var entries: [TraceEntry] {
        let events: [TraceEvent] = conditioner.map { .conditioner($0) } + origin.map { .origin($0) }
            + license.enumerated().map { .license(LicenseEvent(atNanoseconds: UInt64($0.offset) * 1_000, kind: $0.element)) }
            + agent.map { .agent($0) } + harness.map { .harness($0) }
        return events.enumerated().map { TraceEntry(t: UInt64($0.offset) * 1_000_000, $0.element) }
    }
}

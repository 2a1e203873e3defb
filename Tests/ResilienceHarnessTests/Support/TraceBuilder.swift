import BenchCore
import FixtureOrigin
import LinkConditioner
import Foundation
import AppProtocol
import LinkConditioner
import ResilienceHarness
import Testing

/// Trace time in nanoseconds for `seconds` since the run's epoch.
func ns(_ seconds: Double) -> UInt64 {
    UInt64((seconds * 1e9).rounded())
}

/// Builds a merged trace by hand, one event per call, each at a time in seconds.
/// State changes chain by themselves: `state(_:_:at:)` starts from the token's last
/// reported state (`notDownloaded` at first); `change` gives `from` explicitly.
struct TraceBuilder {
    private(set) var entries: [TraceEntry] = []
    private var lastState: [String: AppState] = [:]

    /// The view properties and metrics read.
    var trace: ScenarioTrace { ScenarioTrace(entries) }

    mutating func add(_ seconds: Double, _ event: TraceEvent) {
        entries.append(TraceEntry(t: ns(seconds), event))
    }

    // MARK: Harness

    /// The harness requests `video` and the engine answers `token`; the engine reports
    /// `notDownloaded → requested` at the same instant.
    mutating func request(
        _ token: String, video: String, at seconds: Double, allowsCellular: Bool = false, protected: Bool = false
    ) {
        add(seconds, .harness(.downloadRequested(
            video: video, download: token, allowsCellular: allowsCellular, protected: protected, error: nil)))
        state(token, .requested, at: seconds)
    }

    mutating func interface(_ kind: InterfaceKind, up: Bool, mode: DownMode? = .reset, at seconds: Double) {
        add(seconds, .harness(.interfaceSet(kind, up: up, mode: up ? nil : mode)))
    }

    mutating func path(_ interfaces: [InterfaceKind], at seconds: Double) {
        add(seconds, .harness(.pathGiven(interfaces: interfaces)))
    }

    /// The app's reply to the `setPath` with `interfaces`, as the harness read it.
    mutating func acknowledged(_ interfaces: [InterfaceKind], at seconds: Double) {
        add(seconds, .harness(.pathAcknowledged(interfaces: interfaces)))
    }

    mutating func lifecycle(foreground: Bool, at seconds: Double) {
        add(seconds, .harness(.lifecycle(foreground: foreground)))
    }

    /// `prepareForBackground()` returned: the app was told the background was coming.
    mutating func prepared(unfinished: [String] = [], at seconds: Double) {
        add(seconds, .harness(.preparedForBackground(unfinished: unfinished)))
    }

    mutating func kill(at seconds: Double, pid: Int32 = 100) {
        add(seconds, .harness(.killed(pid: pid, reason: "scenario")))
    }

    /// The harness launches the agent and the agent reports its launch at the same instant.
    mutating func launch(after termination: RelaunchKind, at seconds: Double, pid: Int32 = 101) {
        add(seconds, .harness(.launched(pid: pid, after: termination)))
        add(seconds, .agent(.launched(pid: pid, after: termination)))
    }

    /// The harness's look at the app's disk after killing `pid`: origin paths held
    /// whole (`stored`), in part (`partial`: path → bytes), and other files (`unknown`).
    mutating func disk(
        at seconds: Double, pid: Int32 = 100, stored: [String] = [], partial: [String: Int64] = [:],
        unknown: [String: Int64] = [:]
    ) {
        add(seconds, .harness(.diskAtKill(pid: pid, stored: stored, partial: partial, unknown: unknown)))
    }

    /// The harness's look at the app's disk while the user had `token` paused.
    mutating func pausedDisk(_ token: String, at seconds: Double, stored: [String] = [], partial: [String: Int64] = [:]) {
        add(seconds, .harness(.diskWhilePaused(download: token, stored: stored, partial: partial)))
    }

    mutating func userAction(_ action: String, _ token: String, at seconds: Double, error: String? = nil) {
        add(seconds, .harness(.userAction(action: action, download: token, error: error)))
    }

    mutating func note(_ text: String, at seconds: Double) {
        add(seconds, .harness(.note(text)))
    }

    // MARK: Agent

    mutating func state(_ token: String, _ to: AppState, at seconds: Double) {
        change(token, from: lastState[token] ?? .notDownloaded, to: to, at: seconds)
    }

    mutating func change(_ token: String, from: AppState, to: AppState, at seconds: Double) {
        add(seconds, .agent(.stateChanged(download: token, from: from, to: to)))
        lastState[token] = to
    }

    mutating func progress(_ token: String, _ fraction: Double, selection: String = "video", at seconds: Double) {
        add(seconds, .agent(.progress(download: token, selection: selection, fraction: fraction)))
    }

    mutating func stored(_ token: String, path: String, bytes: Int64, index: Int = 0, at seconds: Double) {
        add(seconds, .agent(.segmentStored(download: token, stream: "video", index: index, bytes: bytes, path: path)))
    }

    /// The agent reports, at its launch, the segments it found partly stored.
    mutating func partials(_ partials: [AppPartialSegment], at seconds: Double) {
        add(seconds, .agent(.partialSegmentsFound(partials)))
    }

    mutating func licenseAcquired(_ token: String, at seconds: Double) {
        add(seconds, .agent(.licenseAcquired(download: token, expiration: Date(timeIntervalSince1970: 2_000_000_000))))
    }

    mutating func licenseFailed(_ token: String, reason: String, at seconds: Double) {
        add(seconds, .agent(.licenseFailed(download: token, reason: reason)))
    }

    /// The app answers an `inspect` (the harness records the answer).
    mutating func inspect(_ inspection: AppInspection, at seconds: Double) {
        add(seconds, .harness(.inspected(inspection)))
    }

    // MARK: Conditioner

    /// The conditioner reports an interface down (`interfaceDown`), as the link itself saw it.
    mutating func conditionerDown(_ kind: InterfaceKind, mode: DownMode, at seconds: Double) {
        add(seconds, .conditioner(.interfaceDown(interface: kind, mode: mode)))
    }

    /// The conditioner reports an interface up (`interfaceUp`).
    mutating func conditionerUp(_ kind: InterfaceKind, at seconds: Double) {
        add(seconds, .conditioner(.interfaceUp(interface: kind)))
    }

    /// The conditioner accepted connection `connection` on `kind` (up, or blackholed and held).
    mutating func accepted(_ kind: InterfaceKind, connection: UInt64, at seconds: Double, peer: String = "127.0.0.1:40000") {
        add(seconds, .conditioner(.connectionAccepted(connection: ConnectionID(connection), interface: kind, peer: peer)))
    }

    /// The conditioner reset connection `connection` on `kind`.
    mutating func connectionReset(_ kind: InterfaceKind, connection: UInt64, at seconds: Double, reason: String = "test") {
        add(seconds, .conditioner(.connectionReset(connection: ConnectionID(connection), interface: kind, reason: reason)))
    }

    /// A down (reset, refuse) interface accepted a connection and reset it at once.
    mutating func refused(_ kind: InterfaceKind, at seconds: Double, peer: String = "127.0.0.1:40001") {
        add(seconds, .conditioner(.connectionRefused(interface: kind, peer: peer)))
    }

    /// `count` refused connects on `kind`, the first at `start`, then one every `every` seconds.
    mutating func refused(_ kind: InterfaceKind, count: Int, from start: Double, every: Double) {
        for index in 0..<count { refused(kind, at: start + Double(index) * every) }
    }

    /// The harness reads `token`'s package and finds `found` (`master` nil: the app named none).
    mutating func packageRead(
        _ token: String, _ found: PackageFindings, cause: PackageReadCause = .downloaded,
        master: String? = "/p/master.m3u8", at seconds: Double
    ) {
        add(seconds, .harness(.packageRead(download: token, master: master, cause: cause, found: found)))
    }

    // MARK: Origin and license server

    /// The origin logs a request that began `duration` seconds before `seconds` and ended
    /// then (`firstByte`: seconds from its start to its response's head, when known).
    mutating func origin(
        _ path: String, bytes: Int, interface: String? = "wifi", range: String? = nil, at seconds: Double,
        duration: Double = 0, status: Int = 200, source: String? = nil, firstByte: Double? = nil, completed: Bool = true
    ) {
        let record = OriginRequestRecord(
            connectionID: 1, interface: interface, proxySource: source, method: "GET", path: path, range: range, status: status,
            bytesSent: bytes, startedAtNanoseconds: 0, timeToFirstByteNanoseconds: firstByte.map(ns),
            durationNanoseconds: ns(duration), faultRuleID: nil, completed: completed)
        add(seconds, .origin(record))
    }

    /// A response to `path` delivered to the app through `interface` on connection
    /// `connection`: accepted at `start`, the origin's record (answered at once, as the
    /// origin hands a response to the conditioner), then the conditioner's delivery
    /// reports every 0.25 s until `end`.
    mutating func delivery(
        _ path: String, through interface: InterfaceKind = .wifi, connection: UInt64, from start: Double, to end: Double,
        bytes: Int = 100_000
    ) {
        let peer = "127.0.0.1:\(41_000 + connection)"
        accepted(interface, connection: connection, at: start, peer: peer)
        let record = OriginRequestRecord(
            connectionID: connection, interface: interface.rawValue, proxySource: peer, method: "GET", path: path,
            range: nil, status: 200, bytesSent: bytes, startedAtNanoseconds: 0, timeToFirstByteNanoseconds: nil,
            durationNanoseconds: ns(0.001), faultRuleID: nil, completed: true)
        add(start + 0.002, .origin(record))
        let reports = max(1, Int(((end - start) / 0.25).rounded()))
        for report in 1...reports {
            // `total` is cumulative, as the conditioner reports it: all of it delivered by `end`.
            let total = bytes * report / reports
            add(min(start + 0.25 * Double(report), end), .conditioner(.bytesForwarded(
                connection: ConnectionID(rawValue: connection), interface: interface, direction: .downlink,
                bytes: total - bytes * (report - 1) / reports, total: total)))
        }
    }

    /// The conditioner forwarded `bytes` on connection `connection` through `interface`.
    mutating func linkBytes(
        _ bytes: Int, through interface: InterfaceKind, direction: Direction = .downlink, connection: UInt64 = 1,
        at seconds: Double
    ) {
        add(seconds, .conditioner(.bytesForwarded(
            connection: ConnectionID(rawValue: connection), interface: interface, direction: direction, bytes: bytes,
            total: bytes)))
    }

    /// The conditioner accepts the app's connection `id` from `peer` (the origin names
    /// it by the same address: `origin(…, source: peer)`).
    mutating func connectionAccepted(_ id: UInt64, peer: String, at seconds: Double) {
        add(seconds, .conditioner(.connectionAccepted(connection: ConnectionID(id), interface: .wifi, peer: peer)))
    }

    /// The app sends a request for `path` on a connection of its own (`connection`,
    /// accepted just before): the conditioner reads it at `sent` (`appSent`), the link
    /// holds it, and the origin logs it from `reached` to `reached + duration`.
    mutating func sentRequest(
        _ path: String, connection: UInt64, sent: Double, reached: Double, duration: Double = 0.1, bytes: Int = 1000
    ) {
        let peer = "127.0.0.1:\(42_000 + connection)"
        connectionAccepted(connection, peer: peer, at: sent - 0.001)
        add(sent, .conditioner(.appSent(connection: ConnectionID(connection), interface: .wifi, bytes: 200)))
        let method = path.hasPrefix("/license") ? "POST" : "GET"
        let record = OriginRequestRecord(
            connectionID: connection, interface: "wifi", proxySource: peer, method: method, path: path, range: nil,
            status: 200, bytesSent: bytes, startedAtNanoseconds: 0, timeToFirstByteNanoseconds: nil,
            durationNanoseconds: ns(duration), faultRuleID: nil, completed: true)
        add(reached + duration, .origin(record))
    }

    /// The conditioner has delivered `total` bytes down connection `id` to the app.
    mutating func delivered(_ id: UInt64, total: Int, at seconds: Double) {
        add(seconds, .conditioner(.bytesForwarded(
            connection: ConnectionID(id), interface: .wifi, direction: .downlink, bytes: 0, total: total)))
    }

    /// The conditioner closes connection `id` after delivering `delivered` bytes down it.
    mutating func connectionClosed(_ id: UInt64, delivered: Int, at seconds: Double) {
        var stats = ConnectionStats()
        stats.bytesDownlink = delivered
        add(seconds, .conditioner(.connectionClosed(
            connection: ConnectionID(id), interface: .wifi, reason: "client read error", stats: stats)))
    }

    mutating func licenseRequest(at seconds: Double, serverFlag: Bool = false) {
        add(seconds, .license(LicenseEvent(atNanoseconds: ns(seconds), kind: .requestReceived(
            endpoint: .license, assetID: "asset", keyID: "key", nonce: "n", terms: .rental,
            appInBackground: serverFlag))))
    }

    // MARK: Protected downloads and the license server's log

    /// The harness requests protected `video` (token `token`) and records its license
    /// key: `asset` (default: the video's id), key `k1`, license URL `/license`.
    mutating func protectedRequest(_ token: String, video: String, asset: String? = nil, at seconds: Double) {
        request(token, video: video, at: seconds, protected: true)
        add(seconds, .harness(.licenseKeyOf(
            download: token, assetID: asset ?? video, keyID: "k1", licenseURL: "/license")))
    }

    /// The license server receives a license request for `asset` at `seconds` and issues
    /// a license at once; the origin logs the `POST /license` that carried it, from 10 ms
    /// before `seconds` to `delivery` seconds after it (nil: its response never
    /// completed, the client left), its head written `firstByte` seconds after `seconds`
    /// (nil: the record has no time to first byte).
    mutating func licenseIssued(
        asset: String, at seconds: Double, delivery: Double? = 0.1, firstByte: Double? = nil, serverFlag: Bool = false
    ) {
        add(seconds, .license(LicenseEvent(atNanoseconds: ns(seconds), kind: .requestReceived(
            endpoint: .license, assetID: asset, keyID: "k1", nonce: "n", terms: .purchase, appInBackground: serverFlag))))
        add(seconds, .license(LicenseEvent(atNanoseconds: ns(seconds), kind: .licenseIssued(
            assetID: asset, keyID: "k1", nonce: "n", terms: .purchase, expiresAt: nil, signature: "s"))))
        let duration = (delivery ?? 0.5) + 0.01
        let record = OriginRequestRecord(
            connectionID: 2, interface: "wifi", proxySource: nil, method: "POST", path: "/license", range: nil,
            status: 200, bytesSent: 300, startedAtNanoseconds: 0, timeToFirstByteNanoseconds: firstByte.map { ns(0.01 + $0) },
            durationNanoseconds: ns(duration), faultRuleID: nil, completed: delivery != nil)
        add(seconds - 0.01 + duration, .origin(record))
    }

    /// The license server receives a request to `endpoint` (for `asset`, if any) and
    /// refuses it with `code`.
    mutating func licenseRefused(
        asset: String?, endpoint: LicenseEndpoint = .license, code: LicenseErrorCode = .appInBackground,
        at seconds: Double, serverFlag: Bool = true
    ) {
        add(seconds, .license(LicenseEvent(atNanoseconds: ns(seconds), kind: .requestReceived(
            endpoint: endpoint, assetID: asset, keyID: asset.map { _ in "k1" }, nonce: asset.map { _ in "n" },
            terms: nil, appInBackground: serverFlag))))
        add(seconds, .license(LicenseEvent(atNanoseconds: ns(seconds), kind: .licenseRefused(endpoint: endpoint, code: code))))
    }
}

/// An inspection with defaults for a healthy downloaded video.
func inspection(
    _ token: String, known: Bool = true, state: AppState? = .downloaded, files: Int = 3,
    licenseExpiration: Date? = nil, playable: Bool = true, unplayableReason: String? = nil,
    segmentHashes: [String: String] = [:], packageComplete: Bool = true
) -> AppInspection {
    AppInspection(
        download: token, known: known, state: state, playable: playable, unplayableReason: unplayableReason,
        licenseExpiration: licenseExpiration, files: files, segmentHashes: segmentHashes, packageComplete: packageComplete)
}

/// Expects `verdict` to carry evidence at `seconds` whose text contains `text`.
func expectEvidence(
    _ verdict: Verdict, at seconds: Double, contains text: String, sourceLocation: SourceLocation = #_sourceLocation
) {
    let found = verdict.evidence.contains { $0.t == ns(seconds) && $0.text.contains(text) }
    #expect(found, "no evidence at \(seconds) s containing “\(text)”; evidence: \(verdict.evidence)",
            sourceLocation: sourceLocation)
}

/// Evaluates the property `id` over `builder`'s trace.
func evaluate(_ id: String, _ builder: TraceBuilder, _ context: PropertyContext = PropertyContext()) -> Verdict {
    guard let property = Properties.named(id) else {
        Issue.record("no property \(id)")
        return Verdict(property: id, outcome: .failed, summary: "unknown property")
    }
    return property.evaluate(builder.trace, context)
}

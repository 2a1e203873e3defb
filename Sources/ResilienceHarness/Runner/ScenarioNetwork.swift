import BenchCore
import BenchVocabulary
import FixtureOrigin
import Foundation
import LinkConditioner

/// One scenario's network: its own origin, with content sized so that a download
/// lasts long enough on the scenario's link for the script to act on it, and a link
/// conditioner with the profile's WiFi and cellular links in front of it.
///
/// The profile gives the links (rate, delay, jitter, loss, faults) and its timeline
/// plays under the scenario's own network steps (`ScenarioContext.setInterface`), by
/// the conditioner's overlay rule (`ProfileOverlay`: a step that takes an interface
/// down holds it down against the profile until the script brings it up again; up
/// wins until the profile's next state change). Its origin faults play on the origin
/// (`OriginFaultPlayer`). An interface the profile leaves unshaped is given
/// `unshapedRate` so that transfers take time at all on loopback.
final class ScenarioNetwork: Sendable {
    /// The rate an unshaped interface gets, bits per second.
    static let unshapedRate = 8_000_000.0
    /// Extra protected videos beside the standard catalog, for scenarios that queue
    /// several protected downloads, and a second long video.
    static let extraProtected = ["protected-b", "protected-c"]
    static let extraLarge = "large-b"

    let origin: OriginServer
    let conditioner: LinkConditioner
    /// The intercepting proxy of a run with `--intercept`, whose exchanges join `origin`'s log.
    let interceptor: InterceptingProxy?
    /// A conditioner listener's `"host:port"` → its interface.
    let interfaces: [String: InterfaceKind]
    let catalog: Catalog
    /// The link each interface was given.
    let links: [InterfaceKind: InterfaceLink]
    /// `https` when the origin serves TLS (`HarnessHTTPS`), else `http`: the scheme of
    /// every URL the harness gives the app.
    let scheme: String

    private init(
        origin: OriginServer, conditioner: LinkConditioner, interceptor: InterceptingProxy?,
        links: [InterfaceKind: InterfaceLink], scheme: String
    ) {
        self.interceptor = interceptor
        self.scheme = scheme
        self.origin = origin
        self.conditioner = conditioner
        self.links = links
        catalog = origin.store.catalog
        var names: [String: InterfaceKind] = [:]
        for (kind, address) in conditioner.endpoints { names[address.description] = kind }
        interfaces = names
    }

    /// Starts the origin and the conditioner; the profile's timeline plays from now.
    /// With `interfacesStart` `.heldDown` every interface starts down (refuse), held by
    /// the scenario until its script brings it up; with `.asProfile` the interfaces
    /// start as the profile says. The conditioner counts refusals (`countsRefusals`): a connection to a down interface
    /// is accepted and reset, so every attempt the app makes during an outage is in the
    /// trace (`connectionRefused`) for `bounded-retries`.
    /// - Parameters:
    ///   - focus: the interface whose rate sizes the content: the clear video's lowest
    ///     variant takes about `targetSeconds` on it, and so does each of the two long
    ///     videos (`large`, `large-b`) when both share it.
    ///   - tls: the run's CA when the origin serves HTTPS (on the same port: a connection
    ///     whose first byte after the conditioner's PROXY line is a TLS handshake speaks
    ///     TLS); nil: plain HTTP.
    static func start(
        profile: Profile, focus: InterfaceKind, targetSeconds: Double, seed: UInt64, collector: TraceCollector,
        interfacesStart: InterfacesStart = .heldDown, tls: RunCertificateAuthority? = nil,
        recorded: RecordedContent = RecordedContent(), interception: HarnessInterception? = nil,
        observer: (any EventSink)? = nil
    ) async throws -> ScenarioNetwork {
        let links = Dictionary(uniqueKeysWithValues: InterfaceKind.allCases.map { kind in
            (kind, shaped(profile.initial[kind]?.link ?? InterfaceSetup.defaultSetup(for: kind).link))
        })
        var focus = focus
        if interfacesStart == .asProfile, profile.initial[focus]?.state != .up,
            let up = InterfaceKind.allCases.first(where: { profile.initial[$0]?.state == .up })
        {
            focus = up  // the profile starts without it: size on an interface that is up
        }
        let rate = links[focus].flatMap { $0.downlink.rate.meanBitsPerSecond } ?? unshapedRate
        let scale = sizeScale(rate: rate, seconds: targetSeconds)
        var catalogConfiguration = CatalogConfiguration(seed: seed, sizeScale: scale)
        catalogConfiguration.largeVideoDuration = (rate / 2 * targetSeconds / 400_000 / scale).rounded().clamped(60, 7200)
        var configuration = OriginConfiguration(catalog: catalogConfiguration)
        // Only what crossed the conditioner proves anything about interfaces: a request
        // straight to the origin is refused and stays in the log as a bypass.
        configuration.requiresProxyHeader = true
        configuration.videos = videos(catalogConfiguration)
        configuration.threads = 1
        configuration.clock = MonotonicClock()
        configuration.tls = tls
        // Recorded streams are served as recorded: their size is theirs, not the scenario's.
        configuration.recorded = recorded
        configuration.recorded.liveFrom = interception?.rules ?? []
        let origin = try await OriginServer.start(configuration: configuration)
        var interceptor: InterceptingProxy?
        if let interception, let tls {
            var settings = InterceptConfiguration(
                rules: interception.rules, authority: tls, upstreamCAFile: interception.upstreamCAFile,
                clock: configuration.clock, threads: 1)
            settings.firstConnectionID = HarnessInterception.firstConnectionID
            do {
                interceptor = try await InterceptingProxy.start(
                    configuration: settings, sink: { origin.interceptedResponseEnded($0) },
                    began: { origin.interceptedResponseStarted($0) })
            } catch {
                try? await origin.stop()
                throw error
            }
        }
        var initial: [InterfaceKind: InterfaceSetup] = [:]
        for (kind, link) in links {
            initial[kind] = InterfaceSetup(state: profile.initial[kind]?.state ?? .up, link: link)
        }
        let shapedProfile = Profile(
            name: profile.name, description: profile.description, seed: seed, duration: profile.duration,
            initial: initial, timeline: profile.timeline.map(shaped), pathUpdates: profile.pathUpdates)
        let holds = interfacesStart == .heldDown
            ? Dictionary(uniqueKeysWithValues: InterfaceKind.allCases.map { ($0, DownMode.refuse) }) : [:]
        var conditionerConfiguration = ConditionerConfiguration(
            upstream: SocketAddress(host: "127.0.0.1", port: UInt16(origin.port)), proxyProtocol: true, profile: shapedProfile,
            playTimeline: true, holds: holds, epoch: collector.epoch, countsRefusals: true)
        conditionerConfiguration.interception = interceptor.map { proxy in
            ConditionerConfiguration.Interception(
                rules: interception?.rules ?? [], proxy: SocketAddress(host: "127.0.0.1", port: UInt16(proxy.port)))
        }
        do {
            let sink: any EventSink = observer.map { FanOutSink([collector, $0]) } ?? collector
            let conditioner = try await LinkConditioner.start(configuration: conditionerConfiguration, sink: sink)
            return ScenarioNetwork(
                origin: origin, conditioner: conditioner, interceptor: interceptor, links: links,
                scheme: tls == nil ? "http" : "https")
        } catch {
            try? await interceptor?.stop()
            try? await origin.stop()
            throw error
        }
    }

    /// Why the recording of a stream fetched live cannot be the judge's reference: the
    /// first intercepted exchange whose whole body, as the outside origin delivered it
    /// (`bodySHA256`), differs from the recording at its path. The origin serves other
    /// bytes now, so the package would be judged against bytes it was never sent: the
    /// scenario is an error, neither passed nor failed. nil when every whole body matched.
    func recordingMismatch() -> String? {
        guard interceptor != nil else { return nil }
        let recorded = origin.store.recorded
        for record in origin.requestLog
        where record.host != nil && record.method == "GET" && record.status == 200 && record.completed && record.range == nil {
            guard let delivered = record.bodySHA256,
                case let .file(_, _, size, sha256)? = recorded.entry(at: OriginPath.normalized(record.path)),
                delivered != sha256
            else { continue }
            return "\(record.host ?? "")\(record.path) delivered \(record.bytesSent) bytes (SHA-256 \(delivered.prefix(12))…), "
                + "not the \(size) bytes recorded (\(sha256.prefix(12))…): the stream is no longer what was recorded, so "
                + "the app cannot be judged against the recording; record it again (bench record)"
        }
        return nil
    }

    /// The catalog entry of `video` and the URL it is served at.
    func document(_ video: String) -> (VideoDocument, String)? {
        let recorded = origin.store.recorded
        if let stream = recorded.stream(video) {
            let document = recorded.document(of: stream, in: catalog.configuration)
            return (document, "\(scheme)://127.0.0.1:\(origin.port)/videos/\(video)")
        }
        guard let entry = catalog.video(withID: video) else { return nil }
        return (VideoDocument(entry, in: catalog), "\(scheme)://127.0.0.1:\(origin.port)/videos/\(video)")
    }

    /// Stops the conditioner and the origin.
    func stop() async {
        await conditioner.stop()
        try? await interceptor?.stop()
        try? await origin.stop()
    }

    /// The standard catalog plus `extraProtected` and `extraLarge`.
    static func videos(_ configuration: CatalogConfiguration) -> [Video] {
        let standard = Catalog.standardVideos(configuration)
        func copy(of id: String, as newID: String) -> Video? {
            guard var video = standard.first(where: { $0.id == id }) else { return nil }
            video.id = newID
            video.name += " (\(newID))"
            return video
        }
        return standard + extraProtected.compactMap { copy(of: "protected", as: $0) }
            + [copy(of: "large", as: extraLarge)].compactMap { $0 }
    }

    /// A timeline phase with unshaped rates given `unshapedRate`, like the initial links.
    static func shaped(_ phase: Phase) -> Phase {
        var phase = phase
        for (kind, setup) in phase.changes { phase.changes[kind]?.link = shaped(setup.link) }
        return phase
    }

    /// `link` with an unshaped downlink or uplink given `unshapedRate`.
    static func shaped(_ link: InterfaceLink) -> InterfaceLink {
        link.withUnshapedRates(unshapedRate)
    }

    /// The catalog's size scale that makes the clear video's lowest variant (400 kbit/s,
    /// 125 s at scale 1) last `seconds` at `rate`, within [0.02, 1].
    static func sizeScale(rate: Double, seconds: Double) -> Double {
        let nominalBits = 400_000.0 * 125
        return min(1, max(0.02, rate * seconds / nominalBits))
    }
}

extension Double {
    /// The value within [low, high].
    func clamped(_ low: Double, _ high: Double) -> Double { Swift.min(high, Swift.max(low, self)) }
}

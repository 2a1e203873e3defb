import AppProtocol
import BenchResults
import BenchCore
import BenchVocabulary

extension Timeline {
    /// Lays out the window [`start`, `end`] of `entries`, which must be in time order.
    ///
    /// Entries before the window only set the states the window starts in (an
    /// interface down since earlier, a download suspended since earlier); entries after
    /// it are ignored. Interface states come from the conditioner's `interfaceUp` and
    /// `interfaceDown` and the harness's `interfaceSet`, an interface being up from its
    /// first mention. Throughput per interface counts the conditioner's downlink
    /// `bytesForwarded` (at the entry's `t`) when there are any in the window, else the
    /// origin's records by `interface`, each spread evenly over [t − duration, t] (t is the response end).
    /// Download lanes are the downloads named in the window; while the agent is dead
    /// (killed or exited, until launched) they show `agentDown`. Who changed the network
    /// (profile, scenario, origin faults) comes from `NetworkChanges`.
    init(entries: [TraceEntry], start: UInt64, end: UInt64) {
        let end = max(end, start &+ 1)
        let buckets = Buckets(start: start, end: end)
        var interfaces = SpanTracker(start: start, end: end)
        var downloads = SpanTracker(start: start, end: end)
        var lifecycle = SpanTracker(start: start, end: end)
        var beforeDeath: [String: String] = [:]
        var videos: [String: String] = [:]
        var named: [String] = []
        var namedSet: Set<String> = []
        var markers: [Marker] = []
        var network = NetworkChanges(start: start, end: end)
        var conditionerBytes: [String: [Double]] = [:]
        var originBytes: [String: [Double]] = [:]

        func name(_ download: String?, at t: UInt64) {
            guard let download, t >= start, namedSet.insert(download).inserted else { return }
            named.append(download)
        }
        func agentDied(at t: UInt64, cause: String) {
            for (download, state) in downloads.current where state != Self.agentDown {
                beforeDeath[download] = state
                downloads.set(download, Self.agentDown, at: t, cause: cause)
            }
        }
        func agentLaunched(at t: UInt64, cause: String) {
            for (download, state) in beforeDeath { downloads.set(download, state, at: t, cause: cause) }
            beforeDeath = [:]
        }

        for entry in entries {
            let t = entry.t
            if t > end { break }
            let inWindow = t >= start
            // The trace line behind a span or a mark, made only for those drawn.
            var cause: String { inWindow ? Self.line(entry) : "" }
            switch entry.event {
            case .conditioner(let event):
                network.add(event, at: t, cause: cause)
                switch event {
                case let .interfaceUp(interface): interfaces.set(interface.rawValue, "up", at: t, cause: cause)
                case let .interfaceDown(interface, mode):
                    interfaces.set(interface.rawValue, "down(\(mode.rawValue))", at: t, cause: cause)
                case let .bytesForwarded(_, interface, direction, bytes, _):
                    interfaces.touch(interface.rawValue, "up", at: t)
                    if inWindow, direction == .downlink {
                        buckets.add(Double(bytes), at: t, to: &conditionerBytes[interface.rawValue, default: buckets.empty])
                    }
                case .profileStateHeld, .profileStateOverridden:
                    break  // about the profile's state, not the interface's: NetworkChanges
                default:
                    if let interface = event.interface { interfaces.touch(interface.rawValue, "up", at: t) }
                }
            case .origin(let record):
                let interface = record.interface ?? "direct"
                if record.interface != nil { interfaces.touch(interface, "up", at: t) }
                if inWindow {
                    // The entry's t is the response's end (TraceEntry); spread back over its duration.
                    let start = t >= record.durationNanoseconds ? t - record.durationNanoseconds : 0
                    buckets.spread(
                        Double(record.bytesSent), from: start, nanoseconds: record.durationNanoseconds,
                        to: &originBytes[interface, default: buckets.empty])
                }
            case .license:
                break
            case .agent(let event):
                switch event {
                case let .stateChanged(download, _, to):
                    name(download, at: t)
                    beforeDeath[download] = nil
                    downloads.set(download, to == .notDownloaded ? nil : to.description, at: t, cause: cause)
                case let .evicted(download):
                    name(download, at: t)
                    downloads.set(download, nil, at: t)
                case .launched:
                    agentLaunched(at: t, cause: cause)
                default:
                    name(event.download, at: t)
                }
            case .harness(let event):
                network.add(event, at: t, cause: cause)
                switch event {
                case let .interfaceSet(interface, up, mode):
                    interfaces.set(
                        interface.rawValue, up ? "up" : mode.map { "down(\($0.rawValue))" } ?? "down", at: t, cause: cause)
                case let .pathGiven(given):
                    for interface in given { interfaces.touch(interface.rawValue, "up", at: t) }
                case let .lifecycle(foreground):
                    lifecycle.set("app", foreground ? "foreground" : "background", at: t, cause: cause)
                case let .downloadRequested(video, download, _, _, _):
                    name(download, at: t)
                    if let download { videos[download] = video }
                case let .userAction(_, download, _):
                    name(download, at: t)
                case let .killed(pid, reason):
                    agentDied(at: t, cause: cause)
                    if inWindow {
                        markers.append(Marker(t: t, kind: .killed, text: "agent \(pid) killed: \(reason)", cause: cause))
                    }
                case let .launched(pid, after):
                    agentLaunched(at: t, cause: cause)
                    if inWindow {
                        markers.append(Marker(t: t, kind: .launched, text: "agent \(pid) launched after \(after)", cause: cause))
                    }
                case let .agentExited(pid, status):
                    agentDied(at: t, cause: cause)
                    if inWindow {
                        markers.append(Marker(t: t, kind: .exited, text: "agent \(pid) exited with status \(status)", cause: cause))
                    }
                case let .clientLaunched(client, _, pid, attempt):
                    if inWindow {
                        markers.append(Marker(
                            t: t, kind: .launched, text: "\(client) \(pid) started (attempt \(attempt))", cause: cause))
                    }
                case let .clientExited(client, pid, status):
                    if inWindow {
                        markers.append(Marker(
                            t: t, kind: .exited, text: "\(client) \(pid) exited with status \(status)", cause: cause))
                    }
                default:
                    break
                }
            }
        }

        let interfaceSpans = interfaces.finish()
        let downloadSpans = downloads.finish()
        let names = Set(interfaceSpans.keys).union(conditionerBytes.keys).union(originBytes.keys).sorted()
        self.start = start
        self.end = end
        self.interfaces = names.map { name in
            if let bytes = conditionerBytes[name], bytes.contains(where: { $0 > 0 }) {
                InterfaceLane(name: name, spans: interfaceSpans[name] ?? [], bytesPerBucket: bytes, throughputSource: "conditioner")
            } else if let bytes = originBytes[name], bytes.contains(where: { $0 > 0 }) {
                InterfaceLane(name: name, spans: interfaceSpans[name] ?? [], bytesPerBucket: bytes, throughputSource: "origin")
            } else {
                InterfaceLane(name: name, spans: interfaceSpans[name] ?? [], bytesPerBucket: buckets.empty, throughputSource: "none")
            }
        }
        self.downloads = named.map { StateLane(name: $0, video: videos[$0], spans: downloadSpans[$0] ?? []) }
        self.lifecycle = lifecycle.finish()["app"] ?? []
        self.markers = markers
        self.profileChanges = network.profile
        self.scenarioSteps = network.scenario
        self.originFaults = network.finishWindows()
        self.bucketNanoseconds = buckets.width
    }
}

extension Timeline {
    /// `entry` as its line of `trace.jsonl`, for a hover.
    static func line(_ entry: TraceEntry) -> String {
        (try? TraceFile.line(for: entry)).flatMap { String(data: $0, encoding: .utf8) } ?? ""
    }

    /// Marks each failed verdict of `verdicts` at the first moment its evidence names
    /// inside the window (the window's end when none does).
    mutating func markFailures(_ verdicts: [Verdict], anchors: ScenarioAnchors) {
        failures = verdicts.filter(\.failed).map { verdict in
            let t = verdict.evidence.map(\.t).first { $0 >= start && $0 <= end } ?? end
            return FailureMark(t: t, property: verdict.property, text: verdict.summary, anchor: anchors.failure(verdict.property))
        }
    }
}

extension ConditionerEvent.Kind {
    /// The interface the event concerns, if it names one.
    var interface: InterfaceKind? {
        switch self {
        case let .listening(interface, _), let .connectionAccepted(_, interface, _),
            let .connectionRefused(interface, _), let .upstreamConnected(_, interface, _), let .upstreamFailed(_, interface, _),
            let .tunnelOpened(_, interface, _), let .requestForwarded(_, interface, _),
            let .requestIntercepted(_, interface, _),
            let .appSent(_, interface, _), let .bytesForwarded(_, interface, _, _, _), let .stalled(_, interface, _, _),
            let .flowResumed(_, interface, _, _), let .packetLost(_, interface, _, _, _),
            let .connectionReset(_, interface, _), let .connectionClosed(_, interface, _, _),
            let .interfaceUp(interface), let .interfaceDown(interface, _), let .linkChanged(interface, _),
            let .listenerFailed(interface, _), let .profileStateHeld(interface, _, _),
            let .profileStateOverridden(interface, _):
            interface
        case .pathChanged, .pathPublished, .phaseApplied, .timelineFinished, .timelineControlled, .stopped:
            nil
        }
    }
}

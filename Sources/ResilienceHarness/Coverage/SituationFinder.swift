import AppProtocol
import BenchCore
import Foundation
import LinkConditioner

/// The situations a scenario created, found in its trace: a pure function of what the
/// world saw (the conditioner's events, the origin's log, the harness's own actions and
/// reads). The app's state reports are used only for what no world evidence names: a
/// download that failed, or that the app reports downloaded before the harness read it.
/// docs/situations.md gives every rule.
public enum SituationFinder {
    /// A path update published this much after the path changed came late.
    static let lateUpdate: UInt64 = 250_000_000
    /// A license response whose first byte came this late was slow.
    static let slowLicense: UInt64 = 1_000_000_000

    /// Every situation of `trace`, in time order. `renditions` (the origin's layout) tells
    /// a rendition's last segment; without it no context is `lastSegment`.
    public static func situations(in trace: ScenarioTrace, renditions: OriginRenditions = OriginRenditions())
        -> [Situation]
    {
        let view = ContextView(trace: trace, renditions: renditions)
        // The context is what held just before the incident: the phase it struck, the
        // network it met (a relaunch while only cellular was up, WiFi back to a download
        // suspended for the network).
        return incidents(in: trace)
            .map { found in
                Situation(
                    incident: found.incident, t: found.t, context: view.context(at: found.t &- 1, of: found.download),
                    evidence: found.evidence)
            }
            .sorted { ($0.t, $0.incident) < ($1.t, $1.incident) }
    }

    /// An incident, when, what shows it, and the download it concerns (a user's action
    /// on one download: the phase that counts is that download's).
    struct Found {
        var incident: Incident
        var t: UInt64
        var evidence: String
        var download: String?

        init(_ incident: Incident, _ t: UInt64, _ evidence: String, download: String? = nil) {
            (self.incident, self.t, self.evidence, self.download) = (incident, t, evidence, download)
        }
    }

    static func incidents(in trace: ScenarioTrace) -> [Found] {
        network(trace) + origin(trace) + lifecycle(trace) + user(trace)
    }

    // MARK: The network

    private static func network(_ trace: ScenarioTrace) -> [Found] {
        var found: [Found] = []
        var changed: (t: UInt64, path: NetworkPath)?
        for entry in trace.entries {
            guard case .conditioner(let kind) = entry.event else { continue }
            switch kind {
            case let .interfaceDown(interface, mode):
                let incident: Incident = switch mode {
                case .reset: .downReset
                case .refuse: .downRefuse
                case .blackhole: .downBlackhole
                }
                found.append(Found(incident, entry.t, "the conditioner took \(interface) down (\(mode.rawValue))"))
            case .interfaceUp(let interface):
                let up = trace.interfaces.up(at: entry.t)
                if interface == .wifi {
                    found.append(Found(.wifiBack, entry.t, "the conditioner brought wifi up"))
                } else if !up.contains(.wifi) {
                    found.append(Found(.cellularBackAlone, entry.t, "the conditioner brought cellular up with wifi down"))
                }
            case .pathChanged(let path):
                if let pending = changed { found.append(withheld(pending)) }
                changed = (entry.t, path)
            case .pathPublished(let path):
                if let pending = changed, pending.path == path {
                    if entry.t - pending.t >= lateUpdate {
                        found.append(Found(.pathUpdateLate, pending.t, "the path changed at \(Wording.time(pending.t)) and "
                            + "was published to the app only at \(Wording.time(entry.t))"))
                    }
                    changed = nil
                }
            case let .connectionReset(_, interface, reason)
                where reason.hasPrefix("reset after") || reason.hasPrefix("random reset")
                || reason == ConnectionCut.reason(.reset):
                found.append(Found(.bodyCut, entry.t, "the conditioner reset a connection on \(interface) (\(reason)) "
                    + "while it was up"))
            case let .connectionClosed(_, interface, reason, _)
                where reason.hasPrefix("close after") || reason == ConnectionCut.reason(.close):
                found.append(Found(.bodyClosed, entry.t, "the conditioner closed a connection on \(interface) "
                    + "(\(reason)) while it was up"))
            default:
                break
            }
        }
        if let pending = changed { found.append(withheld(pending)) }
        return found
    }

    private static func withheld(_ change: (t: UInt64, path: NetworkPath)) -> Found {
        let names = change.path.interfaces.map(\.kind.rawValue).joined(separator: ", ")
        return Found(.pathUpdateWithheld, change.t, "the path changed to [\(names)] at \(Wording.time(change.t)) and the app "
            + "was never told")
    }

    // MARK: The origin

    private static func origin(_ trace: ScenarioTrace) -> [Found] {
        let faults = faultSummaries(trace)
        let licensePaths = Set(trace.downloads.compactMap { $0.licenseKey.map { OriginPath.normalized($0.licenseURL) } })
        var found: [Found] = []
        for request in trace.originRequests {
            let record = request.record
            if let rule = record.faultRuleID {
                let summary = faults[rule] ?? "fault rule \(rule)"
                if summary.contains("captive portal") {
                    found.append(Found(.captivePortal, request.start, "origin \(record.method) \(request.path): a captive "
                        + "portal page (rule \(rule))"))
                } else if (400...599).contains(record.status) {
                    found.append(Found(.originStatusFault, request.start, "origin \(record.method) \(request.path): status "
                        + "\(record.status) (rule \(rule): \(summary))"))
                } else if !record.completed, record.bytesSent > 0, record.status / 100 == 2 {
                    found.append(Found(.bodyClosed, request.t, "origin \(record.method) \(request.path): the body ended "
                        + "after \(record.bytesSent) bytes (rule \(rule): \(summary))"))
                }
            }
            if licensePaths.contains(request.path) || request.path.hasSuffix("/license"),
                let firstByte = record.timeToFirstByteNanoseconds, firstByte >= slowLicense
            {
                // At its first byte: until then the license was on its way (the phase it meets).
                found.append(Found(.slowLicense, request.start &+ firstByte, "origin \(record.method) \(request.path): "
                    + "first byte after " + Wording.seconds(firstByte)))
            }
        }
        return found
    }

    /// Each fault rule's summary: a profile's windows (`originFaultBegan`) and a
    /// scenario's own faults (the harness's note when it opens one).
    static func faultSummaries(_ trace: ScenarioTrace) -> [String: String] {
        var summaries: [String: String] = [:]
        for entry in trace.entries {
            guard case .harness(let event) = entry.event else { continue }
            switch event {
            case let .originFaultBegan(_, _, _, fault, rule): summaries[rule] = fault
            case .note(let text):
                if let (rule, summary) = ScenarioContext.openedOriginFault(fromNote: text) { summaries[rule] = summary }
            default: break
            }
        }
        return summaries
    }

    // MARK: The app's lifecycle and the user

    private static func lifecycle(_ trace: ScenarioTrace) -> [Found] {
        var found: [Found] = []
        for restart in trace.restarts {
            if let launch = restart.launch, let kill = Incident.kill(launch.after) {
                found.append(Found(kill, restart.kill.t, "the harness killed the app (\(restart.kill.reason)) and launched it "
                    + "again told \(launch.after)"))
            }
        }
        for launch in trace.launches.dropFirst() {
            found.append(Found(.relaunch, launch.t, "the harness launched the app again (after \(launch.after))"))
        }
        let asked = trace.entries.compactMap { entry -> UInt64? in
            if case .harness(.preparingForBackground) = entry.event { entry.t } else { nil }
        }
        for t in asked {
            found.append(Found(.prepareForBackground, t, "the harness sent the app prepareForBackground"))
        }
        var since: UInt64 = 0
        for span in trace.backgroundIntervals {
            found.append(Found(.background, span.start, "the harness sent the app to the background"))
            if !asked.contains(where: { $0 >= since && $0 <= span.start }) {
                found.append(Found(.backgroundUnprepared, span.start, "the harness sent the app to the background with no "
                    + "prepareForBackground since \(since == 0 ? "the start" : "the foreground at \(Wording.time(since))")"))
            }
            if let end = span.end {
                found.append(Found(.foreground, end, "the harness brought the app to the foreground"))
                since = end
            }
        }
        return found
    }

    private static func user(_ trace: ScenarioTrace) -> [Found] {
        var found: [Found] = trace.downloads.map { download in
            Found(.request, download.requestedAt, "the user requested \(download.video) (download \(download.token))",
                  download: download.token)
        }
        for action in trace.userActions where action.error == nil {
            let incident: Incident? = switch action.action {
            case "pause": .pause
            case "resume": .resume
            case "cancel": .cancel
            case "delete": .delete
            default: nil
            }
            if let incident {
                found.append(Found(incident, action.t, "the user's \(action.action) of download \(action.download)",
                                   download: action.download))
            }
        }
        for entry in trace.entries {
            if case .harness(.allowsCellularSet(let allowed)) = entry.event {
                found.append(Found(allowed ? .cellularAllowed : .cellularForbidden, entry.t,
                              "the user turned cellular \(allowed ? "on" : "off")"))
            }
        }
        return found
    }
}

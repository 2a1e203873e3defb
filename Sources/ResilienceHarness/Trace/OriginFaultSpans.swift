import BenchCore

/// A window of the profile's `origin:` section, as the harness opened and closed it
/// (`originFaultBegan`, `originFaultEnded`): the origin answered requests whose path
/// matched with a fault (a captive portal's page, an error status…) under `rule`.
public struct OriginFaultSpan: Sendable, Hashable {
    public var span: TraceInterval
    /// The fault rule's id, as the origin's log names it on each request it answered so.
    public var rule: String
    /// The fault in words and the window's label, for evidence.
    public var what: String
}

extension ScenarioTrace {
    /// Every origin fault window the harness opened, in time order (one still open at
    /// the end has no end).
    public var originFaultSpans: [OriginFaultSpan] {
        var open: [String: (t: UInt64, what: String)] = [:]
        var spans: [OriginFaultSpan] = []
        for entry in entries {
            guard case .harness(let event) = entry.event else { continue }
            switch event {
            case let .originFaultBegan(_, label, path, fault, rule):
                open[rule] = (entry.t, "\(fault) on \(path)" + (label.map { " (\($0))" } ?? ""))
            case let .originFaultEnded(_, _, rule):
                guard let began = open.removeValue(forKey: rule) else { continue }
                spans.append(OriginFaultSpan(
                    span: TraceInterval(start: began.t, end: entry.t, startCause: began.what, endCause: nil),
                    rule: rule, what: began.what))
            default:
                continue
            }
        }
        spans += open.map { rule, began in
            OriginFaultSpan(
                span: TraceInterval(start: began.t, end: nil, startCause: began.what, endCause: nil), rule: rule,
                what: began.what)
        }
        return spans.sorted { $0.span.start < $1.span.start }
    }

    /// The origin fault that kept `video` from being fetched from `t` on: a window open at
    /// some time from `t` to `deadline` in which the app asked for the video and the origin
    /// answered every such request (from `t` on) with the fault, its log naming the
    /// window's rule on each: evidence that no engine could have resumed the download
    /// then, however up its interface was. Nil when there is none, or when the app asked
    /// nothing in it (nothing shows the fault reached the video).
    public func faultKeeping(video: String, from t: UInt64, before deadline: UInt64) -> OriginFaultSpan? {
        originFaultSpans.first { window in
            guard window.span.start < deadline, (window.span.end ?? .max) > t else { return false }
            let asked = originRequests(forVideo: video).filter { $0.start >= t && window.span.contains($0.start) }
            return !asked.isEmpty && asked.allSatisfy { $0.record.faultRuleID == window.rule }
        }
    }
}

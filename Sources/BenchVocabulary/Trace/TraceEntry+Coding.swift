import AppProtocol

/// The JSON of a trace line: `t`, the part that saw it (`source`: `conditioner`,
/// `origin`, `license`, `agent` or `harness`), that part's own object (`event`) and, when
/// the run played scenarios concurrently, the scenario whose world saw it (`scenario`), e.g.
/// `{"event":{"type":"interfaceDown","interface":"wifi","mode":"reset"},"source":"conditioner","t":4000000000}`
/// (docs/report-schema.md, "trace.jsonl").
extension TraceEntry: Codable {
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: TraceEvent.Key.self)
        try c.encode(t, forKey: .t)
        try c.encodeIfPresent(scenario, forKey: .scenario)
        try event.encode(into: &c)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: TraceEvent.Key.self)
        self.init(
            t: try c.decode(UInt64.self, forKey: .t), try TraceEvent(from: c),
            scenario: try c.decodeIfPresent(String.self, forKey: .scenario))
    }
}

/// A trace event alone: `{"source":…,"event":{…}}`, the line without its `t`.
extension TraceEvent: Codable {
    /// Which part saw it: the `source` of a line.
    public enum Source: String, Codable, CaseIterable, Sendable {
        case conditioner, origin, license, agent, harness
    }

    fileprivate enum Key: String, CodingKey {
        case t, source, event, scenario
    }

    /// The part that saw it.
    public var source: Source {
        switch self {
        case .conditioner: .conditioner
        case .origin: .origin
        case .license: .license
        case .agent: .agent
        case .harness: .harness
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try encode(into: &c)
    }

    public init(from decoder: any Decoder) throws {
        try self.init(from: try decoder.container(keyedBy: Key.self))
    }

    fileprivate func encode(into c: inout KeyedEncodingContainer<Key>) throws {
        try c.encode(source, forKey: .source)
        switch self {
        case .conditioner(let kind): try c.encode(kind, forKey: .event)
        case .origin(let record): try c.encode(record, forKey: .event)
        case .license(let event): try c.encode(event, forKey: .event)
        case .agent(let event): try c.encode(event, forKey: .event)
        case .harness(let event): try c.encode(event, forKey: .event)
        }
    }

    fileprivate init(from c: KeyedDecodingContainer<Key>) throws {
        switch try c.decode(Source.self, forKey: .source) {
        case .conditioner: self = .conditioner(try c.decode(ConditionerEvent.Kind.self, forKey: .event))
        case .origin: self = .origin(try c.decode(OriginRequestRecord.self, forKey: .event))
        case .license: self = .license(try c.decode(LicenseEvent.self, forKey: .event))
        case .agent: self = .agent(try c.decode(AppEvent.self, forKey: .event))
        case .harness: self = .harness(try c.decode(HarnessEvent.self, forKey: .event))
        }
    }
}

/// A toxic as toxiproxy's API names it: a named impairment of one proxy's stream.
///
/// Deadzone keeps toxiproxy's JSON (`name`, `type`, `stream`, `toxicity`, `attributes`)
/// and maps each toxic onto a stage of the proxy's link (`ToxicLink`).
public struct Toxic: Equatable, Sendable {
    /// Unique within its proxy; toxiproxy's default is `<type>_<stream>`.
    public var name: String
    public var type: ToxicType
    /// `downstream`: bytes from the upstream to the client; `upstream`: the other way.
    public var stream: ToxicStream
    /// The share of connections it applies to. Deadzone's link stages apply to every
    /// connection of a proxy's link or to none: only 1 (applied) and 0 (kept, applied to
    /// none) are accepted.
    public var toxicity: Double
    /// Every attribute of its type, defaults filled in, in the type's order.
    public var attributes: [String: Double]

    public init(name: String, type: ToxicType, stream: ToxicStream, toxicity: Double = 1, attributes: [String: Double] = [:]) {
        self.name = name
        self.type = type
        self.stream = stream
        self.toxicity = toxicity
        var filled = type.defaults
        for (key, value) in attributes { filled[key] = value }
        self.attributes = filled
    }

    /// Whether it acts on the link (toxicity 1).
    public var isActive: Bool { toxicity >= 1 }

    /// An attribute's value (its default when never set).
    public subscript(attribute: String) -> Double { attributes[attribute] ?? type.defaults[attribute] ?? 0 }

    /// toxiproxy's JSON of it.
    public var json: JSONValue {
        let attributes = Dictionary(uniqueKeysWithValues: type.attributeNames.map { ($0, JSONValue.number(self[$0])) })
        return .object([
            "name": .string(name), "type": .string(type.rawValue), "stream": .string(stream.rawValue),
            "toxicity": .number(toxicity), "attributes": .object(attributes),
        ])
    }
}

/// Which way a toxic acts.
public enum ToxicStream: String, CaseIterable, Sendable {
    /// Client → upstream (Deadzone's uplink).
    case upstream
    /// Upstream → client (Deadzone's downlink).
    case downstream
}

/// The toxic types Deadzone answers: toxiproxy's, and `packet_loss` (Deadzone's loss stage).
public enum ToxicType: String, CaseIterable, Sendable {
    case latency, bandwidth, timeout, slicer
    case slowClose = "slow_close"
    case resetPeer = "reset_peer"
    case limitData = "limit_data"
    case packetLoss = "packet_loss"

    /// Its attributes, in the order the API lists them.
    public var attributeNames: [String] {
        switch self {
        case .latency: ["latency", "jitter"]
        case .bandwidth: ["rate"]
        case .slowClose: ["delay"]
        case .timeout, .resetPeer: ["timeout"]
        case .slicer: ["average_size", "size_variation", "delay"]
        case .limitData: ["bytes"]
        case .packetLoss: ["probability"]
        }
    }

    /// The attributes that are whole numbers (milliseconds, KB/s, bytes, microseconds).
    public var integerAttributes: Set<String> { self == .packetLoss ? [] : Set(attributeNames) }

    /// What an attribute means, for error messages and `GET /toxics/types`.
    public func unit(of attribute: String) -> String {
        switch (self, attribute) {
        case (.bandwidth, _): "KB/s (1 KB = 1000 bytes)"
        case (.slicer, "delay"): "microseconds"
        case (.slicer, _), (.limitData, _): "bytes"
        case (.packetLoss, _): "a probability per MTU, 0 to 1"
        default: "milliseconds"
        }
    }

    /// toxiproxy's defaults: every attribute 0 (slicer's `average_size` has none that works,
    /// so it must be given).
    public var defaults: [String: Double] {
        Dictionary(uniqueKeysWithValues: attributeNames.map { ($0, 0) })
    }
}

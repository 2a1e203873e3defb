import Foundation

/// One line the app writes on its stdout: an event or a reply.
public enum AppMessage: Sendable, Hashable {
    /// Something happened in the app at `t`: CLOCK_MONOTONIC nanoseconds of the host,
    /// the clock every part of a run stamps its events with.
    case event(t: UInt64, AppEvent)
    case reply(AppReply)
}

extension AppMessage: Codable {
    static let eventNames = [
        "launched", "stateChanged", "progress", "segmentStored", "licenseAcquired", "licenseRenewed", "licenseFailed",
        "finished", "evicted", "error", "partialSegmentsFound",
    ]

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: WireKey.self)
        let type = try c.field("type", as: String.self)
        switch type {
        case "event": self = .event(t: try c.field("t"), try AppEvent.decodeFields(c))
        case "reply": self = .reply(try Self.reply(c))
        default: throw unknown("type", type, in: c, expected: ["event", "reply"])
        }
    }

    fileprivate static func event(_ c: KeyedDecodingContainer<WireKey>) throws -> AppEvent {
        let name = try c.field("name", as: String.self)
        switch name {
        case "launched": return .launched(pid: try c.field("pid"), after: try c.field("after"))
        case "stateChanged":
            return .stateChanged(download: try c.field("download"), from: try c.field("from"), to: try c.field("to"))
        case "progress":
            return .progress(download: try c.field("download"), selection: try c.field("selection"), fraction: try c.field("fraction"))
        case "segmentStored":
            return .segmentStored(
                download: try c.field("download"), stream: try c.field("stream"), index: try c.field("index"),
                bytes: try c.field("bytes"), path: try c.field("path"))
        case "licenseAcquired": return .licenseAcquired(download: try c.field("download"), expiration: try c.date("expiration"))
        case "licenseRenewed": return .licenseRenewed(download: try c.field("download"), expiration: try c.date("expiration"))
        case "licenseFailed": return .licenseFailed(download: try c.field("download"), reason: try c.field("reason"))
        case "finished": return .finished(download: try c.field("download"), package: try c.field("package"))
        case "evicted": return .evicted(download: try c.field("download"))
        case "error": return .error(download: try c.optionalField("download"), message: try c.field("message"))
        case "partialSegmentsFound": return .partialSegmentsFound(try c.field("segments"))
        default: throw unknown("name", name, in: c, expected: eventNames)
        }
    }

    private static func reply(_ c: KeyedDecodingContainer<WireKey>) throws -> AppReply {
        let id = try c.field("id", as: Int.self)
        let error = try c.optionalField("error", as: String.self)
        let value: AppReplyValue
        if c.has("protocol") {
            let names = try c.optionalField("capabilities", as: [String].self) ?? []
            value = .hello(AppHello(
                protocolVersion: try c.field("protocol"), app: try c.optionalField("app") ?? "unnamed app",
                capabilities: Set(names.compactMap(Capability.init(rawValue:))),
                otherCapabilities: names.filter { Capability(rawValue: $0) == nil }, pid: try c.optionalField("pid")))
        } else if c.has("download") {
            value = .download(try c.field("download"))
        } else if c.has("unfinished") {
            value = .unfinished(try c.field("unfinished"))
        } else if c.has("inspection") {
            value = .inspection(try c.field("inspection"))
        } else {
            value = .done
        }
        return AppReply(id: id, value: value, error: error)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: WireKey.self)
        switch self {
        case .event(let t, let event):
            try c.field("type", "event")
            try c.field("t", t)
            try c.field("name", event.name)
            try event.encodeFields(into: &c)
        case .reply(let reply):
            try c.field("type", "reply")
            try c.field("id", reply.id)
            try c.optionalField("error", reply.error)
            switch reply.value {
            case .done: break
            case .hello(let hello):
                try c.field("protocol", hello.protocolVersion)
                try c.field("app", hello.app)
                try c.field("capabilities", hello.capabilities.map(\.rawValue).sorted() + hello.otherCapabilities)
                try c.optionalField("pid", hello.pid)
            case .download(let download): try c.field("download", download)
            case .unfinished(let unfinished): try c.field("unfinished", unfinished)
            case .inspection(let inspection): try c.field("inspection", inspection)
            }
        }
    }

    fileprivate static func encodeFields(of event: AppEvent, into c: inout KeyedEncodingContainer<WireKey>) throws {
        switch event {
        case let .launched(pid, after):
            try c.field("pid", pid)
            try c.field("after", after)
        case let .stateChanged(download, from, to):
            try c.field("download", download)
            try c.field("from", from)
            try c.field("to", to)
        case let .progress(download, selection, fraction):
            try c.field("download", download)
            try c.field("selection", selection)
            try c.field("fraction", fraction)
        case let .segmentStored(download, stream, index, bytes, path):
            try c.field("download", download)
            try c.field("stream", stream)
            try c.field("index", index)
            try c.field("bytes", bytes)
            try c.field("path", path)
        case let .licenseAcquired(download, expiration), let .licenseRenewed(download, expiration):
            try c.field("download", download)
            try c.date("expiration", expiration)
        case let .licenseFailed(download, reason):
            try c.field("download", download)
            try c.field("reason", reason)
        case let .finished(download, package):
            try c.field("download", download)
            try c.field("package", package)
        case .evicted(let download):
            try c.field("download", download)
        case let .error(download, message):
            try c.optionalField("download", download)
            try c.field("message", message)
        case .partialSegmentsFound(let segments):
            try c.field("segments", segments)
        }
    }
}

/// An event alone, as the harness keeps it in a run's trace: `{"name":…,…}`, the fields
/// of its line without `type` and `t`.
extension AppEvent: Codable {
    public init(from decoder: any Decoder) throws {
        self = try Self.decodeFields(try decoder.container(keyedBy: WireKey.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: WireKey.self)
        try c.field("name", name)
        try encodeFields(into: &c)
    }

    static func decodeFields(_ c: KeyedDecodingContainer<WireKey>) throws -> AppEvent {
        try AppMessage.event(c)
    }

    func encodeFields(into c: inout KeyedEncodingContainer<WireKey>) throws {
        try AppMessage.encodeFields(of: self, into: &c)
    }
}

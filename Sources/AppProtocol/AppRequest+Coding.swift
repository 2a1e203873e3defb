import BenchCore

extension AppRequest: Codable {
    static let commandNames = [
        "hello", "setPath", "setForeground", "prepareForBackground", "setAllowsCellular", "request", "pause", "resume",
        "cancel", "delete", "inspect", "shutdown",
    ]

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: WireKey.self)
        let type = try c.field("type", as: String.self)
        guard type == "command" else { throw unknown("type", type, in: c, expected: ["command"]) }
        id = try c.field("id")
        let name = try c.field("name", as: String.self)
        switch name {
        case "hello":
            command = .hello(
                protocol: try c.field("protocol"), storage: try c.field("storage"), after: try c.field("after"),
                caFile: try c.optionalField("caFile"))
        case "setPath": command = .setPath(NetworkPath(interfaces: try c.field("interfaces")))
        case "setForeground": command = .setForeground(try c.field("foreground"))
        case "prepareForBackground": command = .prepareForBackground
        case "setAllowsCellular": command = .setAllowsCellular(try c.field("allowed"))
        case "request":
            command = .request(AppDownloadRequest(
                video: try c.field("video"), catalogURL: try c.field("catalogURL"),
                allowsCellular: try c.optionalField("allowsCellular"), rentalSeconds: try c.optionalField("rentalSeconds"),
                audioLanguages: try c.optionalField("audioLanguages") ?? [],
                subtitleLanguages: try c.optionalField("subtitleLanguages") ?? []))
        case "pause": command = .pause(download: try c.field("download"))
        case "resume": command = .resume(download: try c.field("download"))
        case "cancel": command = .cancel(download: try c.field("download"))
        case "delete": command = .delete(download: try c.field("download"))
        case "inspect": command = .inspect(download: try c.field("download"))
        case "shutdown": command = .shutdown
        default: throw unknown("name", name, in: c, expected: Self.commandNames)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: WireKey.self)
        try c.field("type", "command")
        try c.field("id", id)
        try c.field("name", command.name)
        switch command {
        case let .hello(version, storage, after, caFile):
            try c.field("protocol", version)
            try c.field("storage", storage)
            try c.field("after", after)
            try c.optionalField("caFile", caFile)
        case .setPath(let path): try c.field("interfaces", path.interfaces.map(WirePathInterface.init))
        case .setForeground(let foreground): try c.field("foreground", foreground)
        case .setAllowsCellular(let allowed): try c.field("allowed", allowed)
        case .request(let request):
            try c.field("video", request.video)
            try c.field("catalogURL", request.catalogURL)
            try c.optionalField("allowsCellular", request.allowsCellular)
            try c.optionalField("rentalSeconds", request.rentalSeconds)
            try c.field("audioLanguages", request.audioLanguages)
            try c.field("subtitleLanguages", request.subtitleLanguages)
        case .pause(let download), .resume(let download), .cancel(let download), .delete(let download),
            .inspect(let download):
            try c.field("download", download)
        case .prepareForBackground, .shutdown:
            break
        }
    }
}

/// An interface of `setPath` as the wire carries it: `PathInterface` and its `proxy`, the
/// same listener as `endpoint` as an HTTP proxy URL (`http://127.0.0.1:40123`), for an
/// app that sets its HTTP client's proxy instead of sending to `endpoint` (the listener
/// forwards the absolute-form requests a proxy's client writes to the origin, which
/// answers them as their path).
struct WirePathInterface: Encodable {
    var kind: InterfaceKind
    var endpoint: String
    var proxy: String
    var isExpensive: Bool
    var isConstrained: Bool

    init(_ interface: PathInterface) {
        kind = interface.kind
        endpoint = interface.endpoint
        proxy = "http://" + interface.endpoint
        isExpensive = interface.isExpensive
        isConstrained = interface.isConstrained
    }
}

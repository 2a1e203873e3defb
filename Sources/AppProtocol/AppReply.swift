import Foundation

/// The app's answer to one request: `{"type":"reply","id":…}` plus what it carries, or
/// `"error"` with the app's refusal in words.
public struct AppReply: Sendable, Hashable {
    /// The id of the request it answers.
    public var id: Int
    public var value: AppReplyValue
    /// Why the command was refused, when it was.
    public var error: String?

    /// A reply.
    public init(id: Int, value: AppReplyValue = .done, error: String? = nil) {
        self.id = id
        self.value = value
        self.error = error
    }
}

/// What a reply carries, by the command it answers.
public enum AppReplyValue: Sendable, Hashable {
    /// Any command with nothing to answer.
    case done
    /// `hello`.
    case hello(AppHello)
    /// `request`: the new download's id.
    case download(String)
    /// `prepareForBackground`: download id → why its license is still missing.
    case unfinished([String: String])
    /// `inspect`.
    case inspection(AppInspection)
}

/// The app's answer to `hello`: who it is and what it can do.
public struct AppHello: Sendable, Hashable {
    /// The protocol version the app speaks.
    public var protocolVersion: Int
    /// The app's name and version, for reports (e.g. `deadzone 0.5.0`).
    public var app: String
    /// What the app can do; capabilities this harness does not know are kept in `other`.
    public var capabilities: Set<Capability>
    public var otherCapabilities: [String]
    /// The app's process id on the harness's machine, when it says (optional): the
    /// harness may SIGKILL that process on a crash once it has checked that the process
    /// holds the app's connection (an app connected over a socket, not started by it).
    public var pid: Int32?

    /// A hello.
    public init(protocolVersion: Int = AppProtocol.version, app: String, capabilities: Set<Capability>,
                otherCapabilities: [String] = [], pid: Int32? = nil) {
        self.protocolVersion = protocolVersion
        self.app = app
        self.capabilities = capabilities
        self.otherCapabilities = otherCapabilities
        self.pid = pid
    }
}

/// What the app says of one download when asked (`inspect`). Claims, every one: the
/// harness reads the package at `package` itself.
public struct AppInspection: Sendable, Hashable, Codable {
    public var download: String
    /// The app still knows the download.
    public var known: Bool
    public var state: AppState?
    /// Whether the app would play the video offline now, and why not.
    public var playable: Bool
    public var unplayableReason: String?
    /// When its license stops working (nil: it holds none; a purchase is far in the future).
    public var licenseExpiration: Date?
    /// The absolute path of the offline package's master playlist, what a player opens;
    /// nil when there is none.
    public var package: String?
    /// Files under the download's package directory (0 when it is gone).
    public var files: Int?
    /// SHA-256 of each stored segment file, by the origin path it came from.
    public var segmentHashes: [String: String]?
    /// Every URI of the package's playlists names a file it holds.
    public var packageComplete: Bool?

    /// An inspection.
    public init(
        download: String, known: Bool, state: AppState?, playable: Bool, unplayableReason: String? = nil,
        licenseExpiration: Date? = nil, package: String? = nil, files: Int? = nil,
        segmentHashes: [String: String]? = nil, packageComplete: Bool? = nil
    ) {
        self.download = download
        self.known = known
        self.state = state
        self.playable = playable
        self.unplayableReason = unplayableReason
        self.licenseExpiration = licenseExpiration
        self.package = package
        self.files = files
        self.segmentHashes = segmentHashes
        self.packageComplete = packageComplete
    }

    private enum CodingKeys: String, CodingKey {
        case download, known, state, playable, unplayableReason, licenseExpiration, package, files, segmentHashes,
            packageComplete
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        download = try c.decode(String.self, forKey: .download)
        known = try c.decode(Bool.self, forKey: .known)
        state = try c.decodeIfPresent(AppState.self, forKey: .state)
        playable = try c.decode(Bool.self, forKey: .playable)
        unplayableReason = try c.decodeIfPresent(String.self, forKey: .unplayableReason)
        licenseExpiration = try c.decodeIfPresent(WireDate.self, forKey: .licenseExpiration)?.date
        package = try c.decodeIfPresent(String.self, forKey: .package)
        files = try c.decodeIfPresent(Int.self, forKey: .files)
        segmentHashes = try c.decodeIfPresent([String: String].self, forKey: .segmentHashes)
        packageComplete = try c.decodeIfPresent(Bool.self, forKey: .packageComplete)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(download, forKey: .download)
        try c.encode(known, forKey: .known)
        try c.encodeIfPresent(state, forKey: .state)
        try c.encode(playable, forKey: .playable)
        try c.encodeIfPresent(unplayableReason, forKey: .unplayableReason)
        try c.encodeIfPresent(licenseExpiration.map(WireDate.init), forKey: .licenseExpiration)
        try c.encodeIfPresent(package, forKey: .package)
        try c.encodeIfPresent(files, forKey: .files)
        try c.encodeIfPresent(segmentHashes, forKey: .segmentHashes)
        try c.encodeIfPresent(packageComplete, forKey: .packageComplete)
    }
}

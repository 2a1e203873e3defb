import BenchCore
import Foundation
import OfflineDownloads

/// One command from the harness to the agent process (`bench agent`): one JSON line
/// on the agent's stdin. The agent answers every request with one `AgentMessage.reply`
/// carrying the same `id`, after the command took effect in its engine.
public struct AgentRequest: Sendable, Equatable, Codable {
    /// Chosen by the harness, unique within one agent process.
    public var id: Int
    public var command: AgentCommand

    /// Creates a request.
    public init(id: Int, command: AgentCommand) {
        self.id = id
        self.command = command
    }
}

/// What the harness, playing the operating system and the user, tells the app.
public enum AgentCommand: Sendable, Equatable, Codable {
    /// The network path changed: the interfaces now up, with their endpoints (the
    /// conditioner's listeners). The agent feeds it to its engine's path provider.
    case setPath(NetworkPath)
    /// The app moved to the foreground (`true`) or the background.
    case setForeground(Bool)
    /// The app is about to go to the background: finish pending license exchanges.
    /// Replies `.unfinished` with the downloads that still have none.
    case prepareForBackground
    /// The user changed the cellular setting (applies to downloads requested after it).
    case setAllowsCellular(Bool)
    /// The user asked for a download. Replies `.token`.
    case request(AgentDownloadRequest)
    /// User actions on a download, by token.
    case pause(String)
    case resume(String)
    case cancel(String)
    case delete(String)
    /// Report what is stored for a download: emits `AgentEvent.inspected` and replies
    /// `.inspection` with the same value.
    case inspect(String)
    /// Shut the engine down cleanly and exit 0 (after replying).
    case shutdown
}

/// A download the user asked for, with what the app knows of the video.
public struct AgentDownloadRequest: Sendable, Hashable, Codable {
    /// The catalog entry (`GET /videos/{id}`), and the URL it came from: relative URLs
    /// in it resolve against that URL.
    public var document: VideoDocument
    public var catalogURL: String
    /// nil: the engine's current setting (`setAllowsCellular`).
    public var allowsCellular: Bool?
    /// A rental of this many seconds; nil: a purchase.
    public var rentalDurationSeconds: Int?
    /// Alternate renditions by language; empty: the default ones.
    public var audioLanguages: [String]
    public var subtitleLanguages: [String]

    /// Creates a request.
    public init(
        document: VideoDocument, catalogURL: String, allowsCellular: Bool? = nil, rentalDurationSeconds: Int? = nil,
        audioLanguages: [String] = [], subtitleLanguages: [String] = []
    ) {
        self.document = document
        self.catalogURL = catalogURL
        self.allowsCellular = allowsCellular
        self.rentalDurationSeconds = rentalDurationSeconds
        self.audioLanguages = audioLanguages
        self.subtitleLanguages = subtitleLanguages
    }
}

/// One line the agent writes on its stdout.
public enum AgentMessage: Sendable, Hashable, Codable {
    /// Something happened in the app, at `t` (CLOCK_MONOTONIC nanoseconds of the host,
    /// the same clock the harness stamps the trace with).
    case event(t: UInt64, AgentEvent)
    /// The answer to request `id`: a value, or the engine's error in words.
    case reply(id: Int, value: AgentReplyValue, error: String?)
}

/// What a reply carries.
public enum AgentReplyValue: Sendable, Hashable, Codable {
    case done
    /// The token of a requested download.
    case token(String)
    /// `prepareForBackground`: token → why its license is still missing.
    case unfinished([String: String])
    case inspection(AgentInspection)
}

/// The JSON-lines framing both sides use: one value per line, no pretty printing.
public enum AgentWire {
    /// `value` as one line of JSON, newline included.
    public static func line(_ value: some Encodable) throws -> Data {
        var data = try encoder.encode(value)
        data.append(0x0A)
        return data
    }

    /// Decodes one line (without its newline).
    public static func decode<Value: Decodable>(_ type: Value.Type, from line: some StringProtocol) throws -> Value {
        try JSONDecoder().decode(type, from: Data(line.utf8))
    }

    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}

/// How the agent deliberately misbehaves, to show that the harness catches it. Each
/// breaks one property of DESIGN.md §5 (the raw value is `bench agent --misbehave`).
public enum AgentMisbehavior: String, Sendable, Hashable, Codable, CaseIterable {
    /// Hands cellular to the engine as if it were WiFi, so downloads not allowed
    /// cellular use it (breaks `cellular-policy`).
    case ignoreCellularPolicy = "ignore-cellular-policy"
    /// Reports a download that the engine suspends for the network as failed, and
    /// stops it, as an app that treats a lost network as an error does (breaks
    /// `auto-suspend-on-disconnect`).
    case failOnOutage = "fail-on-outage"
    /// After a crash, throws away every stored segment so the engine fetches the whole
    /// video again (breaks `crash-recovery`).
    case refetchAfterCrash = "refetch-after-crash"
    /// After a crash (or a kill for memory), throws away the `.part` file of every
    /// partial segment, so the engine fetches each from byte 0 instead of resuming it
    /// with Range (breaks `crash-recovery`).
    case restartPartialSegments = "restart-partial-segments"
    /// Answers `prepareForBackground` at once without finishing license exchanges
    /// (breaks `license-before-background`).
    case backgroundBeforeLicense = "background-before-license"

    /// The property each misbehaviour must make fail.
    public var brokenProperty: String {
        switch self {
        case .ignoreCellularPolicy: "cellular-policy"
        case .failOnOutage: "auto-suspend-on-disconnect"
        case .refetchAfterCrash, .restartPartialSegments: "crash-recovery"
        case .backgroundBeforeLicense: "license-before-background"
        }
    }
}

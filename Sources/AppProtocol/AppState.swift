/// Why a suspended download is not transferring, in the words of the SDK guides.
public enum SuspensionCause: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// The user paused it.
    case user
    /// No interface it may use is up, or its transfer stalled.
    case network
    /// Only cellular is up, and it may not use cellular.
    case cellularNotAllowed
    /// Free space is below the app's cushion.
    case storage
    /// It needs a license, which is exchanged only in the foreground.
    case awaitingForeground

    /// The raw value, e.g. `cellularNotAllowed`.
    public var description: String { rawValue }
}

/// The state of one download as an app reports it: the states of the offline-download
/// guides (Brightcove's `BCOVOfflineVideoStatus`, the DownloadContentManager table).
///
/// On the wire a state is a string: `notDownloaded`, `requested`, `licensePreloaded`,
/// `downloading`, `suspended(<cause>)` (e.g. `suspended(network)`), `downloaded`,
/// `canceling`, `failed`.
public enum AppState: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case notDownloaded
    case requested
    case licensePreloaded
    case downloading
    case suspended(SuspensionCause)
    case downloaded
    case canceling
    case failed

    /// Every state, `suspended` once per cause.
    public static let allCases: [AppState] = [.notDownloaded, .requested, .licensePreloaded, .downloading]
        + SuspensionCause.allCases.map { .suspended($0) } + [.downloaded, .canceling, .failed]

    /// The wire form, e.g. `suspended(network)`.
    public var description: String {
        switch self {
        case .notDownloaded: "notDownloaded"
        case .requested: "requested"
        case .licensePreloaded: "licensePreloaded"
        case .downloading: "downloading"
        case .suspended(let cause): "suspended(\(cause.rawValue))"
        case .downloaded: "downloaded"
        case .canceling: "canceling"
        case .failed: "failed"
        }
    }

    /// Parses the wire form; nil for anything else.
    public init?(_ text: String) {
        guard let state = Self.allCases.first(where: { $0.description == text }) else { return nil }
        self = state
    }

    /// The cause, when suspended.
    public var suspensionCause: SuspensionCause? {
        if case .suspended(let cause) = self { return cause }
        return nil
    }
}

extension AppState: Codable {
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let state = AppState(text) else {
            throw DecodingError.dataCorrupted(.init(
                codingPath: decoder.codingPath,
                debugDescription: "expected a download state such as downloading or suspended(network), got \(text)"))
        }
        self = state
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

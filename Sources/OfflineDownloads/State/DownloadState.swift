/// Why a download in the `suspended` state is not transferring.
///
/// Every reason is temporary: a suspended download resumes by itself when its
/// reasons clear (or, for `.user`, when the user resumes it). A suspension is never
/// a failure. When several reasons hold at once, the state shows the one with the
/// highest priority; see `DownloadStateMachine` for the order and why.
public enum SuspensionReason: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// The user paused the download.
    case user
    /// No usable interface is up, or the transfer stalled (no bytes for the stall
    /// timeout) even though the path said it was satisfied.
    case network
    /// Only cellular is up and this download may not use it.
    case cellularNotAllowed
    /// Free space is below the configured cushion.
    case storage
    /// The download needs a license exchange, which only happens in the foreground,
    /// and the app is in the background.
    case awaitingForeground

    /// The raw value, e.g. `cellularNotAllowed`.
    public var description: String { rawValue }
}

/// The state of one download, as the engine reports it in events and `status(token)`.
///
/// The transitions between these states are `DownloadStateMachine`'s table. The
/// stable string form (`description`, also the `Codable` form) is what logs, JSON
/// reports and the index use: `notDownloaded`, `requested`, `licensePreloaded`,
/// `downloading`, `suspended(network)`, `downloaded`, `canceling`, `failed`.
public enum DownloadState: Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// Nothing is stored for this token (also the state after a cancel or delete).
    case notDownloaded
    /// The download was requested and waits for a slot in the manager's queue.
    case requested
    /// A license was preloaded; no media has been requested yet.
    case licensePreloaded
    /// Media is being transferred.
    case downloading
    /// The transfer is stopped for `SuspensionReason`; it resumes when that clears.
    case suspended(SuspensionReason)
    /// Every segment is stored: the video plays offline.
    case downloaded
    /// The transfer is stopped and its files are being removed.
    case canceling
    /// The download cannot go on; only deleting it is possible.
    case failed

    /// Every state, with `suspended` once per reason: for tables and tests.
    public static let allCases: [DownloadState] =
        [.notDownloaded, .requested, .licensePreloaded, .downloading]
        + SuspensionReason.allCases.map { .suspended($0) }
        + [.downloaded, .canceling, .failed]

    /// The stable string form, e.g. `downloading` or `suspended(storage)`.
    public var description: String {
        switch self {
        case .notDownloaded: "notDownloaded"
        case .requested: "requested"
        case .licensePreloaded: "licensePreloaded"
        case .downloading: "downloading"
        case .suspended(let reason): "suspended(\(reason.rawValue))"
        case .downloaded: "downloaded"
        case .canceling: "canceling"
        case .failed: "failed"
        }
    }

    /// Parses the form `description` writes; nil for anything else.
    public init?(_ text: String) {
        guard let state = Self.allCases.first(where: { $0.description == text }) else { return nil }
        self = state
    }

    /// The suspension reason, or nil when the state is not `suspended`.
    public var suspensionReason: SuspensionReason? {
        if case .suspended(let reason) = self { return reason }
        return nil
    }

    /// Decodes the stable string form.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let state = DownloadState(text) else {
            throw DecodingError.dataCorrupted(.init(
                codingPath: decoder.codingPath,
                debugDescription: "expected a download state such as downloading or suspended(network), got \(text)"))
        }
        self = state
    }

    /// Encodes the stable string form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// What an app says it can do, in its answer to `hello`. The harness plays a scenario
/// only against an app that declares every capability the scenario needs, and reports
/// the others `unsupported`, never passed.
public enum Capability: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// Downloads protected videos: license exchange, `prepareForBackground`.
    case licenses
    /// Follows the user's cellular setting (`setAllowsCellular`, `allowsCellular`).
    case cellularSetting
    /// Pauses and resumes downloads.
    case pause
    /// Cancels downloads in flight and deletes stored ones.
    case cancelAndDelete
    /// Survives a crash: resumes its downloads after `relaunch` told `crash` or
    /// `memoryPressure`.
    case crashRecovery
    /// Fails the downloads in flight at once after a force-quit or a reboot while suspended.
    case relaunchAfterForceQuit
    /// Rentals: a license with an expiry, refused playback once expired.
    case rentals
    /// Answers `inspect` with whether the video plays offline and where its package is.
    case inspect

    /// The raw value, e.g. `cellularSetting`.
    public var description: String { rawValue }
}

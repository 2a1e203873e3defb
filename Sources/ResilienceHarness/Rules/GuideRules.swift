import AppProtocol

/// What the SDK guides say happens to downloads across a relaunch, written here from
/// the guides (DESIGN.md §4, Brightcove's "Downloading Videos in the Background" and
/// the iOS background-session rules), not taken from any engine: the harness judges
/// every app by these.
///
/// | how the last process ended | downloads in flight (downloading or suspended) |
/// |---|---|
/// | clean shutdown | resume |
/// | crash | resume |
/// | killed for memory pressure | resume |
/// | the user force-quit the app | reported `failed` at once after the relaunch |
/// | reboot while the app was suspended in the background | reported `failed` at once after the relaunch |
extension RelaunchKind {
    /// Whether an app relaunched after this must report its downloads in flight failed.
    public var failsDownloadsInFlight: Bool {
        switch self {
        case .clean, .crash, .memoryPressure: false
        case .userForceQuit, .rebootWhileSuspended: true
        }
    }
}

/// How the previous process of the app ended, as the harness tells the app when it
/// launches it again (`hello`): what an app learns on a phone from its own clean-exit
/// marker and the system's exit reason.
public enum RelaunchKind: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// The first launch, or the previous process shut down in an orderly way.
    case clean
    /// The process crashed (the harness sent SIGKILL).
    case crash
    /// The system ended the process for memory.
    case memoryPressure
    /// The user swiped the app away in the app switcher.
    case userForceQuit
    /// The device rebooted while the app was suspended in the background.
    case rebootWhileSuspended

    /// The raw value, e.g. `userForceQuit`.
    public var description: String { rawValue }
}

/// The app protocol: how the harness (playing the operating system and the user) and
/// an app under test talk, over the app's stdin and stdout, one JSON object per line.
///
/// This target is the whole vocabulary of that conversation and nothing else: no
/// engine type is on the wire, so any app, in any language, can speak it, and the
/// harness judges Deadzone's own engine through the same words as any other.
///
/// The conversation:
/// 1. The harness starts the app and sends `hello` (protocol version, the storage
///    directory it gives the app, how the previous process ended). The app answers
///    with its own version, name and capabilities (`AppHello`), then reports
///    `launched` and whatever it found on disk.
/// 2. The harness sends commands (`AppCommand`), each with an `id`; the app answers
///    each with one reply carrying the same `id` once the command took effect.
/// 3. The app reports events (`AppEvent`) whenever they happen, each stamped with the
///    host's CLOCK_MONOTONIC in nanoseconds (the clock of every part of a run).
///
/// Everything an app says is a claim: the harness checks it against what the link
/// conditioner, the origin, the license server and the disk saw.
public enum AppProtocol {
    /// The version this target speaks. A `hello` with another version is refused.
    public static let version = 1
}

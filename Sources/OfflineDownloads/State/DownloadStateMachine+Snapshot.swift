extension DownloadStateMachine {
    /// What the index keeps of a download's state machine: everything it must
    /// remember across launches. The conditions are not kept; they are observed anew.
    ///
    /// Written by the driver for every `.persist` action; read back at start-up and
    /// given to `restored(_:after:)`.
    public struct Snapshot: Sendable, Hashable, Codable, CustomStringConvertible {
        /// The state reported last.
        public var state: DownloadState
        /// The user paused the download (also while it was queued).
        public var isPausedByUser: Bool
        /// A license must still be exchanged.
        public var needsLicense: Bool
        /// The cause, when `state` is `failed`.
        public var failure: DownloadFailure?

        /// Creates a snapshot.
        public init(
            state: DownloadState, isPausedByUser: Bool = false, needsLicense: Bool = false,
            failure: DownloadFailure? = nil
        ) {
            self.state = state
            self.isPausedByUser = isPausedByUser
            self.needsLicense = needsLicense
            self.failure = failure
        }

        /// `downloading`, `requested, paused`, `suspended(network), needs license`.
        public var description: String {
            var parts = [state.description]
            if isPausedByUser, state != .suspended(.user) { parts.append("paused") }
            if needsLicense { parts.append("needs license") }
            if let failure { parts.append("failure: \(failure)") }
            return parts.joined(separator: ", ")
        }
    }
}

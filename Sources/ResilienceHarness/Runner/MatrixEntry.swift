import BenchCore

/// One engine of a matrix under one profile, ready to run: its name, the command it
/// runs as (already resolved: a builtin's `bench agent …` or the user's command line),
/// and the profile.
public struct MatrixEntry: Sendable {
    public var agent: String
    public var app: AppCommandLine
    public var profile: Profile
    public var profilePath: String

    public init(agent: String, app: AppCommandLine, profile: Profile, profilePath: String) {
        self.agent = agent
        self.app = app
        self.profile = profile
        self.profilePath = profilePath
    }

    /// The run's directory inside the matrix's: `<agent>--<profile>`, file-name safe.
    public var directoryName: String {
        let safe = { (text: String) in
            String(text.map { $0.isLetter || $0.isNumber || "._-".contains($0) ? $0 : "-" })
        }
        return safe(agent) + "--" + safe(profile.name)
    }
}

import ArgumentParser

/// The options `bench`, `bench gate`, `bench matrix` and `bench chaos` share for the
/// recorded streams of `--catalog`: fetched live from the host they were recorded from
/// (`--intercept`, `--upstream-ca`), or played in place of a fixture video (`--video`).
struct RecordingOptions: ParsableArguments {
    @Option(name: .customLong("intercept"), help: ArgumentHelp(
        "A host (HOST or HOST:PORT) whose recorded streams (--catalog) the app fetches live from it, seen through the "
            + "intercepting proxy (repeatable; needs --https; docs/your-streams.md).", valueName: "HOST"))
    var intercept: [String] = []

    @Option(name: .customLong("upstream-ca"), help: "PEM file of CAs trusted for intercepted hosts, beside the system's.")
    var upstreamCA: String?

    @Option(name: .customLong("video"), help: ArgumentHelp(
        "FIXTURE=RECORDED: the scenarios' requests of the fixture video FIXTURE download the recorded stream RECORDED "
            + "(of --catalog) instead, their path globs carried over to its files (repeatable; docs/your-streams.md).",
        valueName: "FIXTURE=RECORDED"))
    var videos: [String] = []

    /// Gives `suite` these options.
    func apply(to suite: inout SuiteRun) {
        (suite.intercept, suite.upstreamCA, suite.videos) = (intercept, upstreamCA, videos)
    }

    /// What the shards of one whole must share of these options, added to `fields`.
    func identity(into fields: inout [String: String]) {
        if !intercept.isEmpty { fields["intercept"] = intercept.sorted().joined(separator: " ") }
        if !videos.isEmpty { fields["videos"] = videos.sorted().joined(separator: " ") }
    }

    /// The options again, as a command line takes them (for the commands a campaign prints).
    var arguments: [String] {
        intercept.flatMap { ["--intercept", $0] } + (upstreamCA.map { ["--upstream-ca", $0] } ?? [])
            + videos.flatMap { ["--video", $0] }
    }
}

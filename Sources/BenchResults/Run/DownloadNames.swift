/// A download the harness requested in a scenario: the app's token and the catalog video.
public struct DownloadName: Sendable, Hashable, Codable {
    public var token: String
    public var video: String

    public init(token: String, video: String) {
        self.token = token
        self.video = video
    }

    /// How reports name it, as the timeline's lanes do: the video, then the token's first
    /// eight characters (`clear · 2926520a`).
    public var label: String {
        "\(video) · \(token.count > 8 ? String(token.prefix(8)) : token)"
    }
}

/// Names a scenario's downloads in sentences for people: every token in a verdict's
/// summary or evidence, a precondition's detail or an error becomes its label
/// (`download 2926520a-2390-41d6-bc28-41edf89f0edd downloading → failed` reads
/// `download clear · 2926520a downloading → failed`). The console, the HTML page and
/// JUnit show the named text; `report.json` keeps the tokens whole.
public struct DownloadNames: Sendable {
    /// Longest tokens first, so that a token that begins another is never cut from it.
    private let names: [DownloadName]

    public init(_ downloads: [DownloadName]) {
        names = downloads.filter { !$0.token.isEmpty }.sorted { $0.token.count > $1.token.count }
    }

    /// `text` with each token replaced by its label, in one pass (a label is never read
    /// again for a token, and at each place the longest token wins).
    public func named(_ text: String) -> String {
        let present = names.filter { text.contains($0.token) }
        guard !present.isEmpty else { return text }
        var result = ""
        var rest = Substring(text)
        while !rest.isEmpty {
            if let name = present.first(where: { rest.hasPrefix($0.token) }) {
                result += name.label
                rest = rest.dropFirst(name.token.count)
            } else {
                result.append(rest.removeFirst())
            }
        }
        return result
    }
}

extension ScenarioResult {
    /// This result as people read it: the same, with every token of its downloads in
    /// summaries, evidence, precondition details and the error replaced by its label.
    public var namingDownloads: ScenarioResult {
        guard let downloads, !downloads.isEmpty else { return self }
        let names = DownloadNames(downloads)
        var named = self
        named.verdicts = verdicts.map { verdict in
            var verdict = verdict
            verdict.summary = names.named(verdict.summary)
            verdict.evidence = verdict.evidence.map { evidence in
                var evidence = evidence
                evidence.text = names.named(evidence.text)
                return evidence
            }
            return verdict
        }
        named.preconditions = preconditions.map { precondition in
            var precondition = precondition
            precondition.detail = names.named(precondition.detail)
            return precondition
        }
        named.error = error.map(names.named)
        return named
    }
}

extension RunReport {
    /// Every scenario `namingDownloads`.
    public var namingDownloads: RunReport {
        var named = self
        named.scenarios = scenarios.map(\.namingDownloads)
        return named
    }
}

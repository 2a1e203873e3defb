import BenchCore
import FixtureOrigin
import Foundation

/// `--video FIXTURE=RECORDED`: the scenarios' own steps played on a recorded stream in
/// place of a fixture video. A `request` or `request-spare` of the fixture asks for the
/// recording instead (the download keeps the fixture's name, so later steps still find
/// it), and a path glob of an `origin-fault` or `wait-for-request` step that names the
/// fixture's files is rewritten to the recording's files of the same kind
/// (`/videos/clear/**` to all of them, `…/**/*.ts` to its media segments, `…/**/*.m3u8`
/// to its playlists, `…/master.m3u8` to its master, `…/key` to its keys); a glob over
/// every video (`/videos/**/*.ts`) also covers the recordings. A glob that names a
/// fixture's files in any other way cannot be carried over and is refused, naming the
/// step.
///
/// A recording may stand in for one fixture only (two downloads of one stream share its
/// paths, so the origin's log could not tell them apart), and only for a fixture of its
/// kind: a protected fixture (`protected`, `multi-drm`…) for a recording with `skd://`
/// keys, `http-key` for an AES-128 one, any other for a clear or AES-128 one; never
/// `online-only`, which is not offline-enabled. Two recordings that stand for two fixtures
/// share no media file's bytes (the harness finds segments, init sections, keys and
/// subtitles on a disk by content: two downloads of the same bytes could not be told
/// apart). A value: made once per run.
public struct VideoSubstitution: Sendable, Hashable {
    /// One mapping.
    public struct Substitute: Sendable, Hashable {
        /// The fixture video's id.
        public var fixture: String
        /// The recorded stream's id.
        public var recorded: String
    }

    /// The mappings, in the order given.
    public private(set) var substitutes: [Substitute] = []
    /// The recorded streams of the run: a scenario may not download two that share a
    /// media file's bytes (`RecordedContent.sharedMediaFile`), directly or through a
    /// mapping. Those it fetches live from their own origin (`--intercept`,
    /// `RecordedContent.isLive`) the fixture origin cannot fault (the intercepting proxy's
    /// log does see their requests): an `origin-fault` whose glob names the fixture one of
    /// them stands for is refused; one over every video covers the others only.
    private var recorded = RecordedContent()

    /// No substitution.
    public init() {}

    /// The mappings `texts` (each `FIXTURE=RECORDED`) over the streams of `recorded`.
    /// - Throws: `VideoSubstitutionError` for a malformed text, an unknown fixture or
    ///   recording, a fixture given twice, a recording given for two fixtures, or a
    ///   recording of another kind than the fixture.
    public init(parsing texts: [String], recorded: RecordedContent) throws(VideoSubstitutionError) {
        let fixtures = Dictionary(ScenarioNetwork.videos(CatalogConfiguration()).map { ($0.id, $0) }) { a, _ in a }
        self.recorded = recorded
        for text in texts {
            let parts = text.split(separator: "=", maxSplits: 1).map { String($0).trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw VideoSubstitutionError(text, "expected FIXTURE=RECORDED, e.g. --video clear=mine (a fixture video's id, "
                    + "then the id of a stream --catalog serves)")
            }
            let (fixtureID, recordedID) = (parts[0], parts[1])
            guard let fixture = fixtures[fixtureID] else {
                throw VideoSubstitutionError(text, "\(fixtureID) is not a fixture video; the fixtures are "
                    + fixtures.keys.sorted().joined(separator: ", "))
            }
            guard let stream = recorded.stream(recordedID) else {
                let known = recorded.streams.map(\.video.id)
                throw VideoSubstitutionError(text, "no stream of --catalog is named \(recordedID)"
                    + (known.isEmpty ? " (give the catalog it was recorded into with --catalog DIR)"
                        : "; the recorded streams are \(known.joined(separator: ", "))"))
            }
            if let earlier = substitutes.first(where: { $0.fixture == fixtureID }) {
                throw VideoSubstitutionError(text, "\(fixtureID) is already played by \(earlier.recorded); give it once")
            }
            if let earlier = substitutes.first(where: { $0.recorded == recordedID }) {
                throw VideoSubstitutionError(text, "\(recordedID) already stands for \(earlier.fixture): one stream can stand "
                    + "for one fixture (two downloads of it would share its paths, and the origin's log could not tell them "
                    + "apart); record another stream for \(fixtureID)")
            }
            if let refusal = Self.kindRefusal(fixture: fixture, stream: stream.video) {
                throw VideoSubstitutionError(text, refusal)
            }
            if let odd = stream.paths.first(where: { $0.contains { "{},*?".contains($0) } }) {
                throw VideoSubstitutionError(text, "\(recordedID) serves \(odd), a path with a glob character ({ } , * ?): "
                    + "the scenarios' path globs cannot be carried over to it")
            }
            for earlier in substitutes {
                guard let (path, other) = recorded.sharedMediaFile(recordedID, earlier.recorded) else { continue }
                throw VideoSubstitutionError(text, "\(recordedID) and \(earlier.recorded) (for \(earlier.fixture)) hold the same "
                    + "bytes (\(path) and \(other)): the harness reads the app's disk by content, so it could not tell one "
                    + "download's files from the other's; map two streams that share no media file (the same stream "
                    + "recorded twice will not do)")
            }
            substitutes.append(Substitute(fixture: fixtureID, recorded: recordedID))
        }
    }

    /// Whether nothing is substituted.
    public var isEmpty: Bool { substitutes.isEmpty }

    /// The recorded stream of each fixture substituted, by the fixture's id.
    public var videos: [String: String] {
        Dictionary(substitutes.map { ($0.fixture, $0.recorded) }) { a, _ in a }
    }

    /// The options that give this substitution again (`--video FIXTURE=RECORDED` each),
    /// for the commands a report prints.
    public var arguments: [String] { substitutes.flatMap { ["--video", "\($0.fixture)=\($0.recorded)"] } }

    /// `clear=mine, large=big`, for headers and shard identities.
    public var summary: String { substitutes.map { "\($0.fixture)=\($0.recorded)" }.joined(separator: ", ") }

    /// The runtime scenario of `file` (read from `path`, named in errors) played on the
    /// recordings: its path globs rewritten, its requests of a substituted fixture made
    /// of the recording.
    /// - Throws: `VideoSubstitutionError` naming the step whose glob cannot be carried
    ///   over, or a request of a recording that also stands for a fixture the scenario
    ///   requests.
    public func scenario(of file: ScenarioFile, path: String) throws(VideoSubstitutionError) -> Scenario {
        guard !isEmpty else {
            try checkSharedBytes(file, path: path)
            return Scenario(file)
        }
        return Scenario(try rewritten(file, path: path), videos: videos)
    }

    /// Refuses a scenario that downloads two recorded streams sharing a media file's bytes
    /// (its own requests of them, or of fixtures they stand for): the harness, finding
    /// files on the app's disk by content, would count one download's files as the other's.
    func checkSharedBytes(_ file: ScenarioFile, path: String) throws(VideoSubstitutionError) {
        guard !recorded.isEmpty else { return }
        let mapped = videos
        var downloaded: [String] = []
        for step in file.steps {
            let named: [String] = switch step {
            case .request(let request): [request.video]
            case .requestSpare(let spares, _): spares
            default: []
            }
            for video in named.map({ mapped[$0] ?? $0 }) where recorded.stream(video) != nil && !downloaded.contains(video) {
                downloaded.append(video)
            }
        }
        for (index, first) in downloaded.enumerated() {
            for second in downloaded[(index + 1)...] {
                guard let (one, other) = recorded.sharedMediaFile(first, second) else { continue }
                throw VideoSubstitutionError(summary, "\(path) (\(file.name)) downloads the recorded "
                    + "streams \(first) and \(second), which hold the same bytes (\(one) and \(other)): the harness finds "
                    + "files on the app's disk by content, so it could not tell one download's from the other's; request them "
                    + "in separate scenarios, or record streams that share no media file")
            }
        }
    }

    /// `file` with the path globs of its steps carried over to the recordings (its
    /// requests still name the fixtures: the scenario's interpreter asks for the
    /// recordings, `scenario(of:path:)`). Throws as `scenario(of:path:)` does.
    public func rewritten(_ file: ScenarioFile, path: String) throws(VideoSubstitutionError) -> ScenarioFile {
        try checkSharedBytes(file, path: path)
        var rewritten = file
        let requested = Set(file.steps.flatMap { step -> [String] in
            switch step {
            case .request(let request): [request.video]
            case .requestSpare(let videos, _): videos
            default: []
            }
        })
        for substitute in substitutes where requested.contains(substitute.recorded) && requested.contains(substitute.fixture) {
            throw VideoSubstitutionError("\(substitute.fixture)=\(substitute.recorded)", "\(path) (\(file.name)) requests "
                + "\(substitute.recorded) itself and \(substitute.fixture), which it would stand for: two downloads of one "
                + "stream; map \(substitute.fixture) to another recording")
        }
        for (index, step) in file.steps.enumerated() {
            let where_ = "\(path) (\(file.name)), step \(index + 1)"
            switch step {
            case .originFault(var fault):
                fault.path = try rewrite(fault.path, at: "\(where_) (origin-fault path: \(fault.path))", faulting: true)
                rewritten.steps[index] = .originFault(fault)
            case let .waitForRequest(glob, timeout):
                rewritten.steps[index] = .waitForRequest(
                    try rewrite(glob, at: "\(where_) (wait-for-request: \(glob))"), timeout: timeout)
            default: break
            }
        }
        return rewritten
    }

    /// `glob` over the recordings as well as (or instead of) the fixture files it names;
    /// `faulting` when the fixture origin is to fault what it matches (`origin-fault`),
    /// which it cannot do to a stream fetched live.
    func rewrite(_ glob: String, at step: String, faulting: Bool = false) throws(VideoSubstitutionError) -> String {
        let prefix = "/videos/"
        guard glob.hasPrefix(prefix) else { return glob }
        let rest = glob.dropFirst(prefix.count)
        let video = String(rest.prefix { $0 != "/" })
        let tail = rest.count > video.count ? String(rest.dropFirst(video.count + 1)) : ""
        let every = video == "*" || video == "**"
        let named = substitutes.filter { every || $0.fixture == video }
        guard !named.isEmpty else {
            // A fixture no recording stands for, or no video at all: the glob is left as it is.
            if video.contains(where: { "*?".contains($0) }) && !every && !substitutes.isEmpty {
                throw VideoSubstitutionError(summary, "\(step): the glob picks videos by a pattern, which cannot be carried "
                    + "over to the recordings; name the video (/videos/ID/…) or every one (/videos/**/…)")
            }
            return glob
        }
        let kinds: Set<RecordedResource.Kind>
        switch (video == "**", tail) {
        case (false, ""), (false, "**"), (true, ""): kinds = Set(RecordedResource.Kind.allCases)
        case (false, "**/*.ts"), (true, "*.ts"): kinds = [.segment]
        case (false, "**/*.m3u8"), (true, "*.m3u8"): kinds = [.master, .media, .iframes]
        case (false, "master.m3u8"): kinds = [.master]
        case (false, "key"): kinds = [.key]
        default:
            throw VideoSubstitutionError(summary, "\(step): a recording has no file that stands for \(glob) (it has its own "
                + "paths, not the fixture's); --video carries over /videos/ID/**, …/**/*.ts, …/**/*.m3u8, …/master.m3u8 and "
                + "…/key. Name the recording's paths in a scenario file of your own (bench scenario check --catalog DIR)")
        }
        var globs = every ? [glob] : []
        // A rewritten glob matches no path a recording of the run serves outside the files it stands for.
        let universe = Set(recorded.streams.flatMap(\.paths))
        for substitute in named {
            guard let stream = recorded.stream(substitute.recorded) else { continue }
            let live = faulting && recorded.isLive(stream)
            if live && every { continue }  // a glob over every video still covers the fixtures and the recordings served here
            guard !live else {
                throw VideoSubstitutionError("\(substitute.fixture)=\(substitute.recorded)", "\(step): \(substitute.recorded) "
                    + "is fetched live through --intercept, and the fixture origin, which would commit the fault, serves "
                    + "none of it; play this scenario without --intercept (on the recording), or leave "
                    + "\(substitute.fixture) a fixture")
            }
            let files = Set(stream.kinds.filter { kinds.contains($0.value) }.map(\.key))
            guard !files.isEmpty else {
                if every { continue }  // a glob over every video names what a recording has, if it has it
                throw VideoSubstitutionError("\(substitute.fixture)=\(substitute.recorded)", "\(step): \(substitute.recorded) "
                    + "has no \(kinds.count == 1 ? kinds.first!.rawValue : "such") file for the step to name")
            }
            globs += Self.globs(covering: files, within: universe)
        }
        return globs.count == 1 ? globs[0] : "{" + globs.joined(separator: ",") + "}"
    }

    /// Few globs that match every path of `files` and no other path of `universe`: the
    /// files' common directory (`/dir/**`), else each directory's files (`/dir/*`, or
    /// `/dir/*.ext`), else the paths themselves.
    static func globs(covering files: Set<String>, within universe: Set<String>) -> [String] {
        func exact(_ glob: String) -> Bool {
            let pattern = PathPattern(glob)
            return universe.union(files).allSatisfy { !pattern.matches($0) || files.contains($0) }
        }
        func directory(_ path: String) -> String { String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)]) }
        if files.count == 1, let only = files.first { return [only] }
        var common = directory(files.first ?? "")
        while !common.isEmpty, !files.allSatisfy({ $0.hasPrefix(common + "/") }) { common = directory(common) }
        if !common.isEmpty, common != "/videos", exact(common + "/**") { return [common + "/**"] }
        var globs: [String] = []
        for (folder, paths) in Dictionary(grouping: files, by: directory).sorted(by: { $0.key < $1.key }) {
            if paths.count > 1, exact(folder + "/*") { globs.append(folder + "/*"); continue }
            for (suffix, group) in Dictionary(grouping: paths, by: Self.suffix).sorted(by: { $0.key < $1.key }) {
                if group.count > 1, !suffix.isEmpty, exact(folder + "/*" + suffix) { globs.append(folder + "/*" + suffix) } else {
                    globs += group.sorted()
                }
            }
        }
        return globs
    }

    /// The extension of a path's last component, with its dot (empty when none).
    private static func suffix(_ path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? ""
        return name.lastIndex(of: ".").map { String(name[$0...]) } ?? ""
    }

    /// Why `stream` cannot stand for `fixture`, or nil when it can.
    static func kindRefusal(fixture: Video, stream: RecordedVideo) -> String? {
        guard fixture.offlineEnabled else {
            return "\(fixture.id) is not offline-enabled (its download is meant to be refused): no recording stands for it"
        }
        let allowed: [String] = switch fixture.protection {
        case .skd, .multiDRM: ["sample-aes"]
        case .httpKey: ["aes-128"]
        case .none: ["clear", "aes-128"]
        }
        guard allowed.contains(stream.protection) else {
            return "\(fixture.id) is \(Self.kind(of: fixture)), and \(stream.id) is \(stream.protection): the scenarios that "
                + "request \(fixture.id) make situations of that kind; map it to a recording that is "
                + allowed.joined(separator: " or ")
        }
        if allowed == ["sample-aes"], stream.licenseKeys.isEmpty {
            return "\(fixture.id) needs a license, and \(stream.id) names no skd:// key for the license server to answer"
        }
        return nil
    }

    private static func kind(of video: Video) -> String {
        switch video.protection {
        case .skd, .multiDRM: "protected by a license (skd://)"
        case .httpKey: "AES-128 with a key over HTTP"
        case .none: "clear"
        }
    }
}

/// A `--video` that cannot be played; says what to do.
public struct VideoSubstitutionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The option's value.
    public var option: String
    /// Why, and what to do.
    public var reason: String

    init(_ option: String, _ reason: String) {
        self.option = option
        self.reason = reason
    }

    public var description: String { option.isEmpty ? reason : "--video \(option): \(reason)" }
}

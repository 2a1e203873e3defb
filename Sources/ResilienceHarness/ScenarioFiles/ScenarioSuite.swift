import Foundation

/// A suite of scenario files: every `*.yaml` file of a directory (the shipped ones are
/// in `Scenarios/` at the repository root), in file-name order, which is the order a
/// run plays them.
public struct ScenarioSuite: Sendable {
    /// One file of the suite.
    public struct Entry: Sendable, Hashable {
        public var path: String
        public var file: ScenarioFile
    }

    /// The directory the suite came from.
    public var directory: String
    public var entries: [Entry]

    /// Where `bench` looks for the shipped scenarios: `Scenarios/`, relative to the
    /// working directory (like `Profiles/`).
    public static let defaultDirectory = "Scenarios"

    /// Every scenario, in the order a run plays them.
    public var all: [Scenario] { entries.map { Scenario($0.file) } }

    /// The scenario named `name`, nil when there is none.
    public func named(_ name: String) -> Scenario? {
        entries.first { $0.file.name == name }.map { Scenario($0.file) }
    }

    /// Reads every scenario file of `directory`.
    /// - Throws: `ScenarioFileError` naming the directory when it is missing or holds no
    ///   scenario file, the first file that does not parse, or two files with one name.
    public static func load(directory: String = defaultDirectory) throws(ScenarioFileError) -> ScenarioSuite {
        var isDirectory: ObjCBool = false
        let absolute = URL(fileURLWithPath: directory).standardizedFileURL.path
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue,
            let names = try? FileManager.default.contentsOfDirectory(atPath: directory)
        else {
            throw ScenarioFileError(kind: .unreadableFile, file: directory, reason: "no scenario directory at \(absolute); "
                + "the shipped scenarios are read from \(defaultDirectory)/ in the working directory: run from the "
                + "repository root, or name scenario files with --scenario-file FILE")
        }
        let files = names.filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }.sorted()
        guard !files.isEmpty else {
            throw ScenarioFileError(kind: .unreadableFile, file: directory, reason: "no scenario file (*.yaml) in \(absolute); "
                + "add one (docs/scenario-format.md) or name scenario files with --scenario-file FILE")
        }
        var entries: [Entry] = []
        for name in files {
            let path = (directory as NSString).appendingPathComponent(name)
            let file = try ScenarioFile.load(contentsOf: path)
            if let twin = entries.first(where: { $0.file.name == file.name }) {
                throw ScenarioFileError(kind: .duplicateScenario, file: path, reason: "the scenario name \(file.name) is "
                    + "also the name of \(twin.path); rename one of them (name:)")
            }
            entries.append(Entry(path: path, file: file))
        }
        return ScenarioSuite(directory: directory, entries: entries)
    }

    /// The scenarios a run plays: those `names` names, from the suite in `directory`,
    /// then those of the scenario `files`; every scenario of the directory when both are
    /// empty. The directory is read only when a name or none at all is given. Each is
    /// played on the recordings `substitution` maps fixture videos to (`--video`).
    /// - Throws: `ScenarioFileError` (a file or the directory), `UnknownScenario`, or
    ///   `VideoSubstitutionError` (a step the substitution cannot carry over).
    public static func chosen(
        names: [String], files: [String], directory: String = defaultDirectory, recordedVideos: Set<String> = [],
        substitution: VideoSubstitution = VideoSubstitution()
    ) throws -> [Scenario] {
        var chosen: [Entry] = []
        if !names.isEmpty || files.isEmpty {
            let suite = try load(directory: directory)
            if names.isEmpty { chosen = suite.entries }
            for name in names {
                guard let entry = suite.entries.first(where: { $0.file.name == name }) else {
                    throw UnknownScenario(name: name, known: suite.entries.map(\.file.name))
                }
                chosen.append(entry)
            }
        }
        for path in files {
            chosen.append(Entry(path: path, file: try ScenarioFile.load(contentsOf: path, recordedVideos: recordedVideos)))
        }
        return try chosen.map { entry throws(VideoSubstitutionError) in try substitution.scenario(of: entry.file, path: entry.path) }
    }
}

/// A scenario name `bench --scenario` does not know.
public struct UnknownScenario: Error, Sendable, Hashable, CustomStringConvertible {
    public var name: String
    /// The names of the suite's scenarios.
    public var known: [String]

    public init(name: String, known: [String]) {
        self.name = name
        self.known = known
    }

    public var description: String {
        "unknown scenario \"\(name)\"; known: \(known.joined(separator: ", ")) (see `bench scenarios`; "
            + "a scenario of your own: --scenario-file FILE)"
    }
}

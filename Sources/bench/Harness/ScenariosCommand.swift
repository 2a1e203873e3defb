import ArgumentParser
import FixtureOrigin
import ResilienceHarness

/// `bench scenarios`: the shipped scenario files, what each does and which properties it asserts.
struct ScenariosCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scenarios",
        abstract: "List the scenarios of Scenarios/, what each does and what it asserts."
    )

    func run() {
        do { print(try ScenarioSuite.load().listing) } catch { exitBadInput("\(error)") }
    }
}

/// `bench scenario check FILE…`: validates scenario files (docs/scenario-format.md) and
/// prints one line per valid file; an invalid one prints its error (file:line:column:
/// key.path: what is wrong and what to do) on standard error, and the command exits 2.
struct ScenarioCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scenario", abstract: "Work with scenario files.", subcommands: [ScenarioCheckCommand.self])
}

struct ScenarioCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "check", abstract: "Validate scenario files and summarise each.")

    @Argument(help: "Scenario YAML files, e.g. Scenarios/housekeeping.yaml.")
    var files: [String]

    @Option(name: .customLong("catalog"), help: ArgumentHelp(
        "A catalog directory `bench record` wrote: a request may name its streams (repeatable).", valueName: "DIR"))
    var catalogs: [String] = []

    @Option(name: .customLong("video"), help: ArgumentHelp(
        "FIXTURE=RECORDED: also check that each file can be played with the recorded stream RECORDED (of --catalog) in "
            + "place of the fixture video FIXTURE, as bench run --video plays it (repeatable).", valueName: "FIXTURE=RECORDED"))
    var videos: [String] = []

    func run() throws {
        var invalid = 0
        var content = RecordedContent()
        var substitution = VideoSubstitution()
        if !catalogs.isEmpty {
            do { content = try RecordedContent.load(catalogs, reservedIDs: Set(ScenarioFile.fixtureVideos)) } catch {
                printError("error: --catalog: \(error)")
                throw ExitCode(2)
            }
        }
        if !videos.isEmpty {
            guard !catalogs.isEmpty else {
                printError("error: --video names recorded streams: give the catalog they were recorded into with --catalog DIR")
                throw ExitCode(2)
            }
            do { substitution = try VideoSubstitution(parsing: videos, recorded: content) } catch {
                printError("error: \(error)")
                throw ExitCode(2)
            }
        }
        let recorded = Set(content.streams.map(\.video.id))
        for file in files {
            do {
                let scenario = try ScenarioFile.load(contentsOf: file, recordedVideos: recorded)
                _ = try substitution.scenario(of: scenario, path: file)
                let played = substitution.isEmpty ? "" : " (on recordings: \(substitution.summary))"
                print("\(file): valid: " + scenario.oneLineSummary + played)
            } catch {
                printError("error: \(error)")
                invalid += 1
            }
        }
        if invalid > 0 { throw ExitCode(2) }
    }
}

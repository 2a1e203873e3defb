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

    func run() throws {
        var invalid = 0
        var recorded: Set<String> = []
        if !catalogs.isEmpty {
            do {
                recorded = Set(try RecordedContent.load(catalogs, reservedIDs: Set(ScenarioFile.fixtureVideos)).streams.map(\.video.id))
            } catch {
                printError("error: --catalog: \(error)")
                throw ExitCode(2)
            }
        }
        for file in files {
            do { print("\(file): valid: " + (try ScenarioFile.load(contentsOf: file, recordedVideos: recorded)).oneLineSummary) } catch {
                printError("error: \(error)")
                invalid += 1
            }
        }
        if invalid > 0 { throw ExitCode(2) }
    }
}

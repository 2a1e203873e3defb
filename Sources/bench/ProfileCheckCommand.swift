import ArgumentParser
import BenchCore

/// `bench profile …`: commands about one profile.
struct ProfileCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profile",
        abstract: "Work with one network profile.",
        subcommands: [ProfileCheckCommand.self]
    )
}

/// `bench profile check FILE`: validates a profile and prints what it describes —
/// each interface's state and link, then every phase with its offset, label and
/// changes. Invalid input prints the error (file:line:column: key.path: reason)
/// on standard error and exits with code 2.
struct ProfileCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Validate a profile file and summarise it."
    )

    @Argument(help: "The profile YAML file.")
    var file: String

    func run() throws {
        do {
            let profile = try Profile.load(contentsOf: file)
            print("\(file): valid")
            print(profile.summary)
        } catch {
            printError("error: \(error.description)")
            throw ExitCode(2)
        }
    }
}

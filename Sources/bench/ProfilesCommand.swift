import ArgumentParser
import BenchCore
import Foundation

/// `bench profiles [--dir Profiles]`: one line per profile file — file name,
/// duration and one-line description. Files that fail to load are listed with
/// their error and make the command exit with code 2.
struct ProfilesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profiles",
        abstract: "List the network profiles in a folder."
    )

    @Option(name: .long, help: "The folder holding the profile YAML files.")
    var dir: String = "Profiles"

    func validate() throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ValidationError("no such folder: \(dir)")
        }
    }

    func run() throws {
        let (lines, failures) = try Profile.listing(directory: dir)
        print(lines.isEmpty ? "no profiles (*.yaml) in \(dir)" : lines.joined(separator: "\n"))
        if failures > 0 {
            printError("\(failures) invalid profile\(failures == 1 ? "" : "s"); run `bench profile check FILE` for details")
            throw ExitCode(2)
        }
    }
}

/// Writes a line to standard error.
func printError(_ message: String) {
    FileHandle.standardError.writeSurvivingSignals(Data((message + "\n").utf8))
}

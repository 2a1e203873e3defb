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
        let files = try FileManager.default.contentsOfDirectory(atPath: dir)
            .filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }
            .sorted()
        guard !files.isEmpty else {
            print("no profiles (*.yaml) in \(dir)")
            return
        }
        let width = files.map(\.count).max() ?? 0
        var failures = 0
        for file in files {
            let path = URL(fileURLWithPath: dir).appendingPathComponent(file).path
            let name = file.padding(toLength: width, withPad: " ", startingAt: 0)
            do {
                let profile = try Profile.load(contentsOf: path)
                let duration = Units.format(profile.duration).padding(toLength: 6, withPad: " ", startingAt: 0)
                print("\(name)  \(duration)  \(profile.oneLineDescription())")
            } catch {
                failures += 1
                print("\(name)  INVALID  \(error.reason)")
            }
        }
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

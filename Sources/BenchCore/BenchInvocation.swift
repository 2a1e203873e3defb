import Foundation

/// How a shell runs this `bench` again, for the commands it prints (chaos's reruns and
/// replays): `swift run bench` when it is this package's own build and the working
/// directory is the package (`swift run -c release bench` for a release build), else
/// the executable as it was started (`bench` found on the PATH, or its path).
public enum BenchInvocation {
    /// The invocation of the running process.
    public static var current: String {
        command(
            executable: CommandLine.arguments.first ?? "bench",
            directory: FileManager.default.currentDirectoryPath,
            isPackage: { FileManager.default.fileExists(atPath: ($0 as NSString).appendingPathComponent("Package.swift")) })
    }

    /// The invocation of `executable` (argv[0]) started in `directory`; `isPackage`
    /// says whether a directory holds a Swift package.
    public static func command(executable: String, directory: String, isPackage: (String) -> Bool) -> String {
        guard executable.contains("/") else { return quoted(executable) }  // found on the PATH
        let absolute = executable.hasPrefix("/") ? executable : (directory as NSString).appendingPathComponent(executable)
        let path = (absolute as NSString).standardizingPath
        let build = (directory as NSString).standardizingPath + "/.build/"
        if path.hasPrefix(build), isPackage(directory) {
            let release = path.dropFirst(build.count).split(separator: "/").contains { $0 == "release" }
            return release ? "swift run -c release bench" : "swift run bench"
        }
        return quoted(executable)
    }

    /// `word` as a shell takes it back: as is when it holds nothing a shell would
    /// split or expand, else in single quotes.
    public static func quoted(_ word: String) -> String {
        let plain = !word.isEmpty && word.allSatisfy { $0.isLetter || $0.isNumber || "-_./=:,+@%".contains($0) }
        return plain ? word : "'" + word.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}

import Foundation

/// The commit of the tree a run was made from, as sharded outputs record it so that
/// `bench merge` refuses shards of different commits.
///
/// A CI system names it in its environment (`GITHUB_SHA`, `CI_COMMIT_SHA`,
/// `BUILDKITE_COMMIT`); elsewhere it is read from the git checkout around the working
/// directory (`.git/HEAD`, its ref, or `packed-refs`), without starting git. A `.git`
/// *file* (a linked worktree, a submodule) is followed to the git directory it names, and
/// a worktree's refs are read from the repository's common directory. `unknown` outside a
/// checkout.
public enum SourceCommit {
    /// The environment variables CI systems set to the commit being built, in the order read.
    public static let environmentNames = ["DEADZONE_COMMIT", "GITHUB_SHA", "CI_COMMIT_SHA", "BUILDKITE_COMMIT"]

    /// The commit for this process: from the environment, else the checkout at or above
    /// the working directory, else `unknown`.
    public static var current: String {
        commit(environment: ProcessInfo.processInfo.environment, directory: FileManager.default.currentDirectoryPath)
    }

    /// The commit `environment` names, else the one checked out at or above `directory`.
    public static func commit(environment: [String: String], directory: String) -> String {
        for name in environmentNames {
            if let value = environment[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty { return value }
        }
        var url = URL(fileURLWithPath: directory)
        while true {
            if let git = gitDirectory(at: url.appendingPathComponent(".git")), let commit = checkedOut(gitDirectory: git) {
                return commit
            }
            let parent = url.deletingLastPathComponent()
            if parent.path == url.path { return "unknown" }
            url = parent
        }
    }

    /// The git directory `dotGit` is or names: itself when a directory, the path after
    /// `gitdir: ` (relative to the file's directory) when a file, nil when neither.
    static func gitDirectory(at dotGit: URL) -> URL? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dotGit.path, isDirectory: &isDirectory) else { return nil }
        if isDirectory.boolValue { return dotGit }
        guard let text = try? String(contentsOf: dotGit, encoding: .utf8),
            let line = text.split(separator: "\n").first, line.hasPrefix("gitdir: ")
        else { return nil }
        let path = line.dropFirst("gitdir: ".count).trimmingCharacters(in: .whitespaces)
        return resolve(path, against: dotGit.deletingLastPathComponent())
    }

    /// `path` when absolute, else `path` inside `directory` with its `..` resolved.
    private static func resolve(_ path: String, against directory: URL) -> URL {
        path.hasPrefix("/") ? URL(fileURLWithPath: path) : directory.appendingPathComponent(path).standardizedFileURL
    }

    /// The commit `HEAD` of the git directory `git` points at, directly or through a ref
    /// (loose or packed, in `git` or in the common directory its `commondir` names).
    static func checkedOut(gitDirectory git: URL) -> String? {
        guard let head = try? String(contentsOf: git.appendingPathComponent("HEAD"), encoding: .utf8) else { return nil }
        let text = head.trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("ref: ") else { return text.isEmpty ? nil : text }
        let ref = String(text.dropFirst("ref: ".count))
        var places = [git]
        if let common = try? String(contentsOf: git.appendingPathComponent("commondir"), encoding: .utf8) {
            let path = common.trimmingCharacters(in: .whitespacesAndNewlines)
            places.append(resolve(path, against: git))
        }
        for place in places {
            if let loose = try? String(contentsOf: place.appendingPathComponent(ref), encoding: .utf8) {
                return loose.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            let packed = (try? String(contentsOf: place.appendingPathComponent("packed-refs"), encoding: .utf8)) ?? ""
            for line in packed.split(separator: "\n") where line.hasSuffix(" " + ref) {
                return String(line.prefix { $0 != " " })
            }
        }
        return nil
    }
}

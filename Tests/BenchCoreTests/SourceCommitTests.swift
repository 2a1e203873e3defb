import BenchCore
import Foundation
import Testing

/// `SourceCommit`: the commit a sharded output records, from a CI system's environment or
/// from the git checkout around the working directory, read without starting git. The
/// checkouts here are real: made by git in a temporary directory.
@Suite struct SourceCommitTests {
    /// A temporary directory, removed by `remove()`.
    struct Scratch {
        let root = NSTemporaryDirectory() + "deadzone-commit-\(UUID().uuidString)"
        func remove() { try? FileManager.default.removeItem(atPath: root) }
    }

    /// Runs git with `arguments` in `directory`, on a thread of its own; its trimmed stdout.
    @discardableResult
    static func git(_ arguments: [String], in directory: String) async throws -> String {
        try await OffPool.run { () throws -> String in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"]
                + arguments
            process.currentDirectoryURL = URL(fileURLWithPath: directory)
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            try process.run()
            let data = out.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw CocoaError(.executableLoad, userInfo: [
                    NSLocalizedDescriptionKey: "git \(arguments) exited \(process.terminationStatus) (git comes with .ci/install-deps)",
                ])
            }
            return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    /// A repository at `root/repo` with one commit, and that commit.
    static func repository(in scratch: Scratch) async throws -> (path: String, head: String) {
        let path = scratch.root + "/repo"
        try FileManager.default.createDirectory(atPath: path + "/sub/dir", withIntermediateDirectories: true)
        try await git(["init", "-q"], in: path)
        try "x\n".write(toFile: path + "/sub/dir/file", atomically: true, encoding: .utf8)
        try await git(["add", "."], in: path)
        try await git(["commit", "-q", "-m", "one"], in: path)
        return (path, try await git(["rev-parse", "HEAD"], in: path))
    }

    @Test func aCISystemsVariableWinsInTheOrderListed() {
        #expect(SourceCommit.commit(environment: ["CI_COMMIT_SHA": "c", "GITHUB_SHA": "g"], directory: "/") == "g")
        #expect(SourceCommit.commit(environment: ["BUILDKITE_COMMIT": " b \n"], directory: "/") == "b")
        #expect(SourceCommit.commit(environment: ["GITHUB_SHA": ""], directory: "/") == "unknown")
    }

    @Test func aCheckoutsHeadIsReadFromBelowItLooseThenPacked() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let repo = try await Self.repository(in: scratch)
        #expect(SourceCommit.commit(environment: [:], directory: repo.path + "/sub/dir") == repo.head)
        try await Self.git(["pack-refs", "--all", "--prune"], in: repo.path)
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/.git/refs/heads/main"))
        #expect(SourceCommit.commit(environment: [:], directory: repo.path) == repo.head)
        try await Self.git(["checkout", "-q", "--detach"], in: repo.path)
        #expect(SourceCommit.commit(environment: [:], directory: repo.path) == repo.head)
        #expect(SourceCommit.commit(environment: [:], directory: scratch.root) == "unknown")
    }

    /// A linked worktree's `.git` is a file naming its git directory, whose refs live in
    /// the repository's common directory: followed, it gives the worktree's commit, not
    /// the main checkout's or the parent directory's.
    @Test func aWorktreesGitFileIsFollowed() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let repo = try await Self.repository(in: scratch)
        try await Self.git(["worktree", "add", "-q", "-b", "side", scratch.root + "/side"], in: repo.path)
        try "y\n".write(toFile: scratch.root + "/side/second", atomically: true, encoding: .utf8)
        try await Self.git(["add", "."], in: scratch.root + "/side")
        try await Self.git(["commit", "-q", "-m", "two"], in: scratch.root + "/side")
        let side = try await Self.git(["rev-parse", "HEAD"], in: scratch.root + "/side")
        #expect(side != repo.head)
        #expect(SourceCommit.commit(environment: [:], directory: scratch.root + "/side") == side)
        #expect(SourceCommit.commit(environment: [:], directory: repo.path) == repo.head)
    }
}

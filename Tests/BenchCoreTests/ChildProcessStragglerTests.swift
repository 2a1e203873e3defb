import Foundation
import TestSupport
import Testing
@testable import BenchCore

/// `signalStragglers`: what a command left in its process group after it ended is killed.
/// (That a number a live process holds again is not signalled as a group is not tested:
/// it needs the kernel to hand the number out again.)
@Suite(.timeLimit(.minutes(2))) struct ChildProcessStragglerTests {
    /// The pids of live (non-zombie) processes whose process group is `group`.
    static func members(of group: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return false }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            // After the name: state, ppid, pgrp.
            return fields.count > 2 && fields[0] != "Z" && Int32(fields[2]) == group
        }
    }

    @Test func whatACommandLeftInItsGroupIsKilled() async throws {
        let child = try ChildProcess.spawn("/bin/sh", ["-c", "sleep 60 & exit 0"], ownProcessGroup: true)
        #expect(await child.exit() == .exited(0))
        #expect(await eventually("the straggler in the group") { !Self.members(of: child.pid).isEmpty })
        child.signalStragglers(SIGKILL)
        await eventually("the straggler's end") { Self.members(of: child.pid).isEmpty }
    }
}

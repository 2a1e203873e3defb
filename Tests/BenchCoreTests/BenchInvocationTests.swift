import BenchCore
import Testing

/// The commands `bench` prints to run something again work as printed: `swift run
/// bench` only from the package that built it, else the executable itself.
@Suite struct BenchInvocationTests {
    static let package = "/home/me/deadzone"
    static func isPackage(_ directory: String) -> Bool { directory == package }

    @Test func thePackagesOwnBuildRunFromThePackageIsSwiftRun() {
        #expect(BenchInvocation.command(
            executable: "/home/me/deadzone/.build/x86_64-unknown-linux-gnu/debug/bench", directory: Self.package,
            isPackage: Self.isPackage) == "swift run bench")
        #expect(BenchInvocation.command(executable: ".build/release/bench", directory: Self.package, isPackage: Self.isPackage)
            == "swift run -c release bench")
    }

    @Test func anywhereElseItIsTheExecutableAsStarted() {
        // The package's build, started from another directory: `swift run` would not find the package there.
        #expect(BenchInvocation.command(
            executable: "/home/me/deadzone/.build/debug/bench", directory: "/tmp/work", isPackage: Self.isPackage)
            == "/home/me/deadzone/.build/debug/bench")
        // A directory named like a package's build, without a package.
        #expect(BenchInvocation.command(executable: "./.build/debug/bench", directory: "/srv", isPackage: Self.isPackage)
            == "./.build/debug/bench")
        #expect(BenchInvocation.command(executable: "bench", directory: Self.package, isPackage: Self.isPackage) == "bench")
        #expect(BenchInvocation.command(executable: "/opt/my tools/bench", directory: "/", isPackage: Self.isPackage)
            == "'/opt/my tools/bench'")
    }

    @Test func quotingKeepsWhatAShellWouldSplitOrExpandTogether() {
        #expect(BenchInvocation.quoted("Profiles/flaky-wifi.yaml") == "Profiles/flaky-wifi.yaml")
        #expect(BenchInvocation.quoted("python3 my agent.py") == "'python3 my agent.py'")
        #expect(BenchInvocation.quoted("it's $HOME") == #"'it'\''s $HOME'"#)
        #expect(BenchInvocation.quoted("") == "''")
    }
}

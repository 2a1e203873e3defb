@testable import BenchCore
import Testing

/// How much of the machine other processes used: `/proc/stat`'s busy time less this
/// process's own (and its reaped children's), over the wall time and the cores.
@Suite struct CPUSampleTests {
    static let procStat = """
        cpu  1000 50 300 9000 200 10 40 0 0 0
        cpu0 500 25 150 4500 100 5 20 0 0 0
        cpu1 500 25 150 4500 100 5 20 0 0 0
        intr 12345
        ctxt 6789
        """

    @Test func theBusyTimeIsEverythingButIdleAndIOWait() throws {
        let (busy, cores) = try #require(CPUSample.machineBusy(procStat: Self.procStat, ticksPerSecond: 100))
        // user + nice + system + irq + softirq + steal = 1000 + 50 + 300 + 10 + 40 + 0 ticks.
        #expect(busy == 14.0)
        #expect(cores == 2)
        #expect(CPUSample.machineBusy(procStat: "intr 1\n", ticksPerSecond: 100) == nil)
        #expect(CPUSample.machineBusy(procStat: "cpu  1 2 3\n", ticksPerSecond: 100) == nil)
    }

    @Test func othersAreTheMachinesBusyTimeLessOurOwnOverItsCapacity() {
        let start = CPUSample(machineBusySeconds: 100, ownSeconds: 10, wallSeconds: 1000, cores: 2)
        // 10 s of wall time on 2 cores is 20 CPU-seconds; the machine was busy 16 of them, 6 ours.
        let later = CPUSample(machineBusySeconds: 116, ownSeconds: 16, wallSeconds: 1010, cores: 2)
        #expect(start.othersShare(until: later) == 0.5)
        // Our own children reaped at the end may count more than the machine saw in the window: never below 0.
        let reaped = CPUSample(machineBusySeconds: 102, ownSeconds: 20, wallSeconds: 1010, cores: 2)
        #expect(start.othersShare(until: reaped) == 0)
        #expect(start.othersShare(until: start) == nil)
    }

    @Test func thisMachineCanBeSampled() throws {
        let sample = try #require(CPUSample.now(), "/proc/stat is readable on Linux")
        #expect(sample.cores >= 1 && sample.machineBusySeconds > 0 && sample.ownSeconds > 0)
    }
}

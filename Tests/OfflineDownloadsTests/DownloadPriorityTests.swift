import BenchCore
import OfflineDownloads
import Testing

/// Which reason `suspended` shows when several hold: user, storage, network or
/// cellularNotAllowed, then awaitingForeground.
@Suite("DownloadStateMachine reason priority")
struct DownloadPriorityTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var paused = false
        var conditions: DownloadConditions
        var needsLicense = false
        var stalled = false
        var expected: DownloadState
        var testDescription: String {
            "paused \(paused), \(conditions), license \(needsLicense), stalled \(stalled) → \(expected)"
        }
    }

    static let everything = DownloadConditions(network: .noNetwork, hasStorage: false, isForeground: false)

    static let cases: [Case] = [
        Case(paused: true, conditions: everything, needsLicense: true, expected: .suspended(.user)),
        Case(conditions: everything, needsLicense: true, expected: .suspended(.storage)),
        Case(conditions: .init(network: .cellularNotAllowed, hasStorage: false), expected: .suspended(.storage)),
        Case(conditions: .init(network: .noNetwork, isForeground: false), needsLicense: true, expected: .suspended(.network)),
        Case(conditions: .init(network: .cellularNotAllowed, isForeground: false), needsLicense: true,
             expected: .suspended(.cellularNotAllowed)),
        // A stall is a network reason too, and outranks the license.
        Case(conditions: .background, needsLicense: true, stalled: true, expected: .suspended(.network)),
        Case(conditions: .background, needsLicense: true, expected: .suspended(.awaitingForeground)),
        // The background alone suspends nothing when no license is needed.
        Case(conditions: .background, expected: .downloading),
        Case(conditions: .favorable, needsLicense: true, expected: .downloading),
    ]

    @Test("the reason shown when several hold", arguments: cases)
    func priority(_ c: Case) throws {
        var machine = DownloadStateMachine(conditions: .favorable)
        _ = try machine.downloadRequested(requiresLicense: c.needsLicense)
        _ = try machine.slotGranted()
        if c.stalled { _ = try machine.stalled() }
        if c.paused { _ = try machine.userPaused() }
        // Same network choice as before for stalls (a new choice would clear them).
        _ = machine.conditionsChanged(c.conditions)
        #expect(machine.state == c.expected)
    }

    @Test("reasons clear one by one, in priority order, and each step reports the next")
    func peelingReasons() throws {
        var machine = DownloadStateMachine(conditions: Self.everything)
        _ = try machine.downloadRequested(requiresLicense: true)
        _ = try machine.userPaused()
        _ = try machine.slotGranted()
        var seen = [machine.state]
        _ = try machine.userResumed(); seen.append(machine.state)
        _ = machine.conditionsChanged(.init(network: .noNetwork, isForeground: false)); seen.append(machine.state)
        _ = machine.conditionsChanged(.init(network: .cellularNotAllowed, isForeground: false)); seen.append(machine.state)
        _ = machine.conditionsChanged(.background); seen.append(machine.state)
        let last = machine.conditionsChanged(.favorable); seen.append(machine.state)
        #expect(seen == [
            .suspended(.user), .suspended(.storage), .suspended(.network), .suspended(.cellularNotAllowed),
            .suspended(.awaitingForeground), .downloading,
        ])
        #expect(last.suffix(2) == [.acquireLicense, .startTransfer(over: .wifi)])
    }
}

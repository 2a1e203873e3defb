import BenchCore
import BenchResults

/// How a chaos scenario went wrong, from its result: the properties that failed, and
/// the error that stopped it (a wait that timed out, the agent dying…).
public struct ChaosFailure: Sendable, Hashable {
    /// The failed properties, in `Properties.all` order.
    public var properties: [String]
    /// What stopped the scenario, by kind (`timed out`, `agent exited`, …), if anything did.
    public var error: String?
    /// The capabilities the app lacks when the scenario was not played.
    public var unsupported: [String]?

    /// The failure of `result`; nil when it passed.
    public init?(_ result: ScenarioResult) {
        guard !result.passed else { return nil }
        properties = result.failedProperties
        error = result.error.map(Self.kind)
        unsupported = result.unsupported
    }

    /// What a shrink keeps failing: the first failed property, else the error's kind.
    public var target: String {
        properties.first ?? error.map { "error: \($0)" } ?? unsupported.map { "unsupported: " + $0.joined(separator: ", ") }
            ?? "unmet precondition"
    }

    /// Whether this failure shows `target` (the same property failed, or the same kind of error).
    public func shows(_ target: String) -> Bool {
        properties.contains(target) || error.map { "error: \($0)" } == target
    }

    /// `crash-recovery, integrity` or `error: timed out`, for the seed's line.
    public var description: String {
        (properties + [error.map { "error: \($0)" }].compactMap { $0 }).joined(separator: ", ")
    }

    /// The kind of a scenario error, with what varies from run to run left out.
    static func kind(_ error: String) -> String {
        for (prefix, kind) in [("timed out waiting for", "timed out"), ("the agent process exited", "agent exited"),
                               ("protocol error", "protocol error"), ("the scenario ran past its time limit", "time limit")]
        where error.hasPrefix(prefix) { return kind }
        return error
    }
}

/// What a chaos scenario made happen, from the evidence in its trace: kills, and those
/// that cut bytes in flight; outages, and those that hit a transfer; origin faults that
/// hit a request; and what the kills cost, from the harness's own disk snapshots: the
/// paths stored whole at a kill that the app fetched again after its relaunch, and the
/// bytes the disk held at a kill that it fetched again (those paths' bytes, and the part
/// of a partial copy a resume asked for again).
public struct ChaosEvidence: Sendable, Hashable {
    public var kills = 0
    /// Kills while bytes of a media response were on their way to the app.
    public var killsWithBytesInFlight = 0
    /// Interfaces taken down.
    public var outages = 0
    /// Outages while the origin was delivering a response to the app through that interface.
    public var outagesThatHitATransfer = 0
    /// Requests the scenario's origin faults (`origin-fault-N` rules) answered.
    public var faultHits = 0
    /// Paths stored whole on disk at a kill and fetched again after the relaunch.
    public var storedSegmentsFetchedAgain = 0
    /// Bytes the disk held at a kill that the app fetched again after the relaunch.
    public var bytesLostToKills: Int64 = 0

    public init() {}

    /// The evidence of `trace`.
    public init(_ trace: ScenarioTrace) {
        kills = trace.restarts.count
        killsWithBytesInFlight = trace.restarts.indices.filter { index in
            !trace.mediaBytesInFlight(at: trace.restarts[index].kill.t, disk: trace.diskSnapshot(restart: index)).isEmpty
        }.count
        let outages = trace.interfacesTakenDown
        self.outages = outages.count
        outagesThatHitATransfer = outages.filter { !trace.transfersInFlight(at: $0.t, through: $0.interface).isEmpty }.count
        faultHits = trace.originRequests.filter { $0.record.faultRuleID?.hasPrefix("origin-fault-") == true }.count
        for index in trace.restarts.indices {
            if let check = trace.refetchCheck(restart: index) {
                storedSegmentsFetchedAgain += Set(check.refetches.map(\.path)).count
                bytesLostToKills += check.refetches.reduce(Int64(0)) { $0 + Int64($1.request.record.bytesSent) }
            }
            bytesLostToKills += (trace.rangeResumes(restart: index) ?? []).reduce(Int64(0)) { $0 + $1.refetchedBytes }
        }
    }

    static func + (a: ChaosEvidence, b: ChaosEvidence) -> ChaosEvidence {
        var sum = a
        sum.kills += b.kills
        sum.killsWithBytesInFlight += b.killsWithBytesInFlight
        sum.outages += b.outages
        sum.outagesThatHitATransfer += b.outagesThatHitATransfer
        sum.faultHits += b.faultHits
        sum.storedSegmentsFetchedAgain += b.storedSegmentsFetchedAgain
        sum.bytesLostToKills += b.bytesLostToKills
        return sum
    }
}

/// How the shrinking of a failing seed ended.
public struct ChaosShrinkResult: Sendable, Hashable {
    /// What every kept candidate still failed (`ChaosFailure.target`).
    public var target: String
    public var originalSteps: Int
    public var steps: Int
    public var runs: Int
    public var stop: ChaosShrinker.Stop
    /// The shrunk file (`seed-<n>.min.yaml`).
    public var path: String
}

/// One input of a chaos run: a seed's scenario, or a mutant's (`bench chaos --guided`).
public struct ChaosSeedResult: Sendable {
    /// What was played: its genome, its label (`seed-17`, `mutant-3`) and its parent.
    public var input: ChaosGuide.Input
    /// The scenario file written for it (`<label>.yaml`) and its number of steps.
    public var path: String
    public var steps: Int
    public var result: ScenarioResult
    public var evidence: ChaosEvidence
    public var wallSeconds: Double
    public var shrunk: ChaosShrinkResult?
    /// The situation pairs its run created first in the campaign.
    public var newPairs: [SituationPair] = []

    /// The seed its genome starts from (the run's seed, and the app's).
    public var seed: UInt64 { input.genome.seed }
    public var label: String { input.label }
    public var passed: Bool { result.passed }
    public var failure: ChaosFailure? { ChaosFailure(result) }
}

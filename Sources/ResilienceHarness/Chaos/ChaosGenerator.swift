import AppProtocol
import BenchCore

/// Seeded random scenarios (`bench chaos`): for a seed and a profile, one scenario file,
/// the same byte for byte every time, built from the step model (`ScenarioStep`).
///
/// A chaos scenario requests a few of the catalog's videos with random options (allowed
/// cellular or not, some protected, some rentals), then plays random events at random
/// moments, each chosen so that a property's precondition can happen: outages of every
/// down mode and length with the path update on time, late or withheld, handoffs (WiFi
/// down with cellular up), kills of every kind while bytes are in flight, the
/// background after `prepareForBackground`, the user pausing, resuming, cancelling and
/// changing the cellular setting, origin HTTP faults. Every event ends with the network
/// as it was before it, and every scenario ends by waiting (bounded) for its downloads
/// to settle and inspecting them. It asserts nothing (`asserts: []`): every property is
/// judged, and one that did not apply is reported as not exercised, never as failed.
///
/// What it avoids, because the properties would then demand the impossible of a correct
/// app: a user action on a download that is no longer in flight (`if-in-flight`), the
/// background while no interface could carry a license exchange, a force-quit or a
/// reboot while downloads interrupted by an earlier crash are unfinished (those must
/// complete), an HTTP status fault that could fail a download for good (at most 3
/// hits, fewer than the 5 retries an engine makes), a withheld path update when an
/// interface comes back, and videos shared by two downloads.
///
/// Each event starts with a `note` (`chaos 3/5: …`): the shrinker removes events whole
/// before single steps (`ChaosShrinker`).
///
/// With `recorded` streams (`bench chaos --catalog DIR`), those are requested beside the
/// fixture videos, by id: every scenario's first request is of one of them
/// (`ChaosPlan.shuffledPool`), the others join the pool; one that needs a license is treated as
/// the protected fixture videos are. Without any, a seed's file is what it always was.
public struct ChaosGenerator: Sendable {
    /// The profile's name, for the scenario's summary.
    public var profileName: String
    /// The recorded streams a scenario may request, beside the fixture videos.
    public var recorded: [ChaosRecordedVideo]

    /// A generator for scenarios run under `profile`, requesting `recorded` streams too.
    public init(profile: Profile, recorded: [ChaosRecordedVideo] = []) {
        self.init(profileName: profile.name, recorded: recorded)
    }

    /// A generator for scenarios run under the profile named `profileName`.
    public init(profileName: String, recorded: [ChaosRecordedVideo] = []) {
        self.profileName = profileName
        self.recorded = recorded
    }

    /// The videos whose downloads need a license: the protected fixture videos and the
    /// recorded streams with an answered `skd://` key.
    public var protectedVideos: Set<String> {
        ChaosCatalog.protected.union(recorded.filter(\.needsLicense).map(\.id))
    }

    /// The scenario of `seed`.
    public func scenario(seed: UInt64) -> ScenarioFile {
        scenario(ChaosGenome(seed: seed))
    }

    /// The scenario of `genome`: the seed's own, or a mutant of it (named
    /// `chaos-<seed>-m<mutant>`, its summary saying what was mutated).
    public func scenario(_ genome: ChaosGenome, mutant: Int? = nil) -> ScenarioFile {
        let plan = self.plan(genome)
        let origin = genome.isSeed ? "seed \(genome.seed)" : "mutant \(mutant.map(String.init) ?? "?") of \(genome)"
        return ScenarioFile(
            name: "chaos-\(genome.seed)" + (genome.isSeed ? "" : "-m\(mutant.map(String.init) ?? "x")"),
            summary: "A seeded random scenario (bench chaos, \(origin), profile \(profileName)): "
                + "\(plan.downloads.count) downloads; \(plan.descriptions.joined(separator: "; ")). It asserts nothing: "
                + "every property is judged on what happened.",
            needs: ChaosNeeds.of(plan.steps, protected: protectedVideos), targetSeconds: plan.targetSeconds, steps: plan.steps)
    }

    /// How many events `genome`'s scenario plays (what a mutation may pick from).
    public func eventCount(_ genome: ChaosGenome) -> Int {
        self.plan(genome).eventCount
    }

    private func plan(_ genome: ChaosGenome) -> ChaosPlan {
        var plan = ChaosPlan(genome: genome, recorded: recorded, protected: protectedVideos)
        plan.build()
        return plan
    }
}

/// One download of a chaos scenario, as the generator plans it.
struct ChaosDownload {
    var name: String
    var video: String
    /// The cancel event chose it: later events leave it alone.
    var removed = false
    /// A force-quit or a reboot interrupted it (it failed): events look for another.
    var interrupted = false
    /// When the generator expects it to start and to end (seconds since the launch).
    var start: Double
    var end: Double
}

/// The generator's working state while it writes one scenario.
struct ChaosPlan {
    var rng: SeededGenerator
    var steps: [ScenarioStep] = []
    var downloads: [ChaosDownload] = []
    /// Videos not requested yet, in a seeded order (`ChaosPlan.shuffledPool`).
    var pool: [String]
    /// The videos whose downloads need a license (`ChaosGenerator.protectedVideos`).
    let protected: Set<String>
    var targetSeconds: Double = 5
    /// Whether cellular is up between events (else only WiFi is).
    var cellularBase = false
    /// The user's cellular setting (set first thing).
    var allowsCellular = false
    /// What each event did, for the summary.
    var descriptions: [String] = []
    /// Estimated seconds since the launch, and when each of the engine's two transfer
    /// slots should be free (`ChaosPlan+Downloads.swift`).
    var clock = 0.0
    var slots = [0.0, 0.0]
    var crashes = 0
    var relaunchesThatFail = 0
    var backgrounds = 0
    var cancels = 0

    /// The states in which a download has settled or gone.
    static let settledOrGone: [AppState] = [.downloaded, .failed, .notDownloaded]

    /// What the plan is drawn from, and how many events it played.
    let genome: ChaosGenome
    var eventCount = 0

    init(genome: ChaosGenome, recorded: [ChaosRecordedVideo] = [], protected: Set<String> = ChaosCatalog.protected) {
        self.genome = genome
        self.protected = protected
        rng = SeededGenerator(seed: genome.seed).derived("chaos")
        pool = Self.shuffledPool(&rng, recorded: recorded)
    }

    var baseInterfaces: [InterfaceKind] { cellularBase ? [.wifi, .cellular] : [.wifi] }
    var live: [ChaosDownload] { downloads.filter { !$0.removed } }

    mutating func build() {
        targetSeconds = Double(rng.pick([4, 5, 6]))
        if rng.chance(0.5) {
            let delay = rng.duration(0.5...1.5)
            steps.append(.slowLicenseServer(delay))
            descriptions.append("license server \(Units.format(delay)) slow")
        }
        cellularBase = rng.chance(0.5)
        steps.append(.up(.wifi))
        if cellularBase { steps.append(.up(.cellular)) }
        steps += [.waitForPath(baseInterfaces), .launch]
        setAllowsCellular(rng.chance(0.5))
        for _ in 0..<rng.int(in: 2...3) { request() }
        let count = max(2, rng.int(in: 4...6) + genome.extraEvents)
        eventCount = count
        for index in 1...count {
            if let variant = genome.reroll(at: index) {
                rng = SeededGenerator(seed: genome.seed).derived("chaos-reroll-\(variant)")
            }
            event(index, of: count)
        }
        finish()
    }

    /// The end: every download settles (bounded), every one is inspected; sometimes one
    /// is deleted, and sometimes the packages are inspected with every interface down.
    mutating func finish() {
        steps.append(.note("chaos: the downloads settle, then the inspection"))
        settleEverything(timeout: .seconds(90))
        steps.append(.inspect(.all))
        let kept = live
        if !kept.isEmpty, rng.chance(0.35) {
            let doomed = rng.pick(kept).name
            steps += [.user(.delete, download: doomed), .inspect(.named([doomed]))]
            descriptions.append("\(doomed) deleted at the end")
        }
        if rng.chance(0.4) {
            steps.append(.down(.wifi))
            if cellularBase { steps.append(.down(.cellular)) }
            steps += [.waitForPath([]), .inspect(.all)]
            descriptions.append("inspected offline")
        }
    }
}

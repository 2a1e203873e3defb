import BenchCore
import Foundation

/// The seeds `bench chaos --seeds` names: `7`, `1..10`, `3,9,12`, or a mix (`1..5,9`),
/// in the order written, each once.
public enum ChaosSeeds {
    /// The most seeds one command may run.
    public static let maximumCount = 10_000

    /// The seeds of `text`.
    /// - Throws: `ChaosInputError` saying what is wrong and how to write it.
    public static func parse(_ text: String) throws(ChaosInputError) -> [UInt64] {
        let form = "write one seed (7), a range (1..10) or a list (3,9,12)"
        var seeds: [UInt64] = []
        var seen: Set<UInt64> = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false).map({ $0.trimmingCharacters(in: .whitespaces) }) {
            guard !part.isEmpty else { throw ChaosInputError("--seeds \"\(text)\" has an empty item; \(form)") }
            let bounds = part.components(separatedBy: "..")
            guard bounds.count <= 2, let low = UInt64(bounds[0]), let high = UInt64(bounds.last!) else {
                throw ChaosInputError("--seeds: \"\(part)\" is not a seed or a range of seeds (whole numbers, 0 or more); \(form)")
            }
            guard low <= high else { throw ChaosInputError("--seeds: the range \(part) is empty; write LOW..HIGH with LOW <= HIGH") }
            guard high - low < UInt64(maximumCount), seeds.count + Int(high - low) < maximumCount else {
                throw ChaosInputError("--seeds \"\(text)\" names more than \(maximumCount) seeds; run fewer at a time")
            }
            for seed in low...high where seen.insert(seed).inserted { seeds.append(seed) }
        }
        return seeds
    }
}

extension ChaosSeeds {
    /// `--shrink-time` as a duration, checked with `--shrink-runs` (0 or more).
    public static func shrinkTime(_ text: String, runs: Int) throws(ChaosInputError) -> Duration {
        guard runs >= 0 else { throw ChaosInputError("--shrink-runs must be 0 or more (0: no shrinking)") }
        do { return try Units.parseDuration(text) } catch { throw ChaosInputError("--shrink-time: \(error.reason)") }
    }
}

extension ChaosSeeds {
    /// `--guided` with its `--goal` (a number of meaningful pairs, or `all`), `--runs`
    /// and `--time-budget`, checked; nil without `--guided` (and then none of the three
    /// may be given).
    public static func guidance(
        guided: Bool, goal: String?, runs: Int?, timeBudget: String?, meaningfulPairs: Int
    ) throws(ChaosInputError) -> ChaosGuidance? {
        guard guided else {
            if goal != nil || runs != nil || timeBudget != nil {
                throw ChaosInputError("--goal, --runs and --time-budget bound a coverage-guided campaign: add --guided")
            }
            return nil
        }
        var guidance = ChaosGuidance()
        if let goal {
            if goal == "all" {
                guidance.goal = meaningfulPairs
            } else if let pairs = Int(goal), (1...meaningfulPairs).contains(pairs) {
                guidance.goal = pairs
            } else {
                throw ChaosInputError("--goal \"\(goal)\": write a number of meaningful pairs from 1 to \(meaningfulPairs), or all")
            }
        }
        if let runs {
            guard runs >= 1, runs <= maximumCount else {
                throw ChaosInputError("--runs must be from 1 to \(maximumCount) (the most inputs the campaign starts)")
            }
            guidance.runs = runs
        }
        if let timeBudget {
            do { guidance.timeBudget = try Units.parseDuration(timeBudget) } catch {
                throw ChaosInputError("--time-budget: \(error.reason)")
            }
        }
        return guidance
    }
}

/// Bad input to `bench chaos`: what is wrong and what to do.
public struct ChaosInputError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

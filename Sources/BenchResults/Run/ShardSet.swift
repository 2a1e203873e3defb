import Foundation

/// A shard's output as `bench merge` found it: the directory given and the record it
/// keeps (nil when the output is not a shard's).
public struct ShardInput: Sendable, Hashable {
    public var directory: String
    public var record: ShardRecord?

    /// An input.
    public init(directory: String, record: ShardRecord?) {
        self.directory = directory
        self.record = record
    }
}

/// The check `bench merge` makes before it joins anything: the outputs given are the
/// parts of one whole (the same command, commit, profile, seed, baseline, agent and
/// plan), each part once, none missing.
public enum ShardSet {
    /// The identity keys named first when several differ, in this order; others follow
    /// in name order.
    static let keyOrder = ["command", "commit", "deadzone", "profile", "seed", "baseline", "agent"]

    /// `parts` in shard order, each with its record, or the first reason they are not one
    /// whole's parts; `input` says where a part was read and what record it keeps.
    public static func order<Part>(
        _ parts: [Part], input: (Part) -> ShardInput
    ) throws(ShardMergeError) -> [(part: Part, input: ShardInput, record: ShardRecord)] {
        guard !parts.isEmpty else { throw .noInputs }
        var shards: [(part: Part, input: ShardInput, record: ShardRecord)] = []
        for part in parts {
            let given = input(part)
            guard let record = given.record else { throw .notAShard(directory: given.directory) }
            shards.append((part, given, record))
        }
        let reference = shards[0]
        for shard in shards.dropFirst() {
            let keys = Set(reference.record.identity.keys).union(shard.record.identity.keys)
            let ordered = keyOrder.filter(keys.contains) + keys.subtracting(keyOrder).sorted()
            for key in ordered where reference.record.identity[key] != shard.record.identity[key] {
                throw .mismatch(
                    key: key, first: reference.input.directory, firstValue: reference.record.identity[key] ?? "(none)",
                    other: shard.input.directory, otherValue: shard.record.identity[key] ?? "(none)")
            }
            if shard.record.count != reference.record.count {
                throw .mismatch(
                    key: "shard count", first: reference.input.directory, firstValue: String(reference.record.count),
                    other: shard.input.directory, otherValue: String(shard.record.count))
            }
            if shard.record.plan != reference.record.plan || shard.record.allUnits != reference.record.allUnits {
                throw .differentPlans(first: reference.input.directory, other: shard.input.directory)
            }
        }
        var byIndex: [Int: String] = [:]
        for shard in shards {
            if let earlier = byIndex[shard.record.index] {
                throw .doubled(spec: shard.record.spec, first: earlier, other: shard.input.directory)
            }
            byIndex[shard.record.index] = shard.input.directory
        }
        let count = reference.record.count
        let missing = (1...count).filter { byIndex[$0] == nil }
        if !missing.isEmpty {
            throw .missing(indices: missing, count: count, have: byIndex.keys.sorted().map { "\($0)/\(count) in \(byIndex[$0]!)" })
        }
        return shards.sorted { $0.record.index < $1.record.index }
    }
}

/// Why `bench merge` refused its inputs (exit 2): each names the directories and what to do.
public enum ShardMergeError: Error, Sendable, Hashable, CustomStringConvertible {
    case noInputs
    case notAShard(directory: String)
    case unreadable(directory: String, reason: String)
    case mixedKinds(first: String, firstKind: String, other: String, otherKind: String)
    case mismatch(key: String, first: String, firstValue: String, other: String, otherValue: String)
    case differentPlans(first: String, other: String)
    case doubled(spec: String, first: String, other: String)
    case missing(indices: [Int], count: Int, have: [String])
    case unitsDisagree(directory: String, detail: String)

    public var description: String {
        switch self {
        case .noInputs:
            "give the directories of every shard's output: bench merge DIR… (e.g. bench merge shard-1 shard-2 --out merged)"
        case let .notAShard(directory):
            "\(directory) is not a shard's output (it records no shard): bench merge joins the outputs of runs made with --shard i/n"
        case let .unreadable(directory, reason):
            "cannot read \(directory): \(reason)"
        case let .mixedKinds(first, firstKind, other, otherKind):
            "\(first) holds a \(firstKind) but \(other) a \(otherKind): merge the shards of one command at a time"
        case let .mismatch(key, first, firstValue, other, otherValue):
            "the shards differ in \(key): \(firstValue) in \(first), \(otherValue) in \(other); merge only shards of one "
                + "whole (the same commit, profile, seed, baseline and agent), and run again those that differ"
        case let .differentPlans(first, other):
            "\(first) and \(other) were split from different plans (another set of units, or other --durations): give "
                + "every shard the same inputs, so that they split the same whole"
        case let .doubled(spec, first, other):
            "shard \(spec) is given twice, in \(first) and in \(other): give each shard's output once"
        case let .missing(indices, count, have):
            "shard\(indices.count == 1 ? "" : "s") \(indices.map { "\($0)/\(count)" }.joined(separator: ", ")) "
                + "\(indices.count == 1 ? "is" : "are") missing (given: \(have.joined(separator: "; "))): give every shard's output"
        case let .unitsDisagree(directory, detail):
            "\(directory) does not hold what its shard record says: \(detail)"
        }
    }
}

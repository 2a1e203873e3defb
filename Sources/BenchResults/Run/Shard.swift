import Foundation

/// `--shard i/n`: this process plays the `i`-th of `n` parts of the work (1 ≤ i ≤ n), as
/// one job of a CI system's job matrix; `bench merge` joins the parts' outputs.
public struct ShardSpec: Sendable, Hashable, Codable, CustomStringConvertible {
    /// 1-based.
    public var index: Int
    public var count: Int

    /// A shard; `index` must lie in 1…`count`.
    public init(index: Int, count: Int) throws(ShardSpecError) {
        guard count >= 1 else { throw .noShards("\(index)/\(count)") }
        guard index >= 1, index <= count else { throw .outOfRange("\(index)/\(count)", index: index, count: count) }
        self.index = index
        self.count = count
    }

    /// `2/4`.
    public init(parsing text: String) throws(ShardSpecError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0].trimmingCharacters(in: .whitespaces)),
            let count = Int(parts[1].trimmingCharacters(in: .whitespaces))
        else { throw .malformed(text) }
        try self.init(index: index, count: count)
    }

    /// `2/4`.
    public var description: String { "\(index)/\(count)" }
}

/// Why a `--shard` value was refused.
public enum ShardSpecError: Error, Sendable, Hashable, CustomStringConvertible {
    case malformed(String)
    case noShards(String)
    case outOfRange(String, index: Int, count: Int)

    public var description: String {
        switch self {
        case let .malformed(text):
            "--shard \"\(text)\" is not INDEX/COUNT: give e.g. --shard 1/4 (the first of four shards)"
        case let .noShards(text):
            "--shard \(text): the count of shards must be at least 1 (e.g. --shard 1/4)"
        case let .outOfRange(text, index, count):
            "--shard \(text): shards are numbered 1 to \(count), so \(index) is not one; give --shard 1/\(count) … --shard \(count)/\(count)"
        }
    }
}

/// What a shard's outputs record of it (`report.json`'s `run.shard`, `matrix.json`'s and
/// `chaos.json`'s `shard`): which part of which whole it played, so that `bench merge`
/// can refuse parts of different wholes, or a whole with a part missing or given twice.
public struct ShardRecord: Sendable, Hashable, Codable {
    /// 1-based; `count` shards make the whole.
    public var index: Int
    public var count: Int
    /// The units of work this shard played (scenario names, `engine--profile/scenario`,
    /// `seed-N`), in the whole's order.
    public var units: [String]
    /// Every unit of the whole, in the order the unsharded run plays and reports them.
    public var allUnits: [String]
    /// A digest of the plan (every unit, the seconds it was balanced by, the count):
    /// shards planned from different inputs differ here.
    public var plan: String
    /// What every shard of one whole must share, by name: `command`, `commit`,
    /// `deadzone`, `profile`, `seed`, `agent`, `baseline` (a digest of the file, or
    /// `none`) and the like. `bench merge` names the first that differs.
    public var identity: [String: String]

    /// A record.
    public init(index: Int, count: Int, units: [String], allUnits: [String], plan: String, identity: [String: String]) {
        self.index = index
        self.count = count
        self.units = units
        self.allUnits = allUnits
        self.plan = plan
        self.identity = identity
    }

    /// `2/4`.
    public var spec: String { "\(index)/\(count)" }
}

/// One shard a merged output was made from: where it was read, which part it was, and
/// how long it took (the whole's wall time on a job matrix is the longest shard's).
public struct MergedShard: Sendable, Hashable, Codable {
    public var index: Int
    public var count: Int
    /// The directory `bench merge` read it from, as given.
    public var directory: String
    public var units: Int
    public var startedAt: Date?
    public var durationSeconds: Double?
    /// The host it ran on, when recorded.
    public var hostname: String?

    /// An entry.
    public init(
        index: Int, count: Int, directory: String, units: Int, startedAt: Date? = nil, durationSeconds: Double? = nil,
        hostname: String? = nil
    ) {
        self.index = index
        self.count = count
        self.directory = directory
        self.units = units
        self.startedAt = startedAt
        self.durationSeconds = durationSeconds
        self.hostname = hostname
    }
}

import Foundation

/// One unit of work a shard plan splits: a key unique in the whole (a scenario's name,
/// `engine--profile/scenario`, `seed-N`) and how long it took when last measured.
public struct ShardUnit: Sendable, Hashable {
    public var key: String
    /// Seconds, from a baseline or a previous run; nil when never measured.
    public var seconds: Double?

    /// A unit.
    public init(key: String, seconds: Double? = nil) {
        self.key = key
        self.seconds = seconds
    }
}

/// A stable, balanced split of a whole's units into shards: the same on every machine
/// for the same units, measured seconds and count (a pure function of them).
///
/// Longest first: units in order of their estimate, longest first (key order among
/// equals), each goes to the shard with the least estimated time so far (the lowest
/// index among equals). A unit never measured is estimated at the median of those that
/// were, or 1 s when none was: with no measurements every unit weighs the same and the
/// shards get counts that differ by at most one.
public struct ShardPlan: Sendable, Hashable {
    /// The whole's units, in the whole's order.
    public let units: [ShardUnit]
    public let count: Int
    /// For each unit (same order), its shard, 1-based.
    public let shardOfUnit: [Int]
    /// Each shard's estimated seconds (index 0 is shard 1).
    public let estimatedSeconds: [Double]

    /// The plan of `units` over `count` shards. Keys must be unique (the caller's units
    /// come from one whole).
    public init(units: [ShardUnit], count: Int) {
        self.units = units
        self.count = max(1, count)
        let known = units.compactMap(\.seconds).filter { $0.isFinite && $0 > 0 }.sorted()
        let fallback = known.isEmpty ? 1 : known[known.count / 2]
        let estimates = units.map { unit in unit.seconds.flatMap { $0.isFinite && $0 > 0 ? $0 : nil } ?? fallback }
        let order = units.indices.sorted { a, b in
            estimates[a] != estimates[b] ? estimates[a] > estimates[b] : units[a].key < units[b].key
        }
        var loads = [Double](repeating: 0, count: self.count)
        var shards = [Int](repeating: 1, count: units.count)
        for unit in order {
            var lightest = 0
            for shard in loads.indices where loads[shard] < loads[lightest] { lightest = shard }
            loads[lightest] += estimates[unit]
            shards[unit] = lightest + 1
        }
        shardOfUnit = shards
        estimatedSeconds = loads
    }

    /// The keys shard `index` (1-based) plays, in the whole's order.
    public func keys(ofShard index: Int) -> [String] {
        units.indices.filter { shardOfUnit[$0] == index }.map { units[$0].key }
    }

    /// A digest of what the plan was made from (keys, seconds, count): 16 hex digits
    /// (FNV-1a, 64 bits), the same on every machine.
    public var digest: String {
        var text = "count \(count)\n"
        for unit in units { text += "\(unit.key)\t\(unit.seconds.map { String(format: "%.3f", $0) } ?? "-")\n" }
        return Self.digest(Data(text.utf8))
    }

    /// 16 hex digits of FNV-1a (64 bits) over `bytes`: a fingerprint (of a plan, of a
    /// baseline file) that is the same on every machine; not a cryptographic hash.
    public static func digest(_ bytes: Data) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return String(format: "%016llx", hash)
    }

    /// The record shard `index`'s outputs keep of it, with `identity` (see `ShardRecord`).
    public func record(shard index: Int, identity: [String: String]) -> ShardRecord {
        ShardRecord(
            index: index, count: count, units: keys(ofShard: index), allUnits: units.map(\.key), plan: digest,
            identity: identity)
    }
}

/// Seconds per unit key, from earlier outputs, for `ShardPlan`: what `--durations`
/// reads and a baseline's `seconds` holds.
public enum ShardDurations {
    /// Each scenario's wall seconds in `report` (its end less its start), by name.
    public static func scenarioSeconds(_ report: RunReport) -> [String: Double] {
        var seconds: [String: Double] = [:]
        for scenario in report.scenarios where scenario.endNanoseconds > scenario.startNanoseconds {
            seconds[scenario.name] = Double(scenario.endNanoseconds - scenario.startNanoseconds) / 1e9
        }
        return seconds
    }
}

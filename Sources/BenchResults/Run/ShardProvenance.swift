import Foundation

/// What an output says of the shard it is, or of the shards it was merged from, in words:
/// one line per fact, for `report.html`, `matrix.html` and the `junit.xml` files'
/// `<properties>`. The same words everywhere, from `ShardRecord` and `MergedShard`.
/// Stateless.
public enum ShardProvenance {
    /// One fact: a short key (`shard`, `merged from`, `shard 2/4`) and its text.
    public struct Fact: Sendable, Hashable {
        public var key: String
        public var value: String

        /// A fact.
        public init(key: String, value: String) {
            self.key = key
            self.value = value
        }
    }

    /// The facts of a shard's own output, or of a merged one; empty for an output that is
    /// neither.
    public static func facts(shard: ShardRecord?, mergedFrom: [MergedShard]?) -> [Fact] {
        var facts: [Fact] = []
        if let shard {
            facts.append(Fact(key: "shard", value: shardText(shard)))
        }
        if let parts = mergedFrom, !parts.isEmpty {
            let longest = parts.compactMap(\.durationSeconds).max()
            facts.append(Fact(
                key: "merged from",
                value: "\(parts.count) shard\(parts.count == 1 ? "" : "s") by bench merge"
                    + (longest.map { String(format: "; the longest took %.0f s", $0) } ?? "")))
            for part in parts {
                facts.append(Fact(key: "shard \(part.index)/\(part.count)", value: partText(part)))
            }
        }
        return facts
    }

    /// `2 of 4: 3 of 12 units (a, b, c); plan 1a2b…; merge the 4 shards' directories with bench merge`.
    static func shardText(_ shard: ShardRecord) -> String {
        let listed = shard.units.isEmpty ? "nothing to play" : shard.units.joined(separator: ", ")
        return "\(shard.index) of \(shard.count): \(shard.units.count) of \(shard.allUnits.count) units (\(listed)); "
            + "plan \(shard.plan); a part only: `bench merge` joins the \(shard.count) shards' directories into the whole"
    }

    /// `out/shard-2: 3 units, 41 s, on runner-7, started 2026-…`.
    static func partText(_ part: MergedShard) -> String {
        var words = ["\(part.directory): \(part.units) unit\(part.units == 1 ? "" : "s")"]
        if let seconds = part.durationSeconds { words.append(String(format: "%.0f s", seconds)) }
        if let host = part.hostname { words.append("on \(host)") }
        if let started = part.startedAt { words.append("started \(started.formatted(.iso8601))") }
        return words.joined(separator: ", ")
    }
}

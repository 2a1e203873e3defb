import Foundation

/// The situation pairs a chaos campaign created, as `coverage.json` in its directory
/// holds them: the model's meaningful pairs with the inputs that created each (by label),
/// the other pairs, and the moments the coverage grew.
public struct ChaosCoverage: Sendable, Hashable, Codable {
    /// One moment the campaign reached a pair no input had: after how many inputs
    /// started and how long, how many meaningful pairs and pairs in all it then had,
    /// and the input that reached them.
    public struct Growth: Sendable, Hashable, Codable {
        public var runs: Int
        public var seconds: Double
        public var meaningful: Int
        public var pairs: Int
        public var by: String

        public init(runs: Int, seconds: Double, meaningful: Int, pairs: Int, by: String) {
            self.runs = runs
            self.seconds = seconds
            self.meaningful = meaningful
            self.pairs = pairs
            self.by = by
        }
    }

    public var coverage: RunCoverage
    public var growth: [Growth]

    public init(coverage: RunCoverage, growth: [Growth]) {
        self.coverage = coverage
        self.growth = growth
    }

    /// Every pair created, meaningful or not.
    public var pairs: Int { coverage.covered + coverage.otherPairs.count }

    /// Writes it as pretty, key-sorted JSON to `path`.
    public func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(self).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    /// The coverage a campaign wrote to `path`.
    public static func read(from path: String) throws -> ChaosCoverage {
        try JSONDecoder().decode(ChaosCoverage.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    }
}

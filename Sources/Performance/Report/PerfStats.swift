/// The arithmetic of the benchmarks: pure functions over measured samples.
public enum PerfStats {
    /// Nearest-rank percentile of `values` (sorted or not): the smallest value with at least
    /// `p`% of the values at or below it; 0 for no values.
    public static func percentile(_ values: [Double], _ p: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(sorted.count - 1, max(0, rank - 1))]
    }

    public static func mean(_ values: [Double]) -> Double {
        values.isEmpty ? 0 : values.reduce(0, +) / Double(values.count)
    }

    /// Jain's fairness index: (Σx)² / (n·Σx²); 1 is perfectly fair, 1/n is one flow taking
    /// everything; 0 for no values or all zero.
    public static func jain(_ values: [Double]) -> Double {
        let sum = values.reduce(0, +)
        let squares = values.reduce(0) { $0 + $1 * $1 }
        return squares == 0 ? 0 : sum * sum / (Double(values.count) * squares)
    }

    /// `numerator / denominator`, or 0 when the denominator is not positive (a ratio a report
    /// can hold: JSON has no infinity). E.g. achieved rate / target rate, proxy / direct.
    public static func ratio(_ numerator: Double, _ denominator: Double) -> Double {
        denominator > 0 ? numerator / denominator : 0
    }

    /// How many values fall in each bucket of `edges` (ascending): below `edges[0]`, then
    /// [edges[i-1], edges[i]), …, and at or above the last edge — `edges.count + 1` counts.
    public static func histogram(_ values: [Double], edges: [Double]) -> [Int] {
        var counts = [Int](repeating: 0, count: edges.count + 1)
        for value in values { counts[edges.firstIndex { value < $0 } ?? edges.count] += 1 }
        return counts
    }
}

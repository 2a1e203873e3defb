import Testing
@testable import Performance

/// The arithmetic every section's figures come from.
@Suite struct PerfStatsTests {
    // MARK: Percentiles (nearest rank)

    @Test func percentileOfNoSamplesIsZero() {
        #expect(PerfStats.percentile([], 50) == 0)
        #expect(PerfStats.percentile([], 99) == 0)
    }

    @Test func percentileOfOneSampleIsThatSample() {
        #expect(PerfStats.percentile([7.5], 0) == 7.5)
        #expect(PerfStats.percentile([7.5], 50) == 7.5)
        #expect(PerfStats.percentile([7.5], 99) == 7.5)
        #expect(PerfStats.percentile([7.5], 100) == 7.5)
    }

    /// The textbook nearest-rank example: 15, 20, 35, 40, 50, given out of order.
    @Test func percentileIsTheNearestRank() {
        let samples: [Double] = [40, 15, 50, 35, 20]
        #expect(PerfStats.percentile(samples, 5) == 15)
        #expect(PerfStats.percentile(samples, 30) == 20)
        #expect(PerfStats.percentile(samples, 40) == 20)
        #expect(PerfStats.percentile(samples, 50) == 35)
        #expect(PerfStats.percentile(samples, 99) == 50)
        #expect(PerfStats.percentile(samples, 100) == 50)
    }

    /// p50 of an even count is the lower middle sample (no interpolation); p99 of 100
    /// samples is the 99th, of 10 samples the largest.
    @Test func percentileOfEvenCountsAndOfOneHundred() {
        #expect(PerfStats.percentile([1, 2, 3, 4], 50) == 2)
        let hundred = (1...100).map(Double.init).reversed().map { $0 }
        #expect(PerfStats.percentile(hundred, 50) == 50)
        #expect(PerfStats.percentile(hundred, 99) == 99)
        #expect(PerfStats.percentile((1...10).map(Double.init), 99) == 10)
    }

    @Test func percentileWithTiesReturnsTheTiedValue() {
        let samples: [Double] = [5, 1, 5, 5, 9]
        #expect(PerfStats.percentile(samples, 50) == 5)
        #expect(PerfStats.percentile(samples, 20) == 1)
        #expect(PerfStats.percentile(samples, 80) == 5)
        #expect(PerfStats.percentile(samples, 99) == 9)
        #expect(PerfStats.percentile([3, 3, 3], 99) == 3)
    }

    @Test func meanOfSamplesAndOfNone() {
        #expect(PerfStats.mean([]) == 0)
        #expect(PerfStats.mean([2, 4, 9]) == 5)
    }

    // MARK: Jain's fairness index

    @Test func jainIsOneForEqualShares() {
        #expect(PerfStats.jain([2_500_000, 2_500_000, 2_500_000, 2_500_000]) == 1)
        #expect(PerfStats.jain([42]) == 1)
    }

    @Test func jainIsOneOverNWhenOneFlowTakesEverything() {
        #expect(PerfStats.jain([10, 0, 0, 0]) == 0.25)
        #expect(PerfStats.jain([0, 7]) == 0.5)
    }

    @Test func jainOfUnequalShares() {
        // (1+2+3+4)² / (4 · (1+4+9+16)) = 100 / 120
        #expect(abs(PerfStats.jain([1, 2, 3, 4]) - 100.0 / 120) < 1e-12)
        // A 30/20/25/25 split (percent) is still above the 0.95 target: 10000 / (4 · 2550).
        #expect(abs(PerfStats.jain([30, 20, 25, 25]) - 10_000.0 / 10_200) < 1e-12)
    }

    @Test func jainOfNothingIsZero() {
        #expect(PerfStats.jain([]) == 0)
        #expect(PerfStats.jain([0, 0, 0]) == 0)
    }

    // MARK: Ratios and histograms

    @Test func ratioDividesAndIsZeroForANonPositiveDenominator() {
        #expect(PerfStats.ratio(9.8e6, 10e6) == 0.98)
        #expect(PerfStats.ratio(6, 16) == 0.375)
        #expect(PerfStats.ratio(5, 0) == 0)
        #expect(PerfStats.ratio(5, -1) == 0)
        #expect(PerfStats.ratio(0, 3) == 0)
    }

    @Test func histogramPutsEachValueInTheBucketBelowItsUpperEdge() {
        let edges: [Double] = [0.25, 0.5, 1, 2, 5]
        // Buckets: <0.25, [0.25,0.5), [0.5,1), [1,2), [2,5), ≥5; an edge value goes up.
        let counts = PerfStats.histogram([-0.1, 0.1, 0.25, 0.49, 0.5, 1.99, 2, 4.9, 5, 80], edges: edges)
        #expect(counts == [2, 2, 1, 1, 2, 2])
        #expect(PerfStats.histogram([], edges: edges) == [0, 0, 0, 0, 0, 0])
    }
}

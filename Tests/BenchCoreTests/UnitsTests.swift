import Testing
@testable import BenchCore

/// Parsing and printing of rates, sizes, durations and probabilities, table-driven.
struct UnitsTests {
    // MARK: - Rates

    @Test(arguments: [
        ("780kbit/s", 780_000.0),
        ("780kbps", 780_000),
        ("780 kbit/s", 780_000),
        ("780Kbps", 780_000),
        ("1.44Mbit/s", 1_440_000),
        ("8.1mbps", 8_100_000),
        ("1.35Mbit/s", 1_350_000),
        ("675kbit/s", 675_000),
        ("2Gbit/s", 2e9),
        ("1000000", 1_000_000),
        ("1e6", 1_000_000),
        ("500bit/s", 500),
        ("500bps", 500),
        ("50KB/s", 400_000),
        ("1KiB/s", 8_192),
        ("1MBps", 8_000_000),
        ("0", 0),
    ])
    func rates(text: String, bitsPerSecond: Double) throws {
        #expect(try Units.parseRate(text) == .constant(bitsPerSecond: bitsPerSecond))
    }

    @Test func unlimitedRate() throws {
        #expect(try Units.parseRate("unlimited") == .unlimited)
        #expect(try Units.parseRate("Unlimited") == .unlimited)
    }

    @Test(arguments: ["", "fast", "780kbits", "-5kbit/s", "780 kb", "1Kibit/s", ".nan", "inf", "1.2.3Mbit/s", "Mbit/s"])
    func rejectedRates(text: String) {
        #expect(throws: UnitError.self) { try Units.parseRate(text) }
    }

    @Test func rateErrorsSayWhatIsAllowed() {
        #expect(throws: UnitError.self) { try Units.parseRate("780kbits") }
        do {
            _ = try Units.parseRate("-5kbit/s")
        } catch {
            #expect(error.reason.contains("negative"))
            #expect(error.reason.contains("780kbit/s, 1.5Mbit/s or unlimited"))
        }
    }

    // MARK: - Sizes

    @Test(arguments: [
        ("1500", 1500),
        ("1500B", 1500),
        ("64KiB", 65_536),
        ("256KiB", 262_144),
        ("1MB", 1_000_000),
        ("5MB", 5_000_000),
        ("10 MB", 10_000_000),
        ("1KB", 1000),
        ("1kB", 1000),
        ("1.5MiB", 1_572_864),
        ("1GiB", 1 << 30),
        ("0", 0),
    ])
    func sizes(text: String, bytes: Int) throws {
        #expect(try Units.parseSize(text) == bytes)
    }

    @Test(arguments: ["", "-1", "1Mb", "1mb", "5 megabytes", "KiB", "1e40"])
    func rejectedSizes(text: String) {
        #expect(throws: UnitError.self) { try Units.parseSize(text) }
    }

    // MARK: - Durations

    @Test(arguments: [
        ("100ms", Duration.milliseconds(100)),
        ("2s", .seconds(2)),
        ("1.5s", .milliseconds(1500)),
        ("10m", .seconds(600)),
        ("10min", .seconds(600)),
        ("1h", .seconds(3600)),
        ("562.5ms", .microseconds(562_500)),
        ("281.25ms", .microseconds(281_250)),
        ("1m30s", .seconds(90)),
        ("1h2m3s", .seconds(3723)),
        ("250us", .microseconds(250)),
        ("250µs", .microseconds(250)),
        ("7ns", .nanoseconds(7)),
        ("0", .zero),
        ("0s", .zero),
        (" 2 s ", .seconds(2)),
    ])
    func durations(text: String, duration: Duration) throws {
        #expect(try Units.parseDuration(text) == duration)
    }

    @Test(arguments: ["", "5", "-1s", "2 seconds", "1.5", "ms", "1s2", ".nan", "1d", "fast"])
    func rejectedDurations(text: String) {
        #expect(throws: UnitError.self) { try Units.parseDuration(text) }
    }

    @Test func bareNumberDurationNeedsAUnit() {
        do {
            _ = try Units.parseDuration("5")
            Issue.record("5 should need a unit")
        } catch {
            #expect(error.reason.contains("no unit"))
        }
    }

    // MARK: - Probabilities

    @Test(arguments: [
        ("1%", 0.01),
        ("0.5%", 0.005),
        ("100%", 1.0),
        ("10%", 0.1),
        ("0.01", 0.01),
        ("0", 0.0),
        ("1", 1.0),
        ("0%", 0.0),
    ])
    func probabilities(text: String, value: Double) throws {
        #expect(try Units.parseProbability(text) == value)
    }

    @Test(arguments: ["", "5", "101%", "-1%", "-0.1", "1.5", ".nan", "half", "%"])
    func rejectedProbabilities(text: String) {
        #expect(throws: UnitError.self) { try Units.parseProbability(text) }
    }

    @Test func percentageHint() {
        do {
            _ = try Units.parseProbability("5")
            Issue.record("5 should be refused")
        } catch {
            #expect(error.reason.contains("write 5%"))
        }
    }

    // MARK: - Printing

    @Test func printingReadsBack() throws {
        #expect(Units.format(bitsPerSecond: 780_000) == "780kbit/s")
        #expect(Units.format(bitsPerSecond: 1_440_000) == "1.44Mbit/s")
        #expect(Units.format(bitsPerSecond: 8_100_000) == "8.1Mbit/s")
        #expect(Units.format(bitsPerSecond: 500) == "500bit/s")
        #expect(Units.format(.unlimited) == "unlimited")
        #expect(Units.format(bytes: 262_144) == "256KiB")
        #expect(Units.format(bytes: 5_000_000) == "5MB")
        #expect(Units.format(bytes: 1500) == "1500B")
        #expect(Units.format(Duration.milliseconds(100)) == "100ms")
        #expect(Units.format(Duration.microseconds(562_500)) == "562.5ms")
        #expect(Units.format(Duration.milliseconds(1500)) == "1.5s")
        #expect(Units.format(Duration.seconds(600)) == "10m")
        #expect(Units.format(Duration.seconds(90)) == "1m30s")
        #expect(Units.format(Duration.seconds(3600)) == "1h")
        #expect(Units.format(Duration.zero) == "0s")
        #expect(Units.format(probability: 0.01) == "1%")
        #expect(Units.format(probability: 0.005) == "0.5%")
        for text in ["780kbit/s", "1.44Mbit/s", "8.1Mbit/s"] {
            let rate = try Units.parseRate(text)
            #expect(Units.format(rate) == text)
        }
        for text in ["100ms", "562.5ms", "1.5s", "10m", "1m30s"] {
            #expect(Units.format(try Units.parseDuration(text)) == text)
        }
    }
}

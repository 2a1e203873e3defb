import Foundation
import Testing
@testable import Performance

/// Reading `Perf/thresholds.yaml`: a good file, the committed one, and each way a file can be
/// broken, which must be a typed error naming the key (and line) and saying what to do.
@Suite struct PerfGateThresholdsTests {
    static let good = """
        # a comment
        debug:
          proxy-over-forwarder: 0.25   # floors
          proxy-over-direct: 0.1
          engine-goodput: 0.6
        release: not measured
        """

    func load(_ text: String) throws(PerfGateThresholdsError) -> PerfGateThresholds {
        try PerfGateThresholds.load(yaml: text, file: "t.yaml")
    }

    /// What `load` throws for `text` (a failure of the test when it throws nothing).
    func error(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> PerfGateThresholdsError? {
        do {
            let thresholds = try load(text)
            Issue.record("expected an error, read \(thresholds)", sourceLocation: sourceLocation)
            return nil
        } catch { return error }
    }

    @Test func aGoodFileHoldsOneSetPerBuildConfiguration() throws {
        let thresholds = try load(Self.good)
        #expect(thresholds.path == "t.yaml")
        #expect(thresholds.set(for: .debug) == .floors([.proxyOverForwarder: 0.25, .proxyOverDirect: 0.1, .engineGoodput: 0.6]))
        #expect(thresholds.set(for: .release) == .notMeasured)
    }

    @Test func bothSetsMayHoldFloors() throws {
        let text = Self.good.replacingOccurrences(
            of: "release: not measured",
            with: "release:\n  engine-goodput: 0.8\n  proxy-over-direct: 0.2\n  proxy-over-forwarder: 1000")
        #expect(try load(text).set(for: .release) == .floors([.proxyOverForwarder: 1000, .proxyOverDirect: 0.2, .engineGoodput: 0.8]))
    }

    /// The file the gate reads in CI parses, and its debug set has every ratio (the gate
    /// fails without it). Found from this file's path: Tests/PerformanceTests/ → the root.
    @Test func theCommittedFileParses() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let path = root.appendingPathComponent(PerfGateConfiguration.defaultThresholdsPath).path
        let thresholds = try PerfGateThresholds.load(contentsOf: path)
        guard case .floors(let floors) = thresholds.set(for: .debug) else {
            Issue.record("the committed debug thresholds are `not measured`: CI runs a debug build")
            return
        }
        #expect(Set(floors.keys) == Set(PerfGateRatio.allCases))
        #expect(floors.values.allSatisfy { $0 > 0 && $0 < 1.5 })
    }

    @Test func aMissingRatioIsNamedWithWhatToDo() {
        let broken = error(Self.good.replacingOccurrences(of: "  engine-goodput: 0.6\n", with: ""))
        #expect(broken == .missingKey(path: "t.yaml", key: "debug.engine-goodput"))
        #expect(broken?.key == "debug.engine-goodput")
        #expect(broken?.description.contains("t.yaml: no `debug.engine-goodput`: add it") == true)
    }

    @Test func aMissingConfigurationSaysHowToMarkItNotMeasured() {
        let broken = error(Self.good.replacingOccurrences(of: "release: not measured", with: ""))
        #expect(broken == .missingKey(path: "t.yaml", key: "release"))
        #expect(broken?.description.contains("or write `release: not measured`") == true)
    }

    /// A misspelt ratio would go unchecked if it were ignored: it is an error, with its line.
    @Test func anUnknownKeyIsRefusedWithItsLine() {
        let broken = error(Self.good.replacingOccurrences(of: "proxy-over-forwarder", with: "proxy-over-fowarder"))
        #expect(broken?.key == "debug.proxy-over-fowarder")
        #expect(broken?.description.hasPrefix("t.yaml:3: unknown key `debug.proxy-over-fowarder`: expected one of "
                                              + "proxy-over-forwarder, proxy-over-direct, engine-goodput") == true)
        let configuration = error(Self.good + "\nrelase: not measured")
        #expect(configuration?.key == "relase")
    }

    @Test func aValueThatIsNotARatioAboveZeroIsRefused() {
        for bad in ["fast", "0", "-0.3", "nan", ".inf", "[0.5]"] {
            let broken = error(Self.good.replacingOccurrences(of: "engine-goodput: 0.6", with: "engine-goodput: \(bad)"))
            #expect(broken?.key == "debug.engine-goodput", "\(bad)")
            #expect(broken?.description.contains("t.yaml:5: `debug.engine-goodput` is ") == true, "\(bad)")
            #expect(broken?.description.contains("write a ratio, a number above 0") == true, "\(bad)")
        }
        let twice = error(Self.good.replacingOccurrences(of: "  engine-goodput: 0.6", with: "  engine-goodput: 0.6\n  engine-goodput: 0.7"))
        // Yams refuses a duplicate key itself, naming it.
        guard case .invalidYAML = twice else {
            Issue.record("a ratio given twice must be refused, got \(String(describing: twice))")
            return
        }
        #expect(twice?.description.contains("duplicated key(s): 'engine-goodput'") == true)
    }

    @Test func aConfigurationMustBeFloorsOrNotMeasured() {
        let broken = error(Self.good.replacingOccurrences(of: "release: not measured", with: "release: later"))
        #expect(broken == .invalidValue(path: "t.yaml", line: 6, key: "release", found: "later"))
        #expect(broken?.description.contains("or `not measured`") == true)
    }

    @Test func textThatIsNotYAMLOrNotAMappingIsRefused() {
        guard case .invalidYAML(_, let line, _) = error("debug:\n  proxy-over-direct: [0.1\n") else {
            Issue.record("expected invalidYAML")
            return
        }
        #expect(line != nil)
        guard case .invalidYAML = error("- 0.5\n- 0.6\n") else {
            Issue.record("a list at the top must be invalidYAML")
            return
        }
    }

    @Test func anUnreadableFileSaysToPassThePath() {
        #expect(throws: PerfGateThresholdsError.self) { try PerfGateThresholds.load(contentsOf: "/nonexistent/thresholds.yaml") }
        do {
            _ = try PerfGateThresholds.load(contentsOf: "/nonexistent/thresholds.yaml")
        } catch {
            #expect(error.key == nil)
            #expect(error.description.contains("cannot read the performance thresholds file /nonexistent/thresholds.yaml"))
            #expect(error.description.contains("--thresholds PATH"))
        }
    }
}

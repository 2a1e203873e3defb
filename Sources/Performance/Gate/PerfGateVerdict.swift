import Foundation

/// One ratio judged against its floor.
public struct PerfGateCheck: Codable, Sendable, Equatable {
    public var ratio: PerfGateRatio
    /// The measured ratio; nil when it was not measured or is not a finite number.
    public var measured: Double?
    public var threshold: Double
    public var pass: Bool
    /// Why it failed, when it did: "below its threshold", "not measured", "not a finite number (nan)".
    public var problem: String?

    /// "PASS  proxy-over-forwarder  0.412 ≥ 0.250  (conditioner / bare forwarder, …)".
    public var line: String {
        let value = measured.map { String(format: "%.3f", $0) } ?? "-"
        let comparison = pass ? "\(value) ≥ \(Self.format(threshold))"
            : measured == nil ? "\(problem ?? "not measured"), threshold \(Self.format(threshold))"
            : "\(value) < threshold \(Self.format(threshold))"
        return "\(pass ? "PASS" : "FAIL")  \(ratio.rawValue.padding(toLength: 22, withPad: " ", startingAt: 0))"
            + "\(comparison)  (\(ratio.meaning))"
    }

    static func format(_ value: Double) -> String { String(format: "%.3f", value) }
}

/// The gate's decision: every ratio of the build configuration's set against its floor.
/// A ratio that is missing, NaN or infinite fails; a configuration without thresholds
/// (`notMeasured`) fails too, saying so: the gate never passes without judging.
public struct PerfGateVerdict: Codable, Sendable, Equatable {
    public var configuration: PerfBuildConfiguration
    /// The thresholds file, as given.
    public var thresholdsPath: String
    /// False when the file marks this configuration `not measured`.
    public var hasThresholds: Bool
    public var checks: [PerfGateCheck]

    public var passed: Bool { hasThresholds && checks.allSatisfy(\.pass) }
    public var failures: [PerfGateCheck] { checks.filter { !$0.pass } }

    /// Judges `measured` (ratios the run obtained; a failed measurement is absent) against
    /// the set `thresholds` holds for `configuration`. Pure.
    public static func judge(measured: [PerfGateRatio: Double], thresholds: PerfGateThresholds,
                             configuration: PerfBuildConfiguration) -> PerfGateVerdict {
        guard case .floors(let floors) = thresholds.set(for: configuration) else {
            return PerfGateVerdict(configuration: configuration, thresholdsPath: thresholds.path, hasThresholds: false, checks: [])
        }
        let checks = PerfGateRatio.allCases.map { ratio -> PerfGateCheck in
            // A set always holds all three (the reader insists); a missing floor still fails, loudly.
            guard let floor = floors[ratio] else {
                return PerfGateCheck(ratio: ratio, measured: measured[ratio], threshold: 0, pass: false,
                                     problem: "no threshold in \(thresholds.path)")
            }
            guard let value = measured[ratio] else {
                return PerfGateCheck(ratio: ratio, measured: nil, threshold: floor, pass: false, problem: "not measured")
            }
            guard value.isFinite else {
                return PerfGateCheck(ratio: ratio, measured: nil, threshold: floor, pass: false,
                                     problem: "not a finite number (\(value))")
            }
            let pass = value >= floor
            return PerfGateCheck(ratio: ratio, measured: value, threshold: floor, pass: pass,
                                 problem: pass ? nil : "below its threshold")
        }
        return PerfGateVerdict(configuration: configuration, thresholdsPath: thresholds.path, hasThresholds: true, checks: checks)
    }

    /// The lines printed after the summary: one per ratio, then the decision naming each
    /// failed ratio with its value and threshold.
    public var lines: [String] {
        var lines = ["", "Gate: \(configuration.rawValue) build, thresholds from \(thresholdsPath)"]
        guard hasThresholds else {
            return lines + [
                "bench perf gate: FAILED: \(thresholdsPath) marks the \(configuration.rawValue) thresholds `not measured`, "
                    + "so the figures above were not gated. Measure the ratios in a \(configuration.rawValue) build "
                    + "(the file's comments say how) and commit them.",
            ]
        }
        lines += checks.map { "  " + $0.line }
        if passed {
            lines.append("bench perf gate: passed (\(checks.count) of \(checks.count) ratios at or above their thresholds)")
        } else {
            let named = failures.map { check in
                "\(check.ratio.rawValue) " + (check.measured.map { String(format: "%.3f", $0) + " < " } ?? "\(check.problem ?? "not measured"), threshold ")
                    + PerfGateCheck.format(check.threshold)
            }
            lines.append("bench perf gate: FAILED (\(failures.count) of \(checks.count) ratios): " + named.joined(separator: "; "))
        }
        return lines
    }
}

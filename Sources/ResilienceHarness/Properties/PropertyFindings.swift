import BenchCore

/// What a rule found while judging: violations and supporting evidence, turned into
/// a `Verdict` at the end. A rule owns one and fills it as it walks the trace.
struct PropertyFindings {
    let property: String
    private(set) var violations: [Evidence] = []
    private(set) var support: [Evidence] = []
    /// Cases the rule checked (downloads, outages, inspections…), for "not applicable".
    private(set) var checked = 0

    init(_ property: String) {
        self.property = property
    }

    /// A fact that breaks the property: the obligation of `ObligationModel` it broke.
    mutating func violation(_ t: UInt64, _ text: String, broke obligation: Obligation) {
        violations.append(Evidence(t: t, text, obligation: obligation.rawValue))
    }

    /// A fact that supports the property (or was noted and excused).
    mutating func support(_ t: UInt64, _ text: String) {
        support.append(Evidence(t: t, text))
    }

    /// Counts one case the rule judged.
    mutating func checkedOne() {
        checked += 1
    }

    var hasViolations: Bool { !violations.isEmpty }

    /// The verdict: failed when any violation was found (evidence = the violations),
    /// not applicable when nothing was checked, else passed (evidence = the support).
    func verdict(passed: String, failed: String, notApplicable: String) -> Verdict {
        if hasViolations {
            return Verdict(property: property, outcome: .failed, summary: failed, evidence: ordered(violations))
        }
        if checked == 0 {
            return Verdict(property: property, outcome: .notApplicable, summary: notApplicable, evidence: ordered(support))
        }
        return Verdict(property: property, outcome: .passed, summary: passed, evidence: ordered(support))
    }

    private func ordered(_ evidence: [Evidence]) -> [Evidence] {
        evidence.enumerated().sorted { ($0.element.t, $0.offset) < ($1.element.t, $1.offset) }.map(\.element)
    }
}

/// How evidence writes times and durations.
enum Wording {
    /// Trace time in seconds with milliseconds, e.g. `12.300 s`.
    static func time(_ t: UInt64) -> String {
        seconds(t)
    }

    /// A duration in seconds with milliseconds, e.g. `0.850 s`.
    static func seconds(_ nanoseconds: UInt64) -> String {
        let millis = nanoseconds / 1_000_000
        let fraction = String(millis % 1000)
        return "\(millis / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction) s"
    }

    /// A bound, e.g. `15.000 s`.
    static func bound(_ duration: Duration) -> String {
        seconds(duration.nanoseconds)
    }

    /// "a, b, c and 4 more": at most `shown` items, then how many were left out.
    static func list(_ items: [String], shown: Int = 3) -> String {
        guard items.count > shown else { return items.joined(separator: ", ") }
        return items.prefix(shown).joined(separator: ", ") + " and \(items.count - shown) more"
    }

    /// `count` followed by `noun`, or by `plural` (default: `noun` + `s`) when count is not 1.
    static func count(_ count: Int, _ noun: String, plural: String? = nil) -> String {
        "\(count) \(count == 1 ? noun : plural ?? noun + "s")"
    }

    /// The first violation's text, to put in a summary.
    static func first(_ findings: PropertyFindings) -> String {
        findings.violations.min { $0.t < $1.t }?.text ?? ""
    }
}

extension UInt64 {
    /// `self + other`, held at `UInt64.max` instead of trapping (a huge bound in a context).
    func plus(_ other: UInt64) -> UInt64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? .max : sum
    }
}

extension Int {
    /// `self + other`, held at the bounds instead of trapping (byte counts from a bad trace).
    func plus(_ other: Int) -> Int {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }
}

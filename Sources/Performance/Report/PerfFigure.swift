/// A target a figure must meet: the bound that decides pass or miss, and how it is printed.
///
/// Made by the benchmarks for each figure they judge; `PerfFigure` stores only its text
/// and the verdict, so a report's JSON holds `"target": "≥ 9 Gbit/s", "pass": true`.
public struct PerfTarget: Sendable, Equatable {
    public enum Bound: Sendable, Equatable {
        /// value ≥ bound.
        case atLeast(Double)
        /// value ≤ bound.
        case atMost(Double)
        /// value < bound.
        case below(Double)
        /// |value − center| ≤ tolerance.
        case within(tolerance: Double, of: Double)
        /// value == bound.
        case equal(Double)
    }

    public var bound: Bound
    /// As printed: "≥ 9 Gbit/s", "1 ± 0.02", "yes".
    public var text: String

    public init(_ bound: Bound, text: String) {
        self.bound = bound
        self.text = text
    }

    /// "≥ 9 Gbit/s" (no unit: "≥ 0.33").
    public static func atLeast(_ value: Double, _ unit: String = "") -> PerfTarget {
        PerfTarget(.atLeast(value), text: "≥ " + PerfFormat.plain(value) + (unit.isEmpty ? "" : " " + unit))
    }

    /// "≤ 2 ms".
    public static func atMost(_ value: Double, _ unit: String = "") -> PerfTarget {
        PerfTarget(.atMost(value), text: "≤ " + PerfFormat.plain(value) + (unit.isEmpty ? "" : " " + unit))
    }

    /// "1 ± 0.02".
    public static func within(_ tolerance: Double, of center: Double) -> PerfTarget {
        PerfTarget(.within(tolerance: tolerance, of: center),
                   text: PerfFormat.plain(center) + " ± " + PerfFormat.plain(tolerance))
    }

    /// Whether `value` meets the bound. NaN meets none.
    public func isMet(by value: Double) -> Bool {
        switch bound {
        case .atLeast(let bound): value >= bound
        case .atMost(let bound): value <= bound
        case .below(let bound): value < bound
        case .within(let tolerance, let center): abs(value - center) <= tolerance
        case .equal(let bound): value == bound
        }
    }
}

/// One measured figure, with its target when it has one.
public struct PerfFigure: Codable, Sendable, Equatable {
    public var label: String
    public var value: Double
    public var unit: String
    /// The value as printed.
    public var display: String
    /// E.g. "≥ 9 Gbit/s"; nil when the figure is informational.
    public var target: String?
    /// Whether the figure met its target; nil without a target.
    public var pass: Bool?

    /// An informational figure, or one judged against `target`: it passes when `precondition`
    /// holds (e.g. "the download completed byte-exact") and `value` meets the target.
    public init(_ label: String, _ value: Double, unit: String, display: String? = nil, target: PerfTarget? = nil,
                precondition: Bool = true) {
        self.label = label
        self.value = value
        self.unit = unit
        self.display = display ?? PerfFormat.number(value) + (unit.isEmpty ? "" : " " + unit)
        self.target = target?.text
        self.pass = target.map { precondition && $0.isMet(by: value) }
    }
}

/// The figures of one section of a benchmark.
public struct PerfSection: Codable, Sendable, Equatable {
    /// The `--only` name: "throughput", "segments", "goodput", …
    public var id: String
    public var title: String
    /// How the figures were measured, in a sentence or two.
    public var method: String
    public var figures: [PerfFigure] = []
    public var notes: [String] = []
    /// Set when the section could not be measured.
    public var error: String?
    /// Wall time the section took.
    public var seconds: Double = 0

    public init(id: String, title: String, method: String, figures: [PerfFigure] = [], notes: [String] = [],
                error: String? = nil, seconds: Double = 0) {
        self.id = id
        self.title = title
        self.method = method
        self.figures = figures
        self.notes = notes
        self.error = error
        self.seconds = seconds
    }

    /// Appends `message` to the section's error ("a; b" when there is one already).
    mutating func addError(_ message: String) {
        error = (error.map { $0 + "; " } ?? "") + message
    }
}

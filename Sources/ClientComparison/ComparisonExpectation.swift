/// An outcome a comparison must give, e.g. `ffmpeg:clean=ok` or `deadzone:*=ok`:
/// `bench compare --expect` fails (exit 1) when a run does not come out so, which
/// turns a comparison into a regression check.
public struct ComparisonExpectation: Sendable, Hashable, CustomStringConvertible {
    public var client: String
    /// nil: every mode that ran.
    public var mode: FaultMode?
    public var outcome: ClientOutcome

    /// Parses `CLIENT:MODE=OUTCOME` (`MODE` may be `*`).
    public init(parsing text: String) throws(ClientDefinitionError) {
        let usage = "--expect takes CLIENT:MODE=OUTCOME, e.g. ffmpeg:clean=ok or deadzone:*=ok; outcomes: "
            + ClientOutcome.allCases.map(\.rawValue).joined(separator: ", ")
        let sides = text.split(separator: "=", maxSplits: 1).map(String.init)
        guard sides.count == 2, let outcome = ClientOutcome(rawValue: sides[1]) else {
            throw .invalid(client: text, reason: usage)
        }
        let target = sides[0].split(separator: ":", maxSplits: 1).map(String.init)
        guard target.count == 2, !target[0].isEmpty else { throw .invalid(client: text, reason: usage) }
        if target[1] == "*" {
            mode = nil
        } else if let mode = FaultMode(rawValue: target[1]) {
            self.mode = mode
        } else {
            throw .invalid(client: text, reason: "unknown fault mode \"\(target[1])\"; " + usage)
        }
        client = target[0]
        self.outcome = outcome
    }

    public var description: String {
        "\(client):\(mode?.rawValue ?? "*")=\(outcome.rawValue)"
    }

    /// Each way `report` breaks this expectation, in words; empty when it holds. A
    /// client or mode the report does not have breaks it too (a typo must not pass).
    public func violations(in report: ComparisonReport) -> [String] {
        let runs = report.runs.filter { $0.client == client && (mode == nil || $0.mode == mode) }
        guard !runs.isEmpty else { return ["\(self): the comparison has no such run"] }
        return runs.filter { $0.outcome != outcome }.map {
            "\(self): \($0.client) × \($0.mode.rawValue) came out \($0.outcome.rawValue)"
                + ($0.output.map { " (\($0.detail))" } ?? $0.error.map { " (\($0))" } ?? "")
        }
    }
}

extension ComparisonExpectation {
    /// What fails `bench compare`: each of `expected`'s violations in `report`, and
    /// Deadzone's engine not coming out ok in a mode it ran (it must, in every mode).
    public static func failures(_ expected: [ComparisonExpectation], in report: ComparisonReport) -> [String] {
        var broken = expected.flatMap { $0.violations(in: report) }
        let ours = report.runs.filter { $0.client == "deadzone" && $0.outcome != .ok }
        if !ours.isEmpty {
            broken.append("Deadzone's engine did not come out ok in: "
                + ours.map { "\($0.mode.rawValue) (\($0.outcome.rawValue))" }.joined(separator: ", "))
        }
        return broken
    }
}

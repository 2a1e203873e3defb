import BenchResults

/// The run's coverage of the situation model as `report.html` shows it: a grid with an
/// incident per row and a context per column (docs/situations.md). A cell of a
/// meaningful pair is `covered` (the scenarios that created it) or `missing`; a pair the
/// model does not list is `other` when created; every other cell is empty.
struct CoverageGrid {
    struct Cell {
        var cssClass: String
        var text: String
        var title: String
    }

    struct Row {
        var incident: String
        var cells: [Cell]
    }

    var summary: String
    var contexts: [String]
    var rows: [Row]
    /// Pairs the baseline's runs created that this run did not (the gate fails on them).
    var lost: [String]

    /// The grid of `coverage`, with `lost` from the gate when there is one; nil without coverage.
    init?(_ coverage: RunCoverage?, lost: [String] = []) {
        guard let coverage else { return nil }
        let safe = XMLText.legal
        let meaningful = Dictionary(uniqueKeysWithValues: coverage.meaningful.map { ($0.pair.id, $0) })
        let other = Set(coverage.otherPairs.map(\.id))
        let pairs = coverage.meaningful.map(\.pair) + coverage.otherPairs
        let incidents = Self.ordered(pairs.map(\.incident), by: coverage.meaningful.map(\.pair.incident))
        let contexts = Self.ordered(pairs.map(\.context), by: coverage.meaningful.map(\.pair.context))
        summary = safe(coverage.summary) + "; \(coverage.otherPairs.count) other pair\(coverage.otherPairs.count == 1 ? "" : "s") created"
        self.contexts = contexts.map(safe)
        self.lost = lost.map(safe)
        rows = incidents.map { incident in
            Row(incident: safe(incident), cells: contexts.map { context in
                let id = SituationPair(incident: incident, context: context).id
                if let entry = meaningful[id] {
                    let properties = entry.properties.joined(separator: ", ")
                    return entry.covered
                        ? Cell(cssClass: "covered", text: "✓",
                               title: safe("\(id): created by \(entry.scenarios.joined(separator: ", ")); exercises \(properties)"))
                        : Cell(cssClass: "missing", text: "✗",
                               title: safe("\(id): no scenario created it; exercises \(properties). \(entry.why)"))
                }
                if other.contains(id) { return Cell(cssClass: "other", text: "·", title: safe("\(id): created (not gated)")) }
                return Cell(cssClass: "", text: "", title: "")
            })
        }
    }

    /// The distinct values of `values`, those of `model` first in the model's order, then the rest sorted.
    private static func ordered(_ values: [String], by model: [String]) -> [String] {
        var seen = Set<String>(), result: [String] = []
        for value in model where seen.insert(value).inserted { result.append(value) }
        for value in Set(values).subtracting(seen).sorted() { result.append(value) }
        return result
    }
}

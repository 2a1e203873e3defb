/// The trace the harness records (`TraceEntry`, `HarnessEvent`) is `BenchVocabulary`'s,
/// and the report it returns (`RunReport`, `Verdict`, `GateComparison`) is
/// `BenchResults`'; both are in this target's API, so whoever imports the harness sees them.
@_exported import BenchResults
@_exported import BenchVocabulary

/// The comparison's trace (`TraceEntry`, `HarnessEvent`) is `BenchVocabulary`'s and its
/// report (`ComparisonReport`, `ClientRunResult`) is `BenchResults`'; both are in this
/// target's API (`ComparisonRun`), so whoever imports the comparison sees them.
@_exported import BenchResults
@_exported import BenchVocabulary

/// The conditioner's events (`ConditionerEvent`, `ConnectionID`, `ConnectionStats`) are
/// words of the run's trace and live in `BenchVocabulary`; they are in this target's
/// API (`EventSink`, `ConditionerSnapshot`), so whoever imports the conditioner sees them.
@_exported import BenchVocabulary

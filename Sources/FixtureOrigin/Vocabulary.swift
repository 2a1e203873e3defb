/// The origin's request records (`OriginRequestRecord`) and the license server's events
/// (`LicenseEvent`) are words of the run's trace and live in `BenchVocabulary`; they are
/// in this target's API (`OriginServer.requestLog`, `LicenseServer.records`), so whoever
/// imports the origin sees them.
@_exported import BenchVocabulary

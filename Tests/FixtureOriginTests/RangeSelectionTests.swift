import Foundation
import Testing
@testable import FixtureOrigin

/// Range and If-Range as RFC 9110 has them, for a 1000-byte resource.
struct RangeSelectionTests {
    let etag = "\"abc123\""
    let modified = Date(timeIntervalSince1970: 1_700_000_000)

    private func select(_ range: String?, ifRange: String? = nil, length: Int = 1000) -> RangeSelection {
        RangeSelection.select(range: range, ifRange: ifRange, etag: etag, lastModified: modified, length: length)
    }

    @Test(arguments: [
        ("bytes=0-99", RangeSelection.partial(0...99)),
        ("bytes=500-", .partial(500...999)),
        ("bytes=-100", .partial(900...999)),
        ("bytes=-5000", .partial(0...999)),
        ("bytes=990-2000", .partial(990...999)),
        ("bytes=999-999", .partial(999...999)),
        ("bytes=1000-", .unsatisfiable),
        ("bytes=-0", .unsatisfiable),
        ("bytes=5-1", .full),          // invalid: ignored
        ("bytes=0-1,5-9", .full),      // multi-range: answered whole
        ("items=0-1", .full),
        ("bytes=abc-", .full),
        ("bytes=-", .full),
        ("bytes=99999999999999999999-", .full),
    ])
    func rangeForms(header: String, expected: RangeSelection) {
        #expect(select(header) == expected)
    }

    @Test func noRangeIsTheWholeBody() {
        #expect(select(nil) == .full)
    }

    @Test func emptyResourceCannotSatisfyAnyRange() {
        #expect(select("bytes=0-", length: 0) == .unsatisfiable)
        #expect(select("bytes=-10", length: 0) == .unsatisfiable)
    }

    @Test func ifRangeAppliesTheRangeOnlyWhenTheValidatorStillMatches() {
        #expect(select("bytes=0-9", ifRange: etag) == .partial(0...9))
        #expect(select("bytes=0-9", ifRange: "\"other\"") == .full)
        #expect(select("bytes=0-9", ifRange: "W/\"abc123\"") == .full)
        #expect(select("bytes=0-9", ifRange: HTTPDate.format(modified)) == .partial(0...9))
        #expect(select("bytes=0-9", ifRange: HTTPDate.format(modified.addingTimeInterval(60))) == .full)
        #expect(select("bytes=0-9", ifRange: "not a date") == .full)
    }

    @Test func httpDatesRoundTrip() {
        #expect(HTTPDate.format(modified) == "Tue, 14 Nov 2023 22:13:20 GMT")
        #expect(HTTPDate.parse("Tue, 14 Nov 2023 22:13:20 GMT") == modified)
    }
}

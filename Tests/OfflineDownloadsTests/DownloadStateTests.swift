import Foundation
import OfflineDownloads
import Testing

@Suite("DownloadState")
struct DownloadStateTests {
    @Test("the stable string form of every state, and back")
    func stringForm() {
        #expect(DownloadState.allCases.map(\.description) == [
            "notDownloaded", "requested", "licensePreloaded", "downloading",
            "suspended(user)", "suspended(network)", "suspended(cellularNotAllowed)", "suspended(storage)",
            "suspended(awaitingForeground)", "downloaded", "canceling", "failed",
        ])
        for state in DownloadState.allCases { #expect(DownloadState(state.description) == state) }
        #expect(DownloadState("suspended(lunch)") == nil)
        #expect(DownloadState("Downloading") == nil)
    }

    @Test("JSON uses the string form; anything else is refused")
    func codable() throws {
        let json = try JSONEncoder().encode([DownloadState.suspended(.cellularNotAllowed), .downloaded])
        #expect(String(decoding: json, as: UTF8.self) == #"["suspended(cellularNotAllowed)","downloaded"]"#)
        #expect(try JSONDecoder().decode([DownloadState].self, from: json) == [.suspended(.cellularNotAllowed), .downloaded])
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(DownloadState.self, from: Data(#""suspended""#.utf8))
        }
    }

    @Test("only suspended states carry a reason")
    func suspensionReason() {
        #expect(DownloadState.suspended(.storage).suspensionReason == .storage)
        #expect(DownloadState.allCases.compactMap(\.suspensionReason) == SuspensionReason.allCases)
    }
}

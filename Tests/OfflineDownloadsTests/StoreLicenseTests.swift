import Foundation
@testable import OfflineDownloads
import Testing

@Suite("Store: DownloadIndex licenses")
struct StoreLicenseTests {
    typealias F = StoreFixtures

    @Test("a license round-trips every field, binary ones byte for byte, on a file")
    func roundTrip() async throws {
        try await F.withTemporaryDirectory { dir in
            let index = try DownloadIndex.open(path: dir + "/index.sqlite")
            try await index.insert(F.download())
            var license = F.license()
            license.firstPlayedAt = F.requested.addingTimeInterval(3_600.5)
            try await index.saveLicense(license)
            #expect(try await index.license(for: "tok-1") == license)
            #expect(try await index.license(for: "ghost") == nil)

            var purchase = F.license()
            purchase.kind = .purchase
            purchase.expiresAt = nil
            purchase.playDurationSeconds = nil
            try await index.saveLicense(purchase)
            #expect(try await index.license(for: "tok-1") == purchase, "saving again replaces")
        }
    }

    @Test("a license needs its download")
    func needsDownload() async throws {
        let index = try DownloadIndex.inMemory()
        let error = await #expect(throws: IndexError.self) { try await index.saveLicense(F.license("ghost")) }
        guard case .conflict = error else { Issue.record("expected .conflict, got \(String(describing: error))"); return }
    }

    @Test("the first playback is recorded once")
    func firstPlayback() async throws {
        let index = try DownloadIndex.inMemory()
        try await index.insert(F.download())
        try await index.saveLicense(F.license())
        let first = F.requested.addingTimeInterval(100)
        #expect(try await index.markFirstPlayback(for: "tok-1", at: first) == first)
        #expect(try await index.markFirstPlayback(for: "tok-1", at: first.addingTimeInterval(50)) == first)
        #expect(try await index.license(for: "tok-1")?.firstPlayedAt == first)

        try await index.insert(F.download("bare"))
        let error = await #expect(throws: IndexError.self) { try await index.markFirstPlayback(for: "bare", at: first) }
        #expect(error == .notFound("the license of bare"))
    }

    @Test("deleting a license keeps its download")
    func deleteLicense() async throws {
        let index = try DownloadIndex.inMemory()
        try await index.insert(F.download())
        try await index.saveLicense(F.license())
        #expect(try await index.deleteLicense(for: "tok-1"))
        #expect(try await index.license(for: "tok-1") == nil)
        #expect(try await index.download("tok-1") != nil)
        #expect(try await index.deleteLicense(for: "tok-1") == false)
    }
}

import Foundation
@testable import OfflineDownloads

/// Records and directories the Store tests share.
enum StoreFixtures {
    /// A date with whole milliseconds, which the index keeps exactly.
    static let requested = Date(timeIntervalSince1970: 1_700_000_000.125)

    /// Runs `body` with a fresh directory under the temporary directory, removed afterwards.
    static func withTemporaryDirectory<T>(_ body: (String) async throws -> T) async throws -> T {
        let path = NSTemporaryDirectory() + "deadzone-store-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try await body(path)
    }

    /// A download with every optional field set, so that a round trip checks them all.
    static func download(_ token: String = "tok-1", requestedAt: Date = requested) -> DownloadRecord {
        DownloadRecord(
            token: token, videoID: "video-\(token)", masterURL: "http://127.0.0.1:8080/v/\(token)/master.m3u8",
            displayName: "Big Buck Bunny « \(token) »",
            parameters: StoredParameters(
                licenseKind: .rental, rentalDurationSeconds: 172_800, playDurationSeconds: 7_200,
                requestedBitrate: 1_500_000, allowsCellular: true),
            selection: StoredSelection(
                variantURI: "v/720p.m3u8", bandwidth: 1_800_000, audioLanguages: ["en", "fr"], subtitleLanguages: ["de"]),
            snapshot: .init(state: .suspended(.network), isPausedByUser: true, needsLicense: true,
                            failure: .retriesExhausted(attempts: 3, lastError: "HTTP 503")),
            requestedAt: requestedAt, startedAt: requestedAt.addingTimeInterval(1.5),
            finishedAt: requestedAt.addingTimeInterval(60.25), licenseRequestedAt: requestedAt.addingTimeInterval(0.5),
            bytesDownloaded: 0, bytesExpected: 123_456_789, errorMessage: "the server answered HTTP 503",
            packageDirectory: "packages/\(token)")
    }

    /// The segment `index` of `stream`, at `ordinal` in the download order.
    static func segment(
        _ token: String = "tok-1", stream: String = "video", index: Int, ordinal: Int? = nil,
        expectedLength: Int64? = nil, bytes: Int64 = 0, state: SegmentRecord.State = .pending
    ) -> SegmentRecord {
        SegmentRecord(
            token: token, stream: stream, index: index, ordinal: ordinal ?? index,
            uri: "http://127.0.0.1:8080/v/\(token)/\(stream)/\(index).ts",
            localPath: "\(stream)/\(String(format: "%05d", index)).ts",
            expectedLength: expectedLength, bytes: bytes, state: state)
    }

    /// A rental license for `token`, with binary fields that are not valid UTF-8.
    static func license(_ token: String = "tok-1") -> LicenseRecord {
        LicenseRecord(
            token: token, assetID: "asset-\(token)", keyID: "kid-1", contentKey: Data([0x00, 0xFF, 0x10, 0x80] + Array(repeating: 7, count: 12)),
            kind: .rental, issuedAt: requested, expiresAt: requested.addingTimeInterval(172_800),
            playDurationSeconds: 7_200, firstPlayedAt: nil,
            signedLicense: Data(#"{"payload":"eyJ…","signature":"\u0000sig"}"#.utf8) + Data([0xC3, 0x28]))
    }

    /// Writes `count` bytes to `path`, creating its directory.
    static func writeFile(_ path: String, count: Int) throws {
        try FileManager.default.createDirectory(
            atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path, withIntermediateDirectories: true)
        try Data(repeating: 0xAB, count: count).write(to: URL(fileURLWithPath: path))
    }

    static func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }
}

import Foundation
import HLSPlaylist

/// The bookkeeping of one `DownloadPlan.init`: the init sections and key files met so
/// far (each fetched once), the `skd://` keys, and the final ordering. Internal; lives
/// for one call on one thread.
struct PlanBuilder {
    typealias Item = DownloadPlan.Item

    /// What makes two EXT-X-MAPs the same file.
    private struct InitSectionKey: Hashable {
        var stream: String
        var url: URL
        var byteRange: ByteRange?
    }

    /// The distinct `skd://` keys, in order of first use.
    private(set) var skdKeys: [DownloadPlan.SKDKey] = []
    private var initSections: [InitSectionKey: Item] = [:]
    private var initSectionCounts: [String: Int] = [:]
    private var keyFiles: [URL: Item] = [:]

    /// The item of segment `index` of `playlist`; registers its init section and key
    /// file. Its ordinal is set later by `ordered(_:)`.
    mutating func segment(
        _ index: Int, of playlist: MediaPlaylist, source: DownloadPlan.StreamSource
    ) throws(DownloadPlanError) -> Item {
        let segment = playlist.segments[index]
        let base = source.playlistURL
        let url = try DownloadPlan.fetchableURL(segment.uri, against: base, stream: source.name)
        if let range = segment.byteRange, range.httpRangeHeader == nil {
            throw .invalidByteRange(stream: source.name, index: index, range: range.description)
        }
        let key = try Self.chosenKey(segment.keys, stream: source.name, index: index).map { (key) throws(DownloadPlanError) in
            try plannedKey(key, stream: source.name, playlistURL: base)
        }
        let fallback = source.kind == .subtitles ? "vtt" : "ts"
        var initPath: String?
        if let map = segment.map {
            initPath = try initSection(map, key: key, source: source).localPath
        }
        return Item(
            kind: .segment, stream: source.name, index: index, ordinal: -1, remoteURL: url,
            localPath: "\(source.name)/seg\(Self.padded(index)).\(Self.fileExtension(url, default: fallback))",
            byteRange: segment.byteRange, duration: segment.duration, key: key,
            iv: key.map { $0.key.iv ?? Self.sequenceIV(playlist.mediaSequenceNumber(ofSegment: index)) },
            initSectionPath: initPath)
    }

    /// Puts `segments` (already in download order) in the final order, each key file
    /// and init section just before its first use, and numbers them.
    func ordered(_ segments: [Item]) -> [Item] {
        var items: [Item] = []
        var emitted: Set<String> = []
        func emit(_ item: Item) {
            guard emitted.insert(item.localPath).inserted else { return }
            var item = item
            item.ordinal = items.count
            items.append(item)
        }
        let initsByPath = Dictionary(initSections.values.map { ($0.localPath, $0) }, uniquingKeysWith: { a, _ in a })
        for segment in segments {
            if case .file(let url, _)? = segment.key?.source, let keyFile = keyFiles[url] { emit(keyFile) }
            if let path = segment.initSectionPath, let initSection = initsByPath[path] {
                if case .file(let url, _)? = initSection.key?.source, let keyFile = keyFiles[url] { emit(keyFile) }
                emit(initSection)
            }
            emit(segment)
        }
        return items
    }

    /// The item of an EXT-X-MAP, made once per stream, URL and byte range.
    private mutating func initSection(
        _ map: MediaInitializationSection, key: DownloadPlan.PlannedKey?, source: DownloadPlan.StreamSource
    ) throws(DownloadPlanError) -> Item {
        let url = try DownloadPlan.fetchableURL(map.uri, against: source.playlistURL, stream: source.name)
        let id = InitSectionKey(stream: source.name, url: url, byteRange: map.byteRange)
        if let known = initSections[id] { return known }
        if let range = map.byteRange, range.httpRangeHeader == nil {
            throw .invalidByteRange(stream: source.name, index: -1, range: range.description)
        }
        let number = initSectionCounts[source.name, default: 0]
        initSectionCounts[source.name] = number + 1
        let item = Item(
            kind: .initSection, stream: source.name, index: -(number + 1), ordinal: -1, remoteURL: url,
            localPath: "\(source.name)/init\(number).\(Self.fileExtension(url, default: "mp4"))",
            byteRange: map.byteRange, duration: 0, key: key, iv: key?.key.iv, initSectionPath: nil)
        initSections[id] = item
        return item
    }

    /// The key the engine decrypts with, of the keys a segment lists (one per KEYFORMAT):
    /// the `skd://` key (FairPlay-style, answered by the license) if there is one, else
    /// the `identity` key (AES-128 from a URL or a `data:` URI); nil for a clear segment.
    /// Keys of other systems (Widevine, PlayReady) are never chosen; a segment with only
    /// those throws `.noSupportedKey`.
    static func chosenKey(_ keys: [EncryptionKey], stream: String, index: Int) throws(DownloadPlanError) -> EncryptionKey? {
        guard !keys.isEmpty else { return nil }
        if let skd = keys.first(where: { $0.uri.lowercased().hasPrefix("skd:") }) { return skd }
        if let identity = keys.first(where: { $0.format == "identity" }) { return identity }
        throw .noSupportedKey(stream: stream, index: index, keyFormats: keys.map(\.format))
    }

    /// What the package does with `key`; see `DownloadPlan` (Keys).
    private mutating func plannedKey(
        _ key: EncryptionKey, stream: String, playlistURL: URL
    ) throws(DownloadPlanError) -> DownloadPlan.PlannedKey {
        if key.uri.lowercased().hasPrefix("skd:") {
            guard let skd = DownloadPlan.SKDKey(uri: key.uri) else { throw .malformedSKDKey(uri: key.uri) }
            if !skdKeys.contains(skd) { skdKeys.append(skd) }
            return DownloadPlan.PlannedKey(key: key, source: .license(skd))
        }
        guard let url = resolve(key.uri, against: playlistURL), let scheme = url.scheme?.lowercased() else {
            throw .unsupportedKey(stream: stream, uri: key.uri, reason: "the URI does not resolve to a URL")
        }
        switch scheme {
        case "data":
            return DownloadPlan.PlannedKey(key: key, source: .inline)
        case "http", "https":
            let format = key.keyFormat ?? "identity"
            guard format == "identity" else {
                throw .unsupportedKey(
                    stream: stream, uri: key.uri,
                    reason: "KEYFORMAT \(format) is not identity, so the URL does not serve the key itself")
            }
            return DownloadPlan.PlannedKey(key: key, source: .file(remoteURL: url, localPath: keyFile(url).localPath))
        default:
            throw .unsupportedKey(
                stream: stream, uri: key.uri, reason: "the \(scheme): scheme is none of skd, http, https or data")
        }
    }

    /// The key-file item of `url`: `key.bin` for the first key, `key1.bin`, … after.
    private mutating func keyFile(_ url: URL) -> Item {
        if let known = keyFiles[url] { return known }
        let number = keyFiles.count
        let item = Item(
            kind: .keyFile, stream: DownloadPlan.keyStream, index: number, ordinal: -1, remoteURL: url,
            localPath: number == 0 ? "key.bin" : "key\(number).bin", byteRange: nil, duration: 0,
            key: nil, iv: nil, initSectionPath: nil)
        keyFiles[url] = item
        return item
    }

    // MARK: Names

    /// `index` in decimal, zero-padded to at least five digits.
    static func padded(_ index: Int) -> String {
        let digits = String(index)
        return String(repeating: "0", count: max(0, 5 - digits.count)) + digits
    }

    /// The lowercased extension of `url`'s path when it is 1–5 ASCII letters or
    /// digits, else `fallback`. Only the extension is ever taken from a URL.
    static func fileExtension(_ url: URL, default fallback: String) -> String {
        let ext = url.pathExtension.lowercased()
        let safe = (1...5).contains(ext.count)
            && ext.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) }
        return safe ? ext : fallback
    }

    /// The IV of media sequence number `number`: a 128-bit big-endian integer.
    static func sequenceIV(_ number: Int) -> [UInt8] {
        let value = UInt64(truncatingIfNeeded: number)
        return [UInt8](repeating: 0, count: 8) + (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) }
    }
}

import Crypto
import Foundation
import HLSPlaylist

/// Matches what `PackageReader` found in a package with the origin's renditions of
/// the video: which origin rendition each local playlist holds, found by content, and
/// how much of it is there byte for byte.
///
/// Pure: the origin is reached only through `originHash` (path, range → SHA-256 of
/// what the origin serves, nil when nothing), which `PackageWatch` answers from
/// `OriginCatalogView` and tests answer from a table. Any thread.
struct PackageMatcher {
    /// The origin's renditions of the package's video.
    let renditions: [OriginRendition]
    let originHash: (String, ByteRange?) -> String?
    /// How many present segments of a playlist are tried, in order, to find its rendition.
    static let identificationAttempts = 5

    /// The findings for `contents`.
    func match(_ contents: PackageContents) -> PackageFindings {
        var findings = PackageFindings(directory: contents.directory, problems: contents.problems)
        var assigned: Set<String> = []
        for playlist in contents.playlists {
            let rendition = identify(playlist, preferring: assigned)
            if let rendition { assigned.insert(rendition.path) }
            findings.playlists.append(compare(playlist, with: rendition))
        }
        return findings
    }

    /// The origin rendition whose segment at the same place hashes like one of the
    /// first present segments of `playlist`; among several, one not yet held by
    /// another local playlist.
    func identify(_ playlist: LocalPlaylist, preferring assigned: Set<String>) -> OriginRendition? {
        var attempts = 0
        for (index, segment) in playlist.segments.enumerated() {
            guard let hash = segment.file.sha256 else { continue }
            let candidates = renditions.filter { rendition in
                index < rendition.segments.count && expectedHash(rendition.segments[index]) == hash
            }
            if let first = candidates.first { return candidates.first { !assigned.contains($0.path) } ?? first }
            attempts += 1
            if attempts >= Self.identificationAttempts { break }
        }
        return nil
    }

    private func expectedHash(_ segment: OriginSegment) -> String? {
        originHash(segment.path, segment.byteRange)
    }

    /// `playlist` against `rendition` segment by segment, in order.
    func compare(_ playlist: LocalPlaylist, with rendition: OriginRendition?) -> PlaylistFindings {
        var found = PlaylistFindings(
            uri: playlist.uri, role: playlist.role, rendition: rendition?.path, expected: rendition?.segments.count ?? 0,
            listed: playlist.segments.count, problems: playlist.problems)
        found.present = playlist.segments.filter { $0.file.sha256 != nil }.count
        for segment in playlist.segments {
            switch segment.file.state {
            case .present, .missing: break
            case .outside, .notAFile: found.problems.append("\(segment.file.uri) is \(segment.file.state.phrase)")
            }
        }
        guard let rendition else {
            let absent = playlist.segments.filter { $0.file.state == .missing }.map(\.file.uri)
            if !absent.isEmpty {
                found.problems.append("\(PlaylistFindings.list(absent)) not in the package")
            }
            if found.present > 0 {
                found.problems.append("no stored segment hashes like the origin's at the same place in any rendition")
            } else if playlist.segments.isEmpty, playlist.problems.isEmpty {
                found.problems.append("lists no segment")
            }
            return found
        }
        if playlist.segments.count > rendition.segments.count {
            found.problems.append("lists \(playlist.segments.count) segments; the origin's rendition has "
                + "\(rendition.segments.count)")
        }
        var keys = SidecarSet()
        var maps = SidecarSet()
        for (index, origin) in rendition.segments.enumerated() {
            guard index < playlist.segments.count else {
                found.missing.append(origin.path)
                continue
            }
            let local = playlist.segments[index]
            switch local.file.sha256 {
            case nil: found.missing.append(origin.path)
            case expectedHash(origin): found.matching += 1
            default: found.mismatching.append(origin.path)
            }
            let localIV = local.key?.iv ?? OriginKey.sequenceIV(playlist.mediaSequence + index)
            keys.add(compareKey(local, origin.key, localIV: localIV))
            maps.add(compareMap(local.map, origin.map))
        }
        found.keys = keys.findings
        found.initSections = maps.findings
        return found
    }

    /// `localIV`: the IV a player would use for the local segment (its playlist's, or
    /// its media sequence number).
    private func compareKey(_ local: LocalSegment, _ origin: OriginKey?, localIV: [UInt8]) -> SidecarFinding? {
        switch (local.key, origin) {
        case (nil, nil): return nil
        case (let key?, nil): return SidecarFinding(uri: key.uri, origin: nil, outcome: .unexpected)
        case (nil, let origin?): return SidecarFinding(uri: nil, origin: origin.description, outcome: .absent)
        case (let key?, let origin?):
            let finding = { (outcome: SidecarFinding.Outcome) in
                SidecarFinding(uri: key.uri, origin: origin.description, outcome: outcome)
            }
            // Another method or IV would not decrypt the segments as served.
            guard key.method == origin.method, localIV == origin.iv else { return finding(.differs) }
            switch origin.reference {
            case .other(let uri):
                return finding(key.uri == uri ? .needsNoFile : .differs)
            case .path(let path):
                if PackageReader.scheme(of: key.uri) == "data" {
                    return finding(Self.dataHash(key.uri) == originHash(path, nil) ? .matches : .differs)
                }
                return finding(outcome(of: local.keyFile, expected: originHash(path, nil)))
            }
        }
    }

    private func compareMap(_ local: LocalFile?, _ origin: OriginResource?) -> SidecarFinding? {
        switch (local, origin) {
        case (nil, nil): return nil
        case (let file?, nil): return SidecarFinding(uri: file.uri, origin: nil, outcome: .unexpected)
        case (nil, let origin?): return SidecarFinding(uri: nil, origin: origin.path, outcome: .absent)
        case (let file?, let origin?):
            return SidecarFinding(
                uri: file.uri, origin: origin.path, outcome: outcome(of: file, expected: originHash(origin.path, origin.byteRange)))
        }
    }

    private func outcome(of file: LocalFile?, expected: String?) -> SidecarFinding.Outcome {
        guard let file else { return .missing }
        switch file.state {
        case .present(let sha256, _): return sha256 == expected ? .matches : .differs
        case .missing: return .missing
        case .outside: return .outside
        case .notAFile: return .remote
        }
    }

    /// SHA-256 of the bytes of a base64 `data:` URI, nil for another kind.
    static func dataHash(_ uri: String) -> String? {
        guard let comma = uri.firstIndex(of: ","), uri[..<comma].hasSuffix(";base64"),
            let bytes = Data(base64Encoded: String(uri[uri.index(after: comma)...]))
        else { return nil }
        return OriginCatalogView.hex(SHA256.hash(data: bytes))
    }
}

/// Distinct sidecar findings, in first-seen order.
private struct SidecarSet {
    private(set) var findings: [SidecarFinding] = []

    mutating func add(_ finding: SidecarFinding?) {
        guard let finding, !findings.contains(finding) else { return }
        findings.append(finding)
    }
}

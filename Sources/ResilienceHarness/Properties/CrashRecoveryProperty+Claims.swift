import AppProtocol

extension CrashRecoveryRule {
    // MARK: The app's claims against the disk

    /// What the app said it stored before the kill, and what it says it found partly
    /// stored at the next launch, each checked against the disk snapshot. A claim names
    /// a path and a segment's index: for a single-file stream (EXT-X-BYTERANGE) it is
    /// the byte range the origin's playlists name at that index (`OriginRenditions`), or
    /// the range the claim gives (`partialSegmentsFound`'s `byteRange`); a copy of the
    /// whole file holds each of its ranges.
    mutating func judgeClaims(restart index: Int, _ kill: TracedKill, _ snapshot: TracedDiskSnapshot) {
        let kept = Set(trace.downloads.filter { download in
            guard let state = download.state(before: kill.t) else { return false }
            let live = [.requested, .downloading, .downloaded].contains(state) || state.suspensionCause != nil
            return live && !trace.userActions.contains {
                $0.download == download.token && $0.t < kill.t && $0.error == nil && ["cancel", "delete"].contains($0.action)
            }
        }.map(\.token))
        for segment in trace.segmentsStored where segment.t < kill.t && kept.contains(segment.download) {
            judgeStoredClaim(segment, kill, snapshot)
        }
        let next = trace.nextKill(after: index)
        for claim in trace.partialSegments where claim.t >= kill.t && claim.t < next && claim.bytes > 0 {
            judgePartialClaim(claim, kill, snapshot)
        }
    }

    /// The byte ranges the origin's playlists name for segment `index` at `path`.
    private func ranges(ofSegment path: String, index: Int) -> [MediaResourceKey] {
        context.renditions.resources(ofSegment: path, index: index).filter { $0.range != nil }
    }

    private mutating func judgeStoredClaim(_ segment: TracedSegment, _ kill: TracedKill, _ snapshot: TracedDiskSnapshot) {
        let ranged = ranges(ofSegment: segment.path, index: segment.index)
        let keys = snapshot.stored.map(MediaResourceKey.init)
        let held = snapshot.stored.contains(segment.path) || ranged.contains { snapshot.stored.contains($0.description) }
            // When the origin's playlists (as the runner read them) name no range there, any
            // range of the file held whole may be it.
            || (ranged.isEmpty && keys.contains { $0.path == segment.path && $0.range != nil })
        guard !held else { return }
        let claimed = ranged.isEmpty ? segment.path : "\(segment.path) #\(segment.index)"
        guard falseClaims.insert("stored \(claimed)").inserted else { return }
        let part = ([segment.path] + ranged.map(\.description)).lazy.compactMap { snapshot.partial[$0] }.first
        let found = part.map { "only \($0) bytes of it" } ?? "no copy of it"
        let what = ranged.first.map { "\(segment.path) (segment \(segment.index), its \(Self.words($0)))" } ?? segment.path
        findings.violation(kill.t, "download \(segment.download) reported \(what) stored at "
            + "\(Wording.time(segment.t)), but the app's disk held \(found) at the kill at \(Wording.time(kill.t))",
            broke: .recover)
    }

    private mutating func judgePartialClaim(
        _ claim: TracedPartialSegment, _ kill: TracedKill, _ snapshot: TracedDiskSnapshot
    ) {
        let key = resource(of: claim, snapshot)
        let text = key.description
        let disk = snapshot.partial[text]
        if disk == claim.bytes { return }
        // A `.part` that had received every byte (not yet renamed) is whole on disk.
        let size = key.range.map { Int64($0.count) } ?? trace.servedSize(of: claim.path)
        if disk == nil, snapshot.stored.contains(text), size == claim.bytes { return }
        guard falseClaims.insert("partial \(text) \(claim.t)").inserted else { return }
        let found = disk.map { "\($0) bytes of it" } ?? (snapshot.stored.contains(text) ? "the whole of it" : "no copy of it")
        let what = key.range == nil ? claim.path : "\(claim.path) (its \(Self.words(key)))"
        findings.violation(claim.t, "download \(claim.download) reported \(claim.bytes) bytes of \(what) "
            + "partly stored at its launch, but the app's disk held \(found) at the kill at \(Wording.time(kill.t))",
            broke: .recover)
    }

    /// The resource a partial claim is about: the range it gives, else the range the
    /// playlists name at its index (the one the disk holds part of, when several), else
    /// its path.
    private func resource(of claim: TracedPartialSegment, _ snapshot: TracedDiskSnapshot) -> MediaResourceKey {
        if let given = claim.byteRange.flatMap(HTTPByteRange.init), let last = given.last {
            return MediaResourceKey(path: claim.path, range: given.first...last)
        }
        let ranged = ranges(ofSegment: claim.path, index: claim.index)
        return ranged.first { snapshot.partial[$0.description] != nil } ?? ranged.first ?? MediaResourceKey(path: claim.path)
    }

    /// `range bytes=a-b` of a ranged resource.
    static func words(_ key: MediaResourceKey) -> String {
        key.range.map { "range bytes=\($0.lowerBound)-\($0.upperBound)" } ?? "whole file"
    }
}

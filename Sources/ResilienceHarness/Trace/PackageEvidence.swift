import AppProtocol

/// What the harness's own reads of a download's package say, against the renditions
/// the origin sent the app for it: shared by `integrity` and `offline-playback`.
/// A value over the trace and the origin's renditions; pure.
struct PackageEvidence {
    let trace: ScenarioTrace
    let renditions: OriginRenditions

    /// The origin requests of `download`'s video made for it: from its request until
    /// another download of the same video is requested (or the trace ends).
    func originRequests(of download: TracedDownload) -> [TracedOriginRequest] {
        let next = trace.downloads.first { $0.video == download.video && $0.requestedAt > download.requestedAt }
        return trace.originRequests(forVideo: download.video).filter { request in
            request.start >= download.requestedAt && (next.map { request.start < $0.requestedAt } ?? true)
        }
    }

    /// Whether the origin sent a body (a 2xx with bytes).
    static func sentBody(_ request: TracedOriginRequest) -> Bool {
        (200..<300).contains(request.record.status) && request.record.bytesSent > 0
    }

    /// The renditions the app chose for `download`: those whose segments the origin
    /// sent it, by playlist path, sorted.
    func chosenRenditions(of download: TracedDownload) -> [String] {
        Set(originRequests(of: download).filter(Self.sentBody).compactMap { renditions.rendition(ofSegment: $0.path) })
            .sorted()
    }

    /// What is wrong with `read` as the package of a download that chose `chosen`:
    /// empty when the app named a package, it holds every chosen rendition whole and
    /// byte-identical, and every other playlist it has is whole too.
    func problems(of read: TracedPackageRead, chosen: [String]) -> [String] {
        guard read.master != nil else { return read.found.problems }
        var problems = read.found.problems
        var judged: Set<PlaylistFindings> = []
        for rendition in chosen {
            guard let best = read.found.playlists(holding: rendition).first else {
                problems.append("no playlist of the package holds \(rendition), whose segments the origin sent")
                continue
            }
            judged.insert(best)
            if !best.isComplete { problems.append(best.summary) }
        }
        for playlist in read.found.playlists where !judged.contains(playlist) && !playlist.isComplete {
            problems.append(playlist.summary)
        }
        return problems
    }

    /// The segments of `chosen` the read found byte-identical.
    func matchingSegments(of read: TracedPackageRead, chosen: [String]) -> Int {
        chosen.compactMap { read.found.playlists(holding: $0).first?.matching }.reduce(0, +)
    }

    /// The read made for `inspection`: the first read of its package, caused by an
    /// inspection, at or after it and before the download's next inspection.
    func read(for inspection: TracedInspection) -> TracedPackageRead? {
        let token = inspection.inspection.download
        let next = trace.inspections(of: token).first { $0.t > inspection.t }?.t
        return trace.packageReads(of: token).first { read in
            read.cause == .inspected && read.t >= inspection.t && (next.map { read.t < $0 } ?? true)
        }
    }
}

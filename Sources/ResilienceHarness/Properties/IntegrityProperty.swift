import AppProtocol

extension Property {
    /// `integrity` and completeness, from the harness's own reads of the packages
    /// (`.harness(.packageRead)`), never from the app's word.
    ///
    /// Each time a download the harness requested is reported `downloaded`:
    /// - there is a read of its package from then until its next change (the app named
    ///   no package: a failure), and every such read (not one after the user deleted or
    ///   cancelled it; a download the user had removed before the report owes no
    ///   package at all) holds each rendition the app chose whole: the renditions whose
    ///   segments the origin sent for it (`PackageEvidence.chosenRenditions`, from the
    ///   origin's log and `context.renditions`), each as a local playlist with the
    ///   origin's segments, present and byte-identical in order, with its keys and init
    ///   sections as the origin serves them; any other playlist of the package is whole
    ///   too, and no URI leaves the package. A read is judged whatever the app reported;
    /// - the origin had sent every segment of those renditions before the report;
    /// - every segment the app said it stored for it (`segmentStored`) before the report
    ///   is in that first read, byte-identical.
    /// The app's claims are checked against the evidence (`IntegrityClaims`): a
    /// `segmentStored` for a path the origin never sent it, an inspection's
    /// `segmentHashes` that differ from what the origin serves, and an inspection's
    /// `packageComplete` that the harness's read of that package contradicts.
    /// Not applicable when no requested download was reported downloaded (or the
    /// runner gave no origin renditions).
    public static let integrity = Property(
        id: "integrity",
        description: "A video reported downloaded is whole in its package, as the harness reads it: every segment of "
            + "every rendition the origin sent it, byte-identical (SHA-256) to what the origin serves; the app's claims agree."
    ) { trace, context in
        var rule = IntegrityRule(trace: trace, context: context)
        return rule.judge()
    }
}

private struct IntegrityRule {
    let trace: ScenarioTrace
    let context: PropertyContext
    let evidence: PackageEvidence
    var findings = PropertyFindings("integrity")
    var matched = 0

    init(trace: ScenarioTrace, context: PropertyContext) {
        self.trace = trace
        self.context = context
        evidence = PackageEvidence(trace: trace, renditions: context.renditions)
    }

    mutating func judge() -> Verdict {
        guard !context.renditions.isEmpty else {
            return Verdict(
                property: findings.property, outcome: .notApplicable,
                summary: "The origin's renditions were not given, so the packages could not be judged.")
        }
        for download in trace.downloads {
            for (index, change) in download.changes.enumerated() where change.to == .downloaded {
                let next = index + 1 < download.changes.count ? download.changes[index + 1].t : nil
                judgeCompletion(download, at: change.t, before: next)
            }
        }
        let claims = IntegrityClaims(trace: trace, context: context, evidence: evidence)
        claims.judge(into: &findings)
        return findings.verdict(
            passed: "\(Wording.count(findings.checked, "downloaded video")) whole in the packages the harness read: "
                + "\(Wording.count(matched, "segment")) byte-identical to the origin's; the app's claims agree.",
            failed: "\(Wording.count(findings.violations.count, "integrity violation")); first: \(Wording.first(findings)).",
            notApplicable: "No requested download was reported downloaded.")
    }

    /// One report of `download` as downloaded at `t`, until its next change. A download the
    /// user had cancelled or deleted by then (the two crossed: its last segment landed as
    /// the user acted) owes nothing left behind, not a package (`ObligationModel`:
    /// `leaveNothing`, `cancel-delete-clean`'s), and no read after the removal is judged.
    private mutating func judgeCompletion(_ download: TracedDownload, at t: UInt64, before next: UInt64?) {
        let token = download.token
        if let removal = trace.intentSpans(of: download).first(where: { $0.intent == .removed }), removal.start <= t {
            findings.support(t, "download \(token) reported downloaded at \(Wording.time(t)), after the user removed it "
                + "(\(removal.startCause)): it owes nothing left behind (judged by cancel-delete-clean), not a package")
            return
        }
        findings.checkedOne()
        let removedAt = trace.intentSpans(of: download).first { $0.intent == .removed }?.start
        let reads = trace.packageReads(of: token).filter { read in
            read.t >= t && (next.map { read.t < $0 } ?? true) && (removedAt.map { read.t < $0 } ?? true)
        }
        guard let first = reads.first else {
            findings.violation(t, "download \(token) reported downloaded, but named no package the harness could "
                + "read (no finished event, no inspection naming one) before its next change", broke: .keepPackage)
            return
        }
        let chosen = evidence.chosenRenditions(of: download)
        if chosen.isEmpty {
            findings.violation(t, "download \(token) reported downloaded, but the origin sent it no segment of "
                + "video \(download.video)", broke: .keepPackage)
        }
        for read in reads { judgeRead(read, of: token, chosen: chosen) }
        judgeTiming(download, at: t, chosen: chosen)
        judgeStoredClaims(download, at: t, against: first)
    }

    private mutating func judgeRead(_ read: TracedPackageRead, of token: String, chosen: [String]) {
        let problems = evidence.problems(of: read, chosen: chosen)
        let name = "download \(token), package read (\(read.cause.rawValue))"
        guard !problems.isEmpty else {
            let segments = evidence.matchingSegments(of: read, chosen: chosen)
            matched += segments
            findings.support(read.t, "\(name): \(Wording.count(chosen.count, "rendition")) whole, "
                + "\(Wording.count(segments, "segment")) byte-identical to the origin's")
            return
        }
        for problem in problems.prefix(5) { findings.violation(read.t, "\(name): \(problem)", broke: .keepPackage) }
        if problems.count > 5 { findings.violation(read.t, "\(name): and \(problems.count - 5) more problems", broke: .keepPackage) }
    }

    /// Every segment of the chosen renditions was on its way from the origin before the
    /// report: its response had begun (`responseBegan`; the origin's end stamp may come
    /// after a fast app has stored the bytes and said so).
    private mutating func judgeTiming(_ download: TracedDownload, at t: UInt64, chosen: [String]) {
        let sent = Dictionary(grouping: evidence.originRequests(of: download).filter(PackageEvidence.sentBody), by: \.path)
        var late: [(path: String, at: UInt64)] = []
        for rendition in chosen {
            for path in context.renditions.segments[rendition] ?? [] {
                guard let requests = sent[path], !requests.contains(where: { $0.responseBegan <= t }),
                    let first = requests.map(\.responseBegan).min()
                else { continue }
                late.append((path, first))
            }
        }
        guard let earliest = late.min(by: { $0.at < $1.at }) else { return }
        findings.violation(t, "download \(download.token) reported downloaded before the origin had sent "
            + "\(PlaylistFindings.list(late.map(\.path))) (the first of their responses began at \(Wording.time(earliest.at)))",
            broke: .keepPackage)
    }

    /// What the app said it stored before the report is in the package, byte-identical.
    private mutating func judgeStoredClaims(_ download: TracedDownload, at t: UInt64, against read: TracedPackageRead) {
        guard read.master != nil else { return }
        var lacking: [String] = []
        let claimed = trace.segmentsStored(by: download.token).filter { $0.t >= download.requestedAt && $0.t <= t }
        for path in Set(claimed.map(\.path)).sorted() {
            guard let rendition = context.renditions.rendition(ofSegment: path) else { continue }
            guard let playlist = read.found.playlists(holding: rendition).first else {
                lacking.append("\(path) (no playlist of \(rendition))")
                continue
            }
            if playlist.missing.contains(path) { lacking.append("\(path) (missing)") }
            if playlist.mismatching.contains(path) { lacking.append("\(path) (other bytes)") }
        }
        guard !lacking.isEmpty else { return }
        findings.violation(read.t, "download \(download.token): the app said it stored \(Wording.count(lacking.count, "segment")) "
            + "the package read at \(Wording.time(read.t)) does not hold as the origin serves it: "
            + PlaylistFindings.list(lacking), broke: .keepPackage)
    }
}

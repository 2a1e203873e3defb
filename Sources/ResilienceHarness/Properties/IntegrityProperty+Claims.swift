import AppProtocol

/// The app's claims about what it stored, checked against the evidence for
/// `integrity`: each disagreement is a violation.
/// - `segmentStored`: the origin sent the path (a 2xx with a body, whose response
///   began no later than the claim: `TracedOriginRequest.responseBegan`, since a fast
///   app may store and say so before the origin stamps its write complete). A segment
///   the app never received cannot have been stored.
/// - An inspection's `segmentHashes`: each equals what the origin serves at that path
///   (`context.hashManifest`); a path the origin does not serve is a disagreement too.
/// - An inspection's `packageComplete`, of a download `downloaded` (by the inspection's
///   own state, or the last reported one): the same as the harness's read of that
///   package made for the inspection says.
struct IntegrityClaims {
    let trace: ScenarioTrace
    let context: PropertyContext
    let evidence: PackageEvidence

    func judge(into findings: inout PropertyFindings) {
        judgeStored(&findings)
        for inspection in trace.inspections where inspection.inspection.known {
            judgeHashes(inspection, &findings)
            judgeCompleteness(inspection, &findings)
        }
    }

    /// At most five violations per download, then how many more.
    private func judgeStored(_ findings: inout PropertyFindings) {
        let sent = Dictionary(grouping: trace.originRequests.filter(PackageEvidence.sentBody), by: \.path)
        // Ordered by when the response began, not by the origin's end stamp (`responseBegan`).
        let unsent = trace.segmentsStored.filter { claim in !(sent[claim.path] ?? []).contains { $0.responseBegan <= claim.t } }
        for (token, claims) in Dictionary(grouping: unsent, by: \.download).sorted(by: { $0.key < $1.key }) {
            for claim in claims.prefix(5) {
                findings.violation(claim.t, "download \(token): the app said it stored \(claim.path) (\(claim.stream) "
                    + "#\(claim.index)), which the origin never sent it", broke: .keepPackage)
            }
            if claims.count > 5 {
                findings.violation(claims[5].t, "download \(token): and \(claims.count - 5) more segments the app said "
                    + "it stored that the origin never sent it", broke: .keepPackage)
            }
        }
    }

    private func judgeHashes(_ found: TracedInspection, _ findings: inout PropertyFindings) {
        let inspection = found.inspection
        var wrong: [String] = []
        for (path, claimed) in (inspection.segmentHashes ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard let served = context.hashManifest[path] else {
                wrong.append("\(path) (the origin serves nothing there)")
                continue
            }
            if served != claimed.lowercased() { wrong.append("\(path) hashes \(claimed), the origin serves \(served)") }
        }
        guard !wrong.isEmpty else { return }
        findings.violation(found.t, "inspection of download \(inspection.download) claims "
            + "\(Wording.count(wrong.count, "segment hash", plural: "segment hashes")) that disagree with the origin: "
            + PlaylistFindings.list(wrong), broke: .keepPackage)
    }

    private func judgeCompleteness(_ found: TracedInspection, _ findings: inout PropertyFindings) {
        let inspection = found.inspection
        let token = inspection.download
        let reported = trace.stateChanges[token]?.last { $0.t <= found.t }?.to
        guard let claim = inspection.packageComplete, (inspection.state ?? reported) == .downloaded,
            let read = evidence.read(for: found)
        else { return }
        let chosen = trace.download(token).map(evidence.chosenRenditions(of:)) ?? []
        let problems = evidence.problems(of: read, chosen: chosen)
        if claim, let first = problems.first {
            findings.violation(found.t, "inspection of download \(token) claims its package complete; the harness's "
                + "read of it found: \(first)", broke: .keepPackage)
        } else if !claim, problems.isEmpty {
            findings.violation(found.t, "inspection of download \(token) claims its package incomplete; the harness's "
                + "read of it found every rendition whole", broke: .keepPackage)
        }
    }
}

extension Property {
    /// `offline-playback`.
    ///
    /// Every inspection of a `downloaded` download (by the inspection's own `state`, or
    /// the last reported one; not one the engine no longer knows, nor one the harness
    /// deleted or cancelled before) made while no interface is up says `playable == true`,
    /// names its package, and the harness's own read of that package made for the
    /// inspection (`.harness(.packageRead)`) finds it whole: every rendition the origin
    /// sent for it present and byte-identical, nothing named outside the package or
    /// remote (`PackageEvidence.problems`). The app's `packageComplete` is not taken.
    /// An inspection that refuses because the license expired is left to
    /// `expired-rental-refuses-playback`. Not applicable when no downloaded video was
    /// inspected with every interface down.
    public static let offlinePlayback = Property(
        id: "offline-playback",
        description: "A downloaded video plays with every interface down: it is playable and its package, as the "
            + "harness reads it, is whole."
    ) { trace, context in
        var findings = PropertyFindings("offline-playback")
        let evidence = PackageEvidence(trace: trace, renditions: context.renditions)
        for inspection in trace.inspections where trace.interfaces.up(at: inspection.t).isEmpty {
            judgeOffline(inspection, evidence, &findings)
        }
        return findings.verdict(
            passed: "\(Wording.count(findings.checked, "offline inspection")) of downloaded videos: playable, packages whole as "
                + "the harness read them.",
            failed: "\(Wording.count(findings.violations.count, "downloaded video")) would not play offline; first: "
                + "\(Wording.first(findings)).",
            notApplicable: "No downloaded video was inspected while every interface was down.")
    }

    private static func judgeOffline(
        _ found: TracedInspection, _ evidence: PackageEvidence, _ findings: inout PropertyFindings
    ) {
        let trace = evidence.trace
        let inspection = found.inspection
        // After the harness deleted or cancelled the download, an inspection checks the
        // cleanup (cancel-delete-clean), not playback: the app's report of the removal
        // may reach the trace after the inspection's answer, so the last reported state
        // can still read `downloaded` then.
        let removed = trace.userActions.contains {
            $0.download == inspection.download && $0.t <= found.t && $0.error == nil && ["delete", "cancel"].contains($0.action)
        }
        guard inspection.known, !removed else { return }
        let reported = trace.stateChanges[inspection.download]?.last { $0.t <= found.t }?.to
        guard (inspection.state ?? reported) == .downloaded else { return }
        let name = "inspection of download \(inspection.download) with no interface up"
        if !inspection.playable, inspection.unplayableReason == "license expired" {
            findings.support(found.t, "\(name): license expired (judged by expired-rental-refuses-playback)")
            return
        }
        findings.checkedOne()
        var problems: [String] = []
        if !inspection.playable { problems.append("not playable (\(inspection.unplayableReason ?? "no reason given"))") }
        if let read = evidence.read(for: found) {
            let chosen = trace.download(inspection.download).map(evidence.chosenRenditions(of:)) ?? []
            if let first = evidence.problems(of: read, chosen: chosen).first {
                problems.append("package incomplete as the harness read it (\(first))")
            }
        } else {
            problems.append("the app named no package the harness could read")
        }
        if problems.isEmpty {
            findings.support(found.t, "\(name): playable, package whole as the harness read it")
        } else {
            findings.violation(found.t, "\(name): " + problems.joined(separator: "; "), broke: .keepPackage)
        }
    }
}

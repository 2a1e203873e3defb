import AppProtocol

extension CrashRecoveryRule {
    // MARK: What the disk held whole: never fetched again

    mutating func judgeRefetches(restart index: Int, _ kill: TracedKill, _ launch: TracedLaunch) {
        guard let check = trace.refetchCheck(restart: index) else { return }
        storedAtKills += check.stored.count
        for refetch in check.refetches {
            let record = refetch.request.record
            refetchedBytes = refetchedBytes.plus(record.bytesSent)
            findings.violation(refetch.request.start, "origin \(record.method) \(refetch.path)"
                + "\(record.range.map { " (Range \($0))" } ?? "") sent \(record.bytesSent) bytes again after the kill "
                + "at \(Wording.time(kill.t)); the app's disk held the whole of it at the kill", broke: .recover)
        }
        for asked in check.emptyRequests {
            findings.support(asked.request.start, "origin \(asked.request.record.method) \(asked.path) asked again "
                + "after the kill at \(Wording.time(kill.t)) (held whole on disk) sent no body "
                + "(status \(asked.request.record.status))")
        }
        if check.refetches.isEmpty {
            findings.support(launch.t, "none of the \(Wording.count(check.stored.count, "path")) the app's disk held "
                + "whole at the kill at \(Wording.time(kill.t)) was fetched again "
                + "(\(Wording.count(check.requestsAfter.count, "request")) after it)")
        }
    }

    // MARK: What the disk held in part: resumed from there

    mutating func judgeRangeResumes(restart index: Int, _ kill: TracedKill, _ launch: TracedLaunch) {
        guard let resumes = trace.rangeResumes(restart: index) else { return }
        for resume in resumes {
            let held = "the disk held \(resume.bytesOnDisk) bytes of \(resume.path) at the kill at \(Wording.time(kill.t))"
            guard let request = resume.request else {
                findings.support(kill.t, "\(held); not requested again before the next kill")
                continue
            }
            let record = request.record
            if resume.resumed {
                rangeResumes += 1
                findings.support(request.start, "origin \(record.method) \(resume.path) with Range "
                    + "\(resume.expectedRange) resumed: \(held)")
                continue
            }
            let asked = record.range.map { "Range \($0)" } ?? "no Range (from byte 0)"
            let effect: String
            if let from = resume.askedFrom, from > resume.bytesOnDisk {
                effect = "bytes \(resume.bytesOnDisk) to \(from - 1) are missing"
            } else if resume.askedFrom != nil {
                effect = "\(resume.refetchedBytes) bytes were fetched again"
            } else {
                effect = "that is not one range to resume from"
            }
            findings.violation(request.start, "origin \(record.method) \(resume.path) asked \(asked) after the "
                + "kill, but \(held): \(effect); it must resume with Range \(resume.expectedRange)", broke: .recover)
        }
    }

    // MARK: The app's claims against the disk

    /// What the app said it stored before the kill, and what it says it found partly
    /// stored at the next launch, each checked against the disk snapshot.
    mutating func judgeClaims(restart index: Int, _ kill: TracedKill, _ snapshot: TracedDiskSnapshot) {
        let kept = Set(trace.downloads.filter { download in
            guard let state = download.state(before: kill.t) else { return false }
            let live = [.requested, .downloading, .downloaded].contains(state) || state.suspensionCause != nil
            return live && !trace.userActions.contains {
                $0.download == download.token && $0.t < kill.t && $0.error == nil && ["cancel", "delete"].contains($0.action)
            }
        }.map(\.token))
        for segment in trace.segmentsStored where segment.t < kill.t && kept.contains(segment.download) {
            guard !snapshot.stored.contains(segment.path) else { continue }
            guard falseClaims.insert("stored \(segment.path)").inserted else { continue }
            let found = snapshot.partial[segment.path].map { "only \($0) bytes of it" } ?? "no copy of it"
            findings.violation(kill.t, "download \(segment.download) reported \(segment.path) stored at "
                + "\(Wording.time(segment.t)), but the app's disk held \(found) at the kill at \(Wording.time(kill.t))",
                broke: .recover)
        }
        let next = trace.nextKill(after: index)
        for claim in trace.partialSegments where claim.t >= kill.t && claim.t < next && claim.bytes > 0 {
            let disk = snapshot.partial[claim.path]
            if disk == claim.bytes { continue }
            // A `.part` that had received every byte (not yet renamed) is whole on disk.
            if disk == nil, snapshot.stored.contains(claim.path), trace.servedSize(of: claim.path) == claim.bytes { continue }
            guard falseClaims.insert("partial \(claim.path) \(claim.t)").inserted else { continue }
            let found = disk.map { "\($0) bytes of it" }
                ?? (snapshot.stored.contains(claim.path) ? "the whole of it" : "no copy of it")
            findings.violation(claim.t, "download \(claim.download) reported \(claim.bytes) bytes of \(claim.path) "
                + "partly stored at its launch, but the app's disk held \(found) at the kill at \(Wording.time(kill.t))",
                broke: .recover)
        }
    }
}

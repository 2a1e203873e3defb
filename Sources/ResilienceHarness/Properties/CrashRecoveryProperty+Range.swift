import AppProtocol

extension CrashRecoveryRule {
    // MARK: What the disk held whole: never fetched again

    mutating func judgeRefetches(restart index: Int, _ kill: TracedKill, _ launch: TracedLaunch) {
        guard let check = trace.refetchCheck(restart: index, ranges: context.renditions.ranges) else { return }
        storedAtKills += check.stored.count
        for refetch in check.refetches {
            let record = refetch.request.record
            refetchedBytes = refetchedBytes.plus(record.bytesSent)
            let held = refetch.path == refetch.request.path ? "the whole of it" : "the whole of \(refetch.path)"
            findings.violation(refetch.request.start, "origin \(record.method) \(refetch.request.path)"
                + "\(record.range.map { " (Range \($0))" } ?? "") sent \(record.bytesSent) bytes again after the kill "
                + "at \(Wording.time(kill.t)); the app's disk held \(held) at the kill", broke: .recover)
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
        guard let resumes = trace.rangeResumes(restart: index, ranges: context.renditions.ranges) else { return }
        for resume in resumes {
            let held = "the disk held \(resume.bytesOnDisk) bytes of \(resume.path) at the kill at \(Wording.time(kill.t))"
            guard let request = resume.request else {
                findings.support(kill.t, "\(held); not requested again before the next kill")
                continue
            }
            let record = request.record
            if resume.resumed {
                rangeResumes += 1
                findings.support(request.start, "origin \(record.method) \(request.path) with Range "
                    + "\(record.range ?? resume.expectedRange) resumed: \(held)")
                continue
            }
            let asked = record.range.map { "Range \($0)" } ?? "no Range (from byte 0)"
            findings.violation(request.start, "origin \(record.method) \(request.path) asked \(asked) after the "
                + "kill, but \(held): \(Self.effect(of: resume)); it must resume with Range \(resume.expectedRange)",
                broke: .recover)
        }
    }

    /// What a request that did not resume `resume` did instead: left a gap, fetched held
    /// bytes again (from the start of its range, for a range), or, for a range, asked from
    /// outside it (from the file's start; from the bytes held counted from the file's
    /// start, not from the range's first byte).
    static func effect(of resume: RangeResume) -> String {
        guard let from = resume.askedFrom else { return "that is not one range to resume from" }
        let expected = resume.expectedFirst
        let again = resume.refetchedBytes
        guard let range = resume.resource.range else {
            return from > expected ? "bytes \(expected) to \(from - 1) are missing" : "\(again) bytes were fetched again"
        }
        if range.contains(from) {
            if from > expected { return "bytes \(expected) to \(from - 1) are missing" }
            return "\(again) bytes were fetched again" + (from == range.lowerBound ? " (from the start of its range)" : "")
        }
        let start = from == 0 ? "from the file's start"
            : from == resume.bytesOnDisk ? "from byte \(from) of the file (the \(from) bytes held counted from the "
                + "file's start, not from its range's first byte)"
            : "from byte \(from) of the file"
        return "it asked \(start), outside its range (\(range.lowerBound) to \(range.upperBound))"
            + (again > 0 ? ", and fetched \(again) bytes the disk held again" : ", not the bytes its range still lacks")
    }
}

extension CrashRecoveryRule {
    /// After a relaunch that keeps downloads: each partial segment the agent found at
    /// its launch is fetched again from where its `.part` ends (`rangeResumes`).
    mutating func judgeRangeResumes(restart index: Int, _ kill: TracedKill, _ launch: TracedLaunch) {
        guard let resumes = trace.rangeResumes(restart: index) else { return }
        for resume in resumes {
            let part = resume.partial
            let found = "\(part.bytes) bytes of \(part.path) found in the .part of download \(part.download) at the "
                + "launch after \(launch.after) at \(Wording.time(launch.t))"
            guard let request = resume.request else {
                findings.support(part.t, "\(found); not requested again before the next kill")
                continue
            }
            if resume.resumed {
                rangeResumes += 1
                findings.support(request.start, "origin \(request.record.method) \(request.path) with Range "
                    + "\(resume.expectedRange) resumed the \(found)")
            } else {
                let asked = request.record.range.map { "Range \($0)" } ?? "no Range (from byte 0)"
                findings.violation(request.start, "origin \(request.record.method) \(request.path) asked \(asked) "
                    + "after \(found); it must resume with Range \(resume.expectedRange)")
            }
        }
    }
}

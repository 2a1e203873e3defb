import AppProtocol

extension Property {
    /// `integrity`.
    ///
    /// For each download whose last state is `downloaded`, its last `.agent(.inspected)`
    /// made at or after that change has, for every path it stored
    /// (`.agent(.segmentStored)`), a `segmentHashes` entry equal (ignoring case) to
    /// `context.hashManifest[path]`; every other entry it has that the manifest knows
    /// must match too. A missing entry, a path the manifest lacks, or a mismatch fails.
    /// A download not inspected after completing is noted, not judged. Not applicable
    /// when the manifest is empty or no completed download was inspected.
    public static let integrity = Property(
        id: "integrity",
        description: "Every stored segment of a downloaded video is byte-identical (SHA-256) to what the origin serves."
    ) { trace, context in
        var rule = IntegrityRule(trace: trace, manifest: normalizedKeys(context.hashManifest))
        return rule.judge()
    }

    fileprivate static func normalizedKeys(_ hashes: [String: String]) -> [String: String] {
        Dictionary(hashes.map { (OriginPath.normalized($0.key), $0.value.lowercased()) }) { first, _ in first }
    }
}

private struct IntegrityRule {
    let trace: ScenarioTrace
    let manifest: [String: String]
    var findings = PropertyFindings("integrity")
    var matched = 0

    mutating func judge() -> Verdict {
        guard !manifest.isEmpty else {
            return Verdict(
                property: findings.property, outcome: .notApplicable,
                summary: "No hash manifest of the origin was given, so nothing could be compared.")
        }
        for token in trace.stateChanges.keys.sorted() {
            // Each time it was downloaded, judged by an inspection before its next change
            // (a later delete or eviction does not make a finished download unjudgeable).
            let changes = trace.stateChanges[token] ?? []
            for (index, change) in changes.enumerated() where change.to == .downloaded {
                let next = index + 1 < changes.count ? changes[index + 1].t : nil
                judge(token, completedAt: change.t, before: next)
            }
        }
        return findings.verdict(
            passed: "\(Wording.count(matched, "segment hash", plural: "segment hashes")) of "
                + "\(Wording.count(findings.checked, "downloaded video")) matched the origin's manifest.",
            failed: "\(Wording.count(findings.violations.count, "integrity violation")); first: \(Wording.first(findings)).",
            notApplicable: "No downloaded video was inspected after it completed.")
    }

    private mutating func judge(_ token: String, completedAt: UInt64, before next: UInt64?) {
        let inspected = trace.inspections(of: token).last { inspection in
            inspection.t >= completedAt && (next.map { inspection.t < $0 } ?? true)
        }
        guard let inspection = inspected, inspection.inspection.known else {
            findings.support(completedAt, "download \(token) completed but was not inspected afterwards; not judged")
            return
        }
        findings.checkedOne()
        let hashes = Property.normalizedKeys(inspection.inspection.segmentHashes ?? [:])
        let stored = Set(trace.segmentsStored(by: token).map(\.path))
        let matchedBefore = matched
        for path in stored.sorted() {
            guard let hash = hashes[path] else {
                findings.violation(inspection.t, "inspection of download \(token) has no hash for stored segment \(path)")
                continue
            }
            compare(token, path, hash, at: inspection.t)
        }
        for path in hashes.keys.sorted() where !stored.contains(path) && manifest[path] != nil {
            compare(token, path, hashes[path] ?? "", at: inspection.t)
        }
        if matched > matchedBefore {
            let count = Wording.count(matched - matchedBefore, "segment hash", plural: "segment hashes")
            findings.support(inspection.t, "download \(token): \(count) matched the origin's manifest")
        } else if stored.isEmpty, hashes.isEmpty {
            findings.violation(inspection.t, "download \(token) is downloaded but stored and inspected no segment")
        }
    }

    private mutating func compare(_ token: String, _ path: String, _ hash: String, at t: UInt64) {
        guard let expected = manifest[path] else {
            findings.violation(t, "download \(token) stored \(path), which the origin's manifest does not list")
            return
        }
        if expected == hash {
            matched += 1
        } else {
            findings.violation(t, "download \(token): \(path) hashes \(hash), the origin's manifest says \(expected)")
        }
    }
}

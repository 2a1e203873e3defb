import BenchCore
import AppProtocol

extension Property {
    /// `license-before-background` (DESIGN.md §5, property 4).
    ///
    /// For each protected download (`downloadRequested(protected: true)`):
    /// - its first `.agent(.licenseAcquired)` comes before the start of the first origin
    ///   request for a media segment of its video (`.ts`, `.m4s`, `.aac` under
    ///   `/videos/{video}/`) made after it was requested;
    /// - and before the first `lifecycle(foreground: false)` after it was requested,
    ///   unless it had already ended (`failed`, `notDownloaded`) by then;
    /// - it never goes `→ failed` after a `.agent(.licenseFailed)` with no
    ///   `licenseAcquired` in between (a license-related failure).
    /// And no license-server `requestReceived` falls in a background span (from
    /// `lifecycle(foreground: false)` to the next `true`) or carries the server's own
    /// `appInBackground` flag.
    public static let licenseBeforeBackground = Property(
        id: "license-before-background",
        description: "Every protected download holds its license before its first encrypted segment and before the "
            + "app goes to the background, and no license request is made in the background."
    ) { trace, _ in
        var rule = LicenseRule(trace: trace)
        return rule.judge()
    }
}

private struct LicenseRule {
    let trace: ScenarioTrace
    var findings = PropertyFindings("license-before-background")

    mutating func judge() -> Verdict {
        let protected = trace.downloads.filter(\.isProtected)
        for download in protected {
            findings.checkedOne()
            let acquired = trace.licensesAcquired.first { $0.download == download.token }
            judgeFirstSegment(download, acquired)
            judgeBackground(download, acquired)
            judgeLicenseFailures(download)
        }
        judgeRequestsInBackground()
        let requests = trace.licenseRequests.count
        return findings.verdict(
            passed: "\(Wording.count(protected.count, "protected download")) held licenses before encrypted segments "
                + "and the background; \(Wording.count(requests, "license request")), none in the background.",
            failed: "\(Wording.count(findings.violations.count, "violation")); first: \(Wording.first(findings)).",
            notApplicable: "No protected download was requested.")
    }

    private func acquiredText(_ acquired: TracedDownloadNote?) -> String {
        acquired.map { "its license was acquired at \(Wording.time($0.t))" } ?? "it never acquired a license"
    }

    private mutating func judgeFirstSegment(_ download: TracedDownload, _ acquired: TracedDownloadNote?) {
        let first = trace.originRequests(forVideo: download.video).first {
            $0.start >= download.requestedAt && OriginPath.isMediaSegment($0.path)
        }
        guard let first else { return }
        if let acquired, acquired.t < first.start {
            findings.support(acquired.t, "download \(download.token): license acquired (\(acquired.detail)) before its "
                + "first encrypted segment \(first.path) at \(Wording.time(first.start))")
        } else {
            findings.violation(first.start, "origin \(first.record.method) \(first.path), the first encrypted segment of "
                + "download \(download.token), but \(acquiredText(acquired))")
        }
    }

    private mutating func judgeBackground(_ download: TracedDownload, _ acquired: TracedDownloadNote?) {
        guard let background = trace.backgroundIntervals.first(where: { $0.start >= download.requestedAt }) else { return }
        if let state = download.state(atOrBefore: background.start), state == .failed || state == .notDownloaded {
            return
        }
        if let acquired, acquired.t < background.start {
            findings.support(background.start, "app to background after download \(download.token)'s license "
                + "(acquired at \(Wording.time(acquired.t)))")
        } else {
            findings.violation(background.start, "app to background while download \(download.token) had no license; "
                + acquiredText(acquired))
        }
    }

    private mutating func judgeLicenseFailures(_ download: TracedDownload) {
        for failure in download.changes where failure.to == .failed {
            let cause = trace.licenseFailures.last { $0.download == download.token && $0.t <= failure.t }
            guard let cause else { continue }
            let reacquired = trace.licensesAcquired.contains {
                $0.download == download.token && $0.t > cause.t && $0.t <= failure.t
            }
            guard !reacquired else { continue }
            findings.violation(failure.t, "download \(download.token) \(failure.from) → failed after its license "
                + "failed at \(Wording.time(cause.t)): \(cause.detail)")
        }
    }

    private mutating func judgeRequestsInBackground() {
        for request in trace.licenseRequests {
            let span = trace.backgroundIntervals.first { $0.contains(request.t) }
            guard span != nil || request.appInBackground else { continue }
            let since = span.map { " (in the background since \(Wording.time($0.start)))" } ?? " (server flag: in background)"
            findings.violation(request.t, "license server received a \(request.endpoint.rawValue) request"
                + "\(request.assetID.map { " for \($0)" } ?? "") while the app was in the background\(since)")
        }
    }
}

import BenchCore
import AppProtocol

extension Property {
    /// `license-before-background` (DESIGN.md §5, property 4), judged from the license
    /// server's log, the harness's own lifecycle times and the origin's log; the app's
    /// `licenseAcquired` events are claims it checks, never evidence.
    ///
    /// A license *could have reached the app* once the HTTP response that carried it
    /// began (its head written, `LicenseServerLog.begun`) and went on to complete in the
    /// origin's log: the server issues a license when the request arrives, so a slow
    /// license server delays only the response, and an app that does not wait for it
    /// shows. Causality, not one stamp: the origin stamps a response's end when its
    /// write completes, after a fast app may have read it, replied and sent its next
    /// request. For each protected download (`downloadRequested(protected: true)`, its
    /// asset from `.harness(.licenseKeyOf)`):
    /// - (a) when the app went to the background after the harness had asked it to get
    ///   ready (`prepareForBackground` returned since the last foreground: the app was told
    ///   the background was coming), a license for its asset had reached it, unless the
    ///   download had already ended (`failed`, `notDownloaded`), or the app had asked for
    ///   it (the server issued one) and an outage of every interface the download may use
    ///   cut the response before it arrived and lasted to the background, or no interface
    ///   it may use was up from before the request to the background: no app can hold a
    ///   license the network did not deliver (listed, not failed);
    /// - (e) when the app went to the background unprepared (the OS or the user did it
    ///   with no `prepareForBackground`) before a license reached it, no license is owed
    ///   before that background (the guides make the app keep the user in the foreground
    ///   until the exchange is done; a background it was never told of can cut any
    ///   exchange), but the exchange is: after the foreground, a license request for its
    ///   asset reaches the server, or a license reaches the app, within the stall timeout
    ///   plus the backoff bound, unless the download failed (judged by the property of
    ///   its situation), was removed, the app was killed, no interface it may use was up
    ///   or the trace ended first;
    /// - (b) when the app sent its first encrypted segment request (the earliest
    ///   `sentBy` of a media segment of its video after the request: when the
    ///   conditioner read it from the app, else its start at the origin), a license for
    ///   its asset had reached it;
    /// - it never goes `→ failed` after a `.agent(.licenseFailed)` with no license for
    ///   its asset reaching it in between (it gave up on its license), unless the world
    ///   showed a permanent cause (`ObligationModel.failures`: the license server refused
    ///   a request for its asset, its rental expired, the origin answered a client error);
    /// - a protected download with no recorded asset cannot be judged: a violation.
    /// And (c) no license-server request (any endpoint) was sent in a background span
    /// (from `lifecycle(foreground: false)` to the next `true`): one that reached the
    /// server in a span or with the server's own `app_in_background` flag is excused
    /// when the conditioner read it from the app before the span began (the link held
    /// it); (d) every `.agent(.licenseAcquired)` for a
    /// protected download comes after the server issued a license for its asset and the
    /// response carrying it began (its head written, a response that then completed),
    /// else the app claimed a license it never fetched. A claim may come before the
    /// origin stamps that response's end: the origin stamps it when its write completes,
    /// and a fast app has read and parsed the bytes by then (a fast app is never failed
    /// for being fast).
    public static let licenseBeforeBackground = Property(
        id: "license-before-background",
        description: "Every protected download holds its license before its first encrypted segment and before the "
            + "app goes to the background, and no license request is made in the background."
    ) { trace, context in
        var rule = LicenseRule(trace: trace, context: context, model: ObligationModel(trace: trace, context: context))
        return rule.judge()
    }
}

private struct LicenseRule {
    let trace: ScenarioTrace
    let context: PropertyContext
    let model: ObligationModel
    var findings = PropertyFindings("license-before-background")
    var log: LicenseServerLog { trace.licenseServer }

    mutating func judge() -> Verdict {
        let protected = trace.downloads.filter(\.isProtected)
        for download in protected {
            findings.checkedOne()
            guard let asset = download.licenseKey?.assetID else {
                findings.violation(download.requestedAt, "download \(download.token) of protected video \(download.video) "
                    + "has no license key recorded by the harness (asset id): its license cannot be judged",
                    broke: .licenseFirst)
                continue
            }
            judgeFirstSegment(download, asset)
            judgeBackground(download, asset)
            judgeLicenseFailures(download, asset)
        }
        judgeRequestsInBackground()
        let claims = judgeClaims(protected)
        return findings.verdict(
            passed: "\(Wording.count(protected.count, "protected download")) each held a license from the license "
                + "server before its first encrypted segment, and before each background it was told of "
                + "(prepareForBackground) or else after the foreground; "
                + "\(Wording.count(log.requests.count, "license-server request")), none in the background; "
                + "\(Wording.count(claims, "licenseAcquired claim")), each after its license arrived.",
            failed: "\(Wording.count(findings.violations.count, "violation")); first: \(Wording.first(findings)).",
            notApplicable: "No protected download was requested.")
    }

    /// What the license server did for `asset` up to `t`, for a violation: when the
    /// response began (when that was not its end) and when it ended.
    private func serverText(_ asset: String, at t: UInt64) -> String {
        let issued = log.issued(forAsset: asset)
        guard let first = issued.first else {
            let requests = log.requests(forAsset: asset).count
            return "the license server never issued a license for asset \(asset)"
                + (requests > 0 ? " (\(Wording.count(requests, "request")) for it, all refused)" : " (no request for it)")
        }
        guard first.t < t else {
            return "the license server issued its first license for asset \(asset) only at \(Wording.time(first.t))"
        }
        let began = first.respondedAt.flatMap { $0 < first.deliveredAt ?? 0 ? "began only at \(Wording.time($0)) and " : nil } ?? ""
        let delivery = first.deliveredAt.map { "its response \(began)ended only at \(Wording.time($0))" }
            ?? "no response carrying it completed at the origin"
        return "the license server issued a license for asset \(asset) at \(Wording.time(first.t)), but \(delivery)"
    }

    /// How a license that reached the app is told in support.
    private func heldText(_ license: TracedLicenseIssue) -> String {
        "license for asset \(license.assetID) issued at \(Wording.time(license.t)), its response ended at "
            + Wording.time(license.deliveredAt ?? license.t)
    }

    private mutating func judgeFirstSegment(_ download: TracedDownload, _ asset: String) {
        let first = trace.originRequests(forVideo: download.video)
            .filter { $0.start >= download.requestedAt && OriginPath.isMediaSegment($0.path) }
            .min { $0.sentBy < $1.sentBy }
        guard let first else { return }
        let asked = first.sentAt.map { "was sent by \(Wording.time(min($0, first.start))) (read by the conditioner)" }
            ?? "started at \(Wording.time(first.start))"
        if let held = log.begun(forAsset: asset, before: first.sentBy) {
            findings.support(held.respondedAt ?? held.t, "download \(download.token): \(heldText(held)), before its "
                + "first encrypted segment \(first.path) \(asked)")
        } else {
            findings.violation(first.sentBy, "origin \(first.record.method) \(first.path), the first encrypted segment of "
                + "download \(download.token), \(asked) with no license for it yet: "
                + serverText(asset, at: first.sentBy), broke: .licenseFirst)
        }
    }

    /// Every background after the request, until a license had reached the app: (a) for
    /// one the app was told of, (e) for one it was not.
    private mutating func judgeBackground(_ download: TracedDownload, _ asset: String) {
        for background in trace.backgroundIntervals where background.start >= download.requestedAt {
            if let state = download.state(atOrBefore: background.start), state == .failed || state == .notDownloaded {
                return
            }
            if let held = log.begun(forAsset: asset, before: background.start) {
                findings.support(background.start, "app to background after download \(download.token)'s \(heldText(held))")
                return
            }
            if isPrepared(background) {
                judgePreparedBackground(download, asset, background)
                return
            }
            judgeAfterForeground(download, asset, background)
        }
    }

    /// `prepareForBackground()` returned since the last foreground (or the start) and
    /// before `background` began: the app was told the background was coming.
    private func isPrepared(_ background: TraceInterval) -> Bool {
        let since = trace.backgroundIntervals.last { ($0.end ?? .max) <= background.start }?.end ?? 0
        return trace.entries.contains { entry in
            guard case .harness(.preparedForBackground) = entry.event else { return false }
            return entry.t >= since && entry.t <= background.start
        }
    }

    private mutating func judgePreparedBackground(_ download: TracedDownload, _ asset: String, _ background: TraceInterval) {
        if let issued = log.issued(forAsset: asset).last(where: { $0.t < background.start }),
            let outage = trace.interfaces.outages(allowed: download.allowedInterfaces).first(where: {
                $0.start >= issued.t && $0.start <= background.start && $0.contains(background.start)
            })
        {
            findings.support(background.start, "app to background at \(Wording.time(background.start)) before download "
                + "\(download.token)'s license arrived: the server issued it at \(Wording.time(issued.t)), and "
                + "\(outage.startCause) at \(Wording.time(outage.start)) cut every interface it may use before the "
                + "response arrived; not judged")
        } else if let outage = trace.interfaces.outages(allowed: download.allowedInterfaces).first(where: {
            $0.start <= download.requestedAt && $0.contains(background.start)
        }) {
            findings.support(background.start, "app to background at \(Wording.time(background.start)) before download "
                + "\(download.token) held a license: no interface it may use was up from \(outage.startCause) at "
                + "\(Wording.time(outage.start)), before it was requested, to the background: no app could fetch one; "
                + "not judged")
        } else {
            findings.violation(background.start, "app to background (harness, after prepareForBackground) at "
                + "\(Wording.time(background.start)) while download \(download.token) had no license: "
                + serverText(asset, at: background.start), broke: .licenseBeforeBackground)
        }
    }

    /// (e): a background the app was not told of came before `download`'s license; after
    /// the foreground, its exchange must be taken up again.
    private mutating func judgeAfterForeground(_ download: TracedDownload, _ asset: String, _ background: TraceInterval) {
        let token = download.token
        let went = "app to background (unprepared: no prepareForBackground) at \(Wording.time(background.start)) "
            + "before download \(token) held a license"
        guard let foreground = background.end else {
            findings.support(background.start, "\(went); still in the background at the end: not judged")
            return
        }
        let deadline = foreground.plus(context.livenessBound.nanoseconds)
        let bound = Wording.bound(context.livenessBound)
        if let held = log.begun(forAsset: asset, before: deadline.plus(1)) {
            findings.support(held.respondedAt ?? held.t, "\(went); after the foreground at \(Wording.time(foreground)) "
                + "its \(heldText(held))")
            return
        }
        if let asked = log.requests(forAsset: asset).first(where: { $0.t >= foreground && $0.t <= deadline }) {
            findings.support(asked.t, "\(went); it asked for its license again \(Wording.seconds(asked.t - foreground)) "
                + "after the foreground at \(Wording.time(foreground)) (a \(asked.endpoint.rawValue) request)")
            return
        }
        if let excuse = afterForegroundExcuse(download, from: foreground, to: deadline) {
            findings.support(foreground, "\(went); after the foreground at \(Wording.time(foreground)) \(excuse): not judged")
            return
        }
        findings.violation(foreground, "\(went); after the foreground at \(Wording.time(foreground)) it did not take up "
            + "its license exchange within \(bound) (no license request for asset \(asset) reached the server)",
            broke: .licenseAfterForeground)
    }

    /// Why `download` need not have asked for its license between `start` and `end`.
    private func afterForegroundExcuse(_ download: TracedDownload, from start: UInt64, to end: UInt64) -> String? {
        if let ended = download.changes.first(where: {
            $0.t >= start && $0.t <= end && [.failed, .canceling, .notDownloaded].contains($0.to)
        }) {
            return "it went → \(ended.to) at \(Wording.time(ended.t))"
        }
        if let removed = model.finalIntent(of: download), removed.intent == .removed, removed.start <= end {
            return "the user removed it (\(removed.startCause))"
        }
        if let kill = trace.kills(from: start, through: end).first { return "the app was killed at \(Wording.time(kill.t))" }
        if trace.end < end { return "the trace ended \(Wording.seconds(trace.end - start)) later" }
        if let outage = trace.interfaces.outages(allowed: download.allowedInterfaces).first(where: {
            $0.start <= start && ($0.end ?? .max) >= end
        }) {
            return "no interface it may use was up (\(outage.startCause) at \(Wording.time(outage.start)))"
        }
        if trace.isInBackground(at: end) { return "the app was in the background again" }
        return nil
    }

    private mutating func judgeLicenseFailures(_ download: TracedDownload, _ asset: String) {
        for failure in model.failures where failure.download.token == download.token {
            guard let cause = trace.gaveUpOnLicense(download, failure.change) else { continue }
            let change = failure.change
            if let permanent = failure.cause {
                findings.support(change.t, "download \(download.token) \(change.from) → failed after its license failed at "
                    + "\(Wording.time(cause.t)) (\(cause.detail)), for a permanent cause: \(permanent.words)")
            } else if failure.judgedBy == "license-before-background" {
                findings.violation(change.t, "download \(download.token) \(change.from) → failed after its license "
                    + "failed at \(Wording.time(cause.t)): \(cause.detail)", broke: .failOnlyForCause)
            }
        }
    }

    private mutating func judgeRequestsInBackground() {
        for request in log.requests {
            let span = trace.backgroundIntervals.first { $0.contains(request.t) }
            guard span != nil || request.appInBackground else { continue }
            let what = "license server received a \(request.endpoint.rawValue) request"
                + "\(request.assetID.map { " for asset \($0)" } ?? "") at \(Wording.time(request.t))"
            if let sent = request.sentAt, let began = span?.start ?? lastBackground(before: request.t), sent < began {
                findings.support(request.t, "\(what), in the background since \(Wording.time(began)), but the app had "
                    + "sent it by \(Wording.time(sent)) (read by the conditioner) in the foreground: the link held it")
                continue
            }
            let since = span.map { " (in the background since \(Wording.time($0.start)))" } ?? " (server flag: in background)"
            findings.violation(request.t, "license server received a \(request.endpoint.rawValue) request"
                + "\(request.assetID.map { " for asset \($0)" } ?? "") while the app was in the background\(since)",
                broke: .noLicenseRequestInBackground)
        }
    }

    /// When the app last went to the background at or before `t`.
    private func lastBackground(before t: UInt64) -> UInt64? {
        trace.backgroundIntervals.last { $0.start <= t }?.start
    }

    /// (d): returns how many claims were checked.
    private mutating func judgeClaims(_ protected: [TracedDownload]) -> Int {
        var checked = 0
        for claim in trace.licensesAcquired {
            guard let download = protected.first(where: { $0.token == claim.download }),
                let asset = download.licenseKey?.assetID
            else { continue }
            checked += 1
            if let held = log.begun(forAsset: asset, before: claim.t) {
                let began = held.respondedAt.map { ", whose response began at \(Wording.time($0))" } ?? ""
                findings.support(claim.t, "download \(claim.download) reported licenseAcquired at \(Wording.time(claim.t)) "
                    + "after its \(heldText(held))\(began)")
            } else {
                findings.violation(claim.t, "download \(claim.download) reported licenseAcquired (\(claim.detail)) at "
                    + "\(Wording.time(claim.t)), but \(serverText(asset, at: claim.t)): claimed a license it "
                    + "never fetched", broke: .licenseFirst)
            }
        }
        return checked
    }
}

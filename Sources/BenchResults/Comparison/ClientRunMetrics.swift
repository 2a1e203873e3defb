import BenchVocabulary

/// The black-box figures of one client run, as the conditioner and the origin saw them.
public struct ClientRunMetrics: Sendable, Hashable, Codable {
    /// First launch to last exit, seconds.
    public var wallSeconds: Double
    /// Bytes the conditioner delivered to the client through each interface (downlink).
    public var bytesByInterface: [String: Int]
    /// Body bytes the origin sent.
    public var originBytes: Int
    /// Bytes the client received (through every interface) beyond one copy of the
    /// content: what retries and restarts cost the user's data plan. Playlists and
    /// headers count too (a few kilobytes).
    public var wastedBytes: Int
    /// Body bytes the origin sent more than once: everything beyond one copy of each
    /// byte of each resource requested (retries, restarts, overlapping ranges, error
    /// bodies), including bytes a reset threw away in the link's queue before they
    /// reached the client.
    public var originBytesSentAgain: Int
    /// HTTP requests that reached the origin while the client's interface was down.
    public var requestsDuringOutages: Int?
    /// `connect()` calls to the client's interface while it was down (strace); nil when
    /// not measured. A userspace proxy cannot see refused attempts; this can.
    public var connectAttemptsDuringOutages: Int?
    /// kill-rerun: bytes the rerun fetched that the first run had already received.
    public var bytesFetchedAgain: Int?
    /// kill-rerun: whether the rerun went on from what the first run had rather than
    /// starting over: it did not fetch again the first media segment the first run had
    /// received whole. (The segments in flight at the kill may have been sent whole by the
    /// origin yet lost in the link's queue, so only the earliest one is a sure sign.) Nil
    /// when the first run had fewer than two segments whole: too early to tell.
    public var resumed: Bool?

    /// Creates metrics.
    public init(
        wallSeconds: Double, bytesByInterface: [String: Int], originBytes: Int, wastedBytes: Int,
        originBytesSentAgain: Int, requestsDuringOutages: Int?, connectAttemptsDuringOutages: Int?, bytesFetchedAgain: Int?, resumed: Bool?
    ) {
        self.wallSeconds = wallSeconds
        self.bytesByInterface = bytesByInterface
        self.originBytes = originBytes
        self.wastedBytes = wastedBytes
        self.originBytesSentAgain = originBytesSentAgain
        self.requestsDuringOutages = requestsDuringOutages
        self.connectAttemptsDuringOutages = connectAttemptsDuringOutages
        self.bytesFetchedAgain = bytesFetchedAgain
        self.resumed = resumed
    }
}

/// What `ClientRunMetrics.measure` reads: the run's origin records and the times of its
/// outages, kill and connection attempts, all in nanoseconds on one axis.
public struct ClientRunFacts: Sendable {
    /// The origin's records of the run's requests.
    public var records: [OriginRequestRecord]
    /// Subtracted from each record's `startedAtNanoseconds` to put it on this axis.
    public var epoch: UInt64
    /// The windows during which the client's interface was down: [start, end).
    public var outages: [Range<UInt64>]
    /// When the kill of kill-rerun happened, if it did.
    public var killedAt: UInt64?
    /// The times of the client's connect() calls to its interface; nil when not traced.
    public var connectAttempts: [UInt64]?
    public var bytesByInterface: [String: Int]
    /// The bytes of one whole copy of the content.
    public var contentBytes: Int
    public var wallSeconds: Double

    /// Creates facts.
    public init(
        records: [OriginRequestRecord], epoch: UInt64, outages: [Range<UInt64>], killedAt: UInt64?,
        connectAttempts: [UInt64]?, bytesByInterface: [String: Int], contentBytes: Int, wallSeconds: Double
    ) {
        self.records = records
        self.epoch = epoch
        self.outages = outages
        self.killedAt = killedAt
        self.connectAttempts = connectAttempts
        self.bytesByInterface = bytesByInterface
        self.contentBytes = contentBytes
        self.wallSeconds = wallSeconds
    }
}

extension ClientRunMetrics {
    /// The figures of a run. Pure.
    public static func measure(_ facts: ClientRunFacts) -> ClientRunMetrics {
        let start = { (record: OriginRequestRecord) in
            record.startedAtNanoseconds >= facts.epoch ? record.startedAtNanoseconds - facts.epoch : 0
        }
        var all = ByteCoverage()
        var sent = 0
        for record in facts.records {
            sent = sent.addingReportingOverflow(record.bytesSent).partialValue
            all.add(record)
        }
        let inOutage = { (t: UInt64) in facts.outages.contains { $0.contains(t) } }

        var fetchedAgain: Int?
        var resumed: Bool?
        if let killedAt = facts.killedAt {
            var before = ByteCoverage()
            var whole: [(end: UInt64, path: String)] = []  // media segments sent whole before the kill
            for record in facts.records where start(record) < killedAt {
                before.add(record)
                if record.status == 200, record.completed, record.method == "GET", OriginPath.isMediaSegment(record.path) {
                    whole.append((start(record) &+ record.durationNanoseconds, record.path))
                }
            }
            var again = 0
            var refetched = Set<String>()
            for record in facts.records where start(record) >= killedAt {
                guard let span = ByteCoverage.span(of: record) else { continue }
                let overlap = before.overlap(record.path, span)
                again += overlap
                if overlap > 0 { refetched.insert(record.path) }
            }
            fetchedAgain = again
            if whole.count >= 2, let first = whole.min(by: { $0.end < $1.end }) {
                resumed = !refetched.contains(first.path)
            }
        }
        return ClientRunMetrics(
            wallSeconds: facts.wallSeconds, bytesByInterface: facts.bytesByInterface, originBytes: sent,
            wastedBytes: max(0, facts.bytesByInterface.values.reduce(0, +) - facts.contentBytes),
            originBytesSentAgain: max(0, sent - all.total),
            requestsDuringOutages: facts.outages.isEmpty ? nil : facts.records.filter { inOutage(start($0)) }.count,
            connectAttemptsDuringOutages: facts.outages.isEmpty ? nil : facts.connectAttempts.map { $0.filter(inOutage).count },
            bytesFetchedAgain: fetchedAgain, resumed: resumed)
    }
}

/// The byte ranges of each resource that the origin sent at least once.
struct ByteCoverage {
    private var spans: [String: [Range<Int>]] = [:]

    /// Bytes covered, over every path.
    var total: Int {
        spans.values.reduce(0) { sum, list in sum + list.reduce(0) { $0 + $1.count } }
    }

    /// The bytes of the resource a record's body carried: the whole body of a 200, the
    /// range's offset on for a 206 (`bytes=N-` or `bytes=N-M`); nil for anything else.
    static func span(of record: OriginRequestRecord) -> Range<Int>? {
        guard record.method == "GET", record.bytesSent > 0 else { return nil }
        switch record.status {
        case 200: return 0..<record.bytesSent
        case 206:
            guard let range = record.range, range.hasPrefix("bytes="),
                let first = range.dropFirst(6).split(separator: "-", omittingEmptySubsequences: false).first,
                let offset = Int(first)
            else { return nil }
            return offset..<(offset + record.bytesSent)
        default: return nil
        }
    }

    mutating func add(_ record: OriginRequestRecord) {
        guard let span = Self.span(of: record) else { return }
        spans[record.path] = Self.merged(spans[record.path, default: []] + [span])
    }

    /// How many bytes of `span` of `path` are already covered.
    func overlap(_ path: String, _ span: Range<Int>) -> Int {
        (spans[path] ?? []).reduce(0) { sum, covered in sum + (covered.clamped(to: span).count) }
    }

    private static func merged(_ list: [Range<Int>]) -> [Range<Int>] {
        var out: [Range<Int>] = []
        for span in list.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = out.last, span.lowerBound <= last.upperBound {
                out[out.count - 1] = last.lowerBound..<max(last.upperBound, span.upperBound)
            } else {
                out.append(span)
            }
        }
        return out
    }
}

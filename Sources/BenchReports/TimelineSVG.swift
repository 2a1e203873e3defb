import BenchResults
import Foundation

/// The geometry of one scenario's timeline, ready for the template's `<svg>`: every
/// number already a string, every text made XML-legal (the template escapes it).
///
/// Rows from the top: who changed the network (when they did: the profile's phases,
/// the scenario's own steps, the profile's origin fault windows, each a lane of its
/// own and a colour of its own), per interface its up/down lane and its throughput
/// bars, the app's lifecycle, one lane per download; then the time axis in seconds
/// since the run's epoch. Kills, launches and exits are vertical lines across all rows.
struct TimelineSVG {
    var width = "1000"
    var height: String
    var rows: [Row]
    var markers: [Line]
    var ticks: [Tick]
    var axisY: String
    /// The lower end of the tick marks.
    var tickEndY: String
    var plotX: String
    var plotEndX: String

    struct Row {
        /// `network:profile`, `network:scenario`, `network:origin-faults`, `interface:wifi`,
        /// `throughput:wifi`, `lifecycle`, `download:<token>`.
        var lane: String
        var label: String
        /// The label in full (a download's video and whole token), shown on hover.
        var fullLabel: String
        /// The video a download lane shows (`data-video`), empty for other lanes.
        var video: String
        var hasVideo: Bool
        var caption: String
        var labelY: String
        var captionY: String
        var rects: [Rect]
    }

    struct Rect {
        var x: String
        var y: String
        var width: String
        var height: String
        var cssClass: String
        var title: String
    }

    struct Line {
        var x: String
        /// A word above the line (`killed`, `launched`, `exited`, `✗ <property>`), where it
        /// starts, and its row (labels that would overlap go one row down).
        var label: String
        var labelX: String
        var labelY: String
        /// `start` or `end`: the word's `text-anchor`.
        var anchor: String
        /// The line's id in the page (a failure's mark, the grid's link target), or empty.
        var id: String
        var hasID: Bool
        var y1: String
        var y2: String
        var cssClass: String
        var title: String
    }

    struct Tick {
        var x: String
        var label: String
        var labelY: String
    }

    static let plotLeft = 180.0
    static let plotWidth = 808.0
    private static let laneHeight = 14.0
    private static let barsHeight = 36.0
    private static let gap = 6.0

    /// Lays out `timeline`.
    init(_ timeline: Timeline) {
        let start = timeline.start
        let seconds = Double(timeline.end - timeline.start) / 1e9
        func x(_ t: UInt64) -> Double {
            Self.plotLeft + Double(t &- start) / 1e9 / seconds * Self.plotWidth
        }
        func rects(_ spans: [Timeline.Span], y: Double, prefix: String, subject: String) -> [Rect] {
            spans.map { span in
                Rect(
                    x: Self.number(x(span.start)), y: Self.number(y),
                    width: Self.number(max(x(span.end) - x(span.start), 0.5)), height: Self.number(Self.laneHeight),
                    cssClass: prefix + Self.cssName(span.state),
                    title: XMLText.legal(
                        "\(subject) \(span.state) \(Self.seconds(span.start))–\(Self.seconds(span.end)) s"
                            + (span.cause.isEmpty ? "" : "\n" + span.cause)))
            }
        }

        let labels = Self.labelRows(timeline, x: x)
        var rows: [Row] = []
        var y = 8.0 + Self.labelRowHeight * Double(labels.rows)  // room above the lanes for the markers' words
        func addRow(lane: String, label: String, fullLabel: String? = nil, video: String = "", caption: String = "",
                    height: Double, rects: [Rect]) {
            rows.append(Row(
                lane: XMLText.legal(lane), label: XMLText.legal(label), fullLabel: XMLText.legal(fullLabel ?? label),
                video: XMLText.legal(video), hasVideo: !video.isEmpty, caption: caption,
                labelY: Self.number(y + min(height, Self.laneHeight) - 3), captionY: Self.number(y + 2 * Self.laneHeight - 3),
                rects: rects))
            y += height + Self.gap
        }

        func instants(_ changes: [Timeline.NetworkChange], y: Double) -> [Rect] {
            changes.map { change in
                Rect(
                    x: Self.number(x(change.t) - 1.5), y: Self.number(y), width: "3", height: Self.number(Self.laneHeight),
                    cssClass: "nw-\(change.kind.rawValue)",
                    title: XMLText.legal(
                        "\(Self.seconds(change.t)) s \(change.text)" + (change.cause.isEmpty ? "" : "\n" + change.cause)))
            }
        }
        if !timeline.profileChanges.isEmpty {
            let held = timeline.profileChanges.filter { $0.kind == .profileHeld }.count
            addRow(lane: "network:profile", label: "profile",
                   caption: "\(timeline.profileChanges.count) phases" + (held > 0 ? ", \(held) held off" : ""),
                   height: Self.laneHeight, rects: instants(timeline.profileChanges, y: y))
        }
        if !timeline.scenarioSteps.isEmpty {
            addRow(lane: "network:scenario", label: "scenario steps", height: Self.laneHeight,
                   rects: instants(timeline.scenarioSteps, y: y))
        }
        if !timeline.originFaults.isEmpty {
            let windows = timeline.originFaults.map { window in
                Rect(
                    x: Self.number(x(window.start)), y: Self.number(y),
                    width: Self.number(max(x(window.end) - x(window.start), 0.5)), height: Self.number(Self.laneHeight),
                    cssClass: "nw-origin-fault",
                    title: XMLText.legal("\(window.text) \(Self.seconds(window.start))–\(Self.seconds(window.end)) s"))
            }
            addRow(lane: "network:origin-faults", label: "origin faults", height: Self.laneHeight, rects: windows)
        }

        let bucketSeconds = Double(timeline.bucketNanoseconds) / 1e9
        let peak = timeline.interfaces.flatMap(\.bytesPerBucket).max() ?? 0
        for lane in timeline.interfaces {
            addRow(lane: "interface:\(lane.name)", label: lane.name, height: Self.laneHeight,
                   rects: rects(lane.spans, y: y, prefix: "if-", subject: lane.name))
            var bars: [Rect] = []
            for (index, bytes) in lane.bytesPerBucket.enumerated() where bytes > 0 && peak > 0 {
                let from = start + UInt64(index) * timeline.bucketNanoseconds
                let barHeight = max(Self.barsHeight * bytes / peak, 1)
                bars.append(Rect(
                    x: Self.number(x(from)), y: Self.number(y + Self.barsHeight - barHeight),
                    width: Self.number(max(x(from + timeline.bucketNanoseconds) - x(from) - 0.5, 0.5)),
                    height: Self.number(barHeight), cssClass: "tp",
                    title: XMLText.legal("\(lane.name) \(Self.rate(bytes / bucketSeconds)) at \(Self.seconds(from)) s")))
            }
            let lanePeak = (lane.bytesPerBucket.max() ?? 0) / bucketSeconds
            addRow(lane: "throughput:\(lane.name)", label: "\(lane.name) throughput",
                   caption: lane.throughputSource == "none" ? "no bytes" : "peak \(Self.rate(lanePeak)) (\(lane.throughputSource))",
                   height: Self.barsHeight, rects: bars)
        }
        addRow(lane: "lifecycle", label: "app", caption: timeline.lifecycle.isEmpty ? "no lifecycle event" : "",
               height: Self.laneHeight, rects: rects(timeline.lifecycle, y: y, prefix: "lc-", subject: "app"))
        for lane in timeline.downloads {
            let subject = lane.video.map { "\($0) (\(lane.name))" } ?? lane.name
            addRow(lane: "download:\(lane.name)", label: Self.downloadLabel(lane), fullLabel: subject,
                   video: lane.video ?? "", height: Self.laneHeight,
                   rects: rects(lane.spans, y: y, prefix: "st-", subject: subject))
        }

        let axisY = y + 2
        self.rows = rows
        self.axisY = Self.number(axisY)
        tickEndY = Self.number(axisY + 4)
        let lineTop = Self.number(Self.labelRowHeight * Double(labels.rows) + 2)
        markers = timeline.markers.enumerated().map { index, marker in
            let place = labels.agent[index]
            return Line(x: Self.number(x(marker.t)), label: marker.kind.rawValue, labelX: Self.number(place.x),
                 labelY: Self.number(Self.labelRowHeight * Double(place.row + 1)), anchor: place.anchor, id: "", hasID: false,
                 y1: lineTop, y2: Self.number(axisY), cssClass: "mk-\(marker.kind.rawValue)",
                 title: XMLText.legal("\(Self.seconds(marker.t)) s \(marker.text)"
                    + (marker.cause.isEmpty ? "" : "\n" + marker.cause)))
        } + timeline.failures.enumerated().map { index, failure in
            let place = labels.failures[index]
            return Line(x: Self.number(x(failure.t)), label: XMLText.legal(Self.failureLabel(failure)),
                 labelX: Self.number(place.x), labelY: Self.number(Self.labelRowHeight * Double(place.row + 1)),
                 anchor: place.anchor,
                 id: XMLText.legal(failure.anchor), hasID: true, y1: lineTop, y2: Self.number(axisY), cssClass: "mk-failed",
                 title: XMLText.legal("\(Self.seconds(failure.t)) s \(failure.property) failed: \(failure.text)"))
        }
        ticks = Self.tickTimes(start: timeline.start, end: timeline.end).map { t in
            Tick(x: Self.number(x(t)), label: Self.seconds(t), labelY: Self.number(axisY + 14))
        }
        height = Self.number(axisY + 22)
        plotX = Self.number(Self.plotLeft)
        plotEndX = Self.number(Self.plotLeft + Self.plotWidth)
    }

    /// Round instants (1, 2 or 5 × 10ⁿ seconds apart) inside the window, at most about 10.
    static func tickTimes(start: UInt64, end: UInt64) -> [UInt64] {
        let step = Timeline.Buckets.roundUp(max((end - start) / 10, 1_000_000))
        var t = (start + step - 1) / step * step
        var times: [UInt64] = []
        while t <= end {
            times.append(t)
            t += step
        }
        return times
    }

    /// `suspended(network)` → `suspended-network`: a CSS class word.
    static func cssName(_ state: String) -> String {
        let words = state.split(whereSeparator: { !($0.isASCII && ($0.isLetter || $0.isNumber)) })
        return words.isEmpty ? "other" : words.joined(separator: "-")
    }

    static func number(_ value: Double) -> String {
        value.isFinite ? String(format: "%.1f", value) : "0"
    }

    static func seconds(_ t: UInt64) -> String {
        MetricComparison.format(Double(t) / 1e9)
    }

    /// `850 B/s`, `12.3 kB/s`, `1.25 MB/s`.
    static func rate(_ bytesPerSecond: Double) -> String {
        for (scale, unit) in [(1e9, "GB/s"), (1e6, "MB/s"), (1e3, "kB/s")] where bytesPerSecond >= scale {
            return String(format: "%.3g", bytesPerSecond / scale) + " " + unit
        }
        return String(format: "%.0f B/s", bytesPerSecond)
    }
}

/// The words of a timeline: each download lane's label, and the words above the
/// marker lines, laid out so that none overlaps another.
extension TimelineSVG {
    /// The height of one row of marker words above the lanes.
    static let labelRowHeight = 11.0
    /// The width of one character of a marker's word, at its 9 px font (a generous estimate).
    static let labelCharWidth = 5.6

    /// `clear · 245f4ceb`: the video first, then the token's start, to fit the lane labels' column.
    static func downloadLabel(_ lane: Timeline.StateLane) -> String {
        let token = lane.name.count > 8 ? String(lane.name.prefix(8)) : lane.name
        guard let video = lane.video else { return lane.name.count > 18 ? String(lane.name.prefix(17)) + "…" : lane.name }
        let room = 26 - token.count - 3
        let shown = video.count > room ? String(video.prefix(room - 1)) + "…" : video
        return "\(shown) · \(token)"
    }

    static func failureLabel(_ failure: Timeline.FailureMark) -> String { "✗ " + failure.property }

    /// Where each marker's word goes (agent markers, then failures), so that no two
    /// overlap: right of its line, or left of it where the plot ends first; in the first
    /// row where it begins after the last word there ends, a new row when none has room.
    struct LabelLayout {
        struct Place {
            var row: Int
            var x: Double
            /// `start` (right of the line) or `end` (left of it).
            var anchor: String
        }

        var rows: Int
        var agent: [Place]
        var failures: [Place]
    }

    static func labelRows(_ timeline: Timeline, x: (UInt64) -> Double) -> LabelLayout {
        let words = timeline.markers.map { (x($0.t), $0.kind.rawValue) } + timeline.failures.map { (x($0.t), failureLabel($0)) }
        let right = plotLeft + plotWidth + 10
        let spans: [(from: Double, to: Double, anchor: String)] = words.map { lineX, word in
            let width = Double(word.count) * labelCharWidth
            return lineX + 3 + width <= right ? (lineX + 3, lineX + 3 + width, "start") : (lineX - 3 - width, lineX - 3, "end")
        }
        var ends: [Double] = []  // where the last word of each row ends
        var places = spans.map { LabelLayout.Place(row: 0, x: $0.anchor == "start" ? $0.from : $0.to, anchor: $0.anchor) }
        for index in spans.indices.sorted(by: { (spans[$0].from, $0) < (spans[$1].from, $1) }) {
            let row = ends.firstIndex { $0 + 4 <= spans[index].from } ?? ends.count
            if row == ends.count { ends.append(spans[index].to) } else { ends[row] = spans[index].to }
            places[index].row = row
        }
        let agents = timeline.markers.count
        return LabelLayout(rows: max(ends.count, 1), agent: Array(places[..<agents]), failures: Array(places[agents...]))
    }
}

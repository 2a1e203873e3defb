extension Timeline {
    /// Follows the state of named things over time and cuts the spans that fall in a
    /// window. `set` at times before the window only changes the current state.
    struct SpanTracker {
        let start: UInt64
        let end: UInt64
        /// The state of each thing now, and since when.
        private(set) var current: [String: String] = [:]
        private var since: [String: UInt64] = [:]
        private var causes: [String: String] = [:]
        private var spans: [String: [Span]] = [:]

        init(start: UInt64, end: UInt64) {
            self.start = start
            self.end = end
        }

        /// `key` is in `state` from `t` (nil: in no state worth drawing); `cause` (made
        /// only when the state changes) is the trace line that says so.
        mutating func set(_ key: String, _ state: String?, at t: UInt64, cause: @autoclosure () -> String = "") {
            if let old = current[key] {
                if old == state { return }
                close(key, old, at: t)
            }
            current[key] = state
            since[key] = state == nil ? nil : t
            causes[key] = state == nil ? nil : cause()
            if spans[key] == nil { spans[key] = [] }
        }

        /// `key` is in `state` from `t` unless its state is already known.
        mutating func touch(_ key: String, _ state: String, at t: UInt64, cause: @autoclosure () -> String = "") {
            if current[key] == nil { set(key, state, at: t, cause: cause()) }
        }

        /// The spans of every key ever set, the open ones closed at the window's end.
        mutating func finish() -> [String: [Span]] {
            for (key, state) in current { close(key, state, at: end) }
            current = [:]
            return spans
        }

        private mutating func close(_ key: String, _ state: String, at t: UInt64) {
            let from = max(since[key] ?? start, start)
            let to = min(t, end)
            // A span the window began in was not begun by a line the window shows.
            let cause = (since[key] ?? start) >= start ? causes[key] ?? "" : ""
            if to > from { spans[key, default: []].append(Span(start: from, end: to, state: state, cause: cause)) }
        }
    }

    /// Fixed-width time buckets over a window, about 80 of them, each a round width
    /// (1, 2 or 5 × 10ⁿ nanoseconds, at least 1 ms).
    struct Buckets {
        let start: UInt64
        let width: UInt64
        let count: Int

        init(start: UInt64, end: UInt64) {
            self.start = start
            let span = max(end - start, 1)
            width = Self.roundUp(max(span / 80, 1_000_000))
            count = Int((span + width - 1) / width)
        }

        var empty: [Double] { Array(repeating: 0, count: count) }

        /// Adds `amount` to the bucket holding `t`.
        func add(_ amount: Double, at t: UInt64, to values: inout [Double]) {
            guard t >= start else { return }
            values[min(Int((t - start) / width), count - 1)] += amount
        }

        /// Adds `amount` spread evenly over [`from`, `from + nanoseconds`], the part past
        /// the last bucket going to it.
        func spread(_ amount: Double, from: UInt64, nanoseconds: UInt64, to values: inout [Double]) {
            guard from >= start else { return }
            guard nanoseconds > 0 else { return add(amount, at: from, to: &values) }
            let to = from &+ nanoseconds
            var bucket = min(Int((from - start) / width), count - 1)
            while bucket < count {
                let lower = max(from, start + UInt64(bucket) * width)
                let upper = bucket == count - 1 ? to : min(to, start + UInt64(bucket + 1) * width)
                if upper > lower { values[bucket] += amount * Double(upper - lower) / Double(nanoseconds) }
                if upper >= to { break }
                bucket += 1
            }
        }

        /// The smallest 1, 2 or 5 × 10ⁿ at least `value`.
        static func roundUp(_ value: UInt64) -> UInt64 {
            var magnitude: UInt64 = 1
            while true {
                for step: UInt64 in [1, 2, 5] where step * magnitude >= value { return step * magnitude }
                guard magnitude <= UInt64.max / 100 else { return value }
                magnitude *= 10
            }
        }
    }
}

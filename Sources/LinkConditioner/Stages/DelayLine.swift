/// One connection's bytes travelling through a `DelayStage`: the per-connection
/// state of the delay. Owned by the stage; a plain value with no clock of its own.
///
/// Entries sit in an array with a head index (compacted once the consumed prefix
/// dominates), so steady traffic allocates nothing beyond amortized growth.
struct DelayLine<Payload: LinkPayload> {
    /// Bytes released to the receiver at `release`.
    struct Entry {
        var payload: Payload
        var release: UInt64
    }

    let id: ConnectionID
    private var entries: [Entry] = []
    private var head = 0
    /// Bytes on the line.
    private(set) var bytes = 0
    /// Release time of the newest entry: later bytes never leave before it, so
    /// jitter never reorders a connection.
    private(set) var lastRelease: UInt64 = 0

    init(id: ConnectionID) {
        self.id = id
    }

    /// Release time of the head of the line; nil when it is empty.
    var nextRelease: UInt64? {
        head < entries.count ? entries[head].release : nil
    }

    /// Puts bytes on the line. `release` must not precede `lastRelease`.
    mutating func push(_ payload: consuming Payload, release: UInt64) {
        precondition(release >= lastRelease, "the delay line never reorders a connection")
        bytes += payload.count
        lastRelease = release
        let last = entries.count - 1
        if head <= last, entries[last].release == release {
            entries[last].payload.append(payload)
        } else {
            entries.append(Entry(payload: payload, release: release))
        }
    }

    /// Takes every entry released at or before `now`, as one run, with the release of the last one.
    mutating func popReleased(upTo now: UInt64) -> (payload: Payload, last: UInt64) {
        var released = Payload()
        var last: UInt64 = 0
        while head < entries.count, entries[head].release <= now {
            var payload = Payload()
            swap(&payload, &entries[head].payload)  // leaves no reference behind in the consumed slot
            released.append(payload)
            last = entries[head].release
            head += 1
        }
        bytes -= released.count
        if head == entries.count {
            entries.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64, head * 2 >= entries.count {
            entries.removeFirst(head)
            head = 0
        }
        return (released, last)
    }
}

extension DelayLine: Sendable where Payload: Sendable {}
extension DelayLine.Entry: Sendable where Payload: Sendable {}

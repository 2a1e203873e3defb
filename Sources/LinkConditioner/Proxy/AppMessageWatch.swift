/// Tells which of the app's reads begin a message it sends to the origin (`appSent`), the
/// judge's evidence of when the app asked. A value: `ProxyConnection` feeds it every read
/// of either side and every delivery to the app.
///
/// A read begins a message when something was delivered to the app since the last one
/// (or the connection is new) and the read carries a request's first bytes. On a plain
/// connection that is any read. On TLS (the app's stream begins with a handshake record)
/// only the start of an application-data record counts, and in TLS 1.3 not the first: the
/// handshake's flights are no request. Without this, a connection an HTTP client opened
/// ahead and left idle in its pool would stamp the request it later carries with the time
/// its handshake ended: the time it was opened, not the time the app asked.
///
/// TLS 1.3 is told from TLS 1.2 by the server: in 1.3 it sends application-data records
/// (its encrypted handshake) before the client's Finished, which the client sends as one;
/// in 1.2 it sends none before the client's first request (RFC 8446 §5, RFC 5246 §7.4).
/// A stream that stops parsing as TLS records is watched as plain from then on.
struct AppMessageWatch {
    private enum Framing {
        /// Nothing of the app's stream read yet.
        case undecided
        case plain
        case tls
    }

    private var framing = Framing.undecided
    /// Something was delivered to the app since the last message began.
    private var mayBegin = true
    private var app = TLSRecordReader()
    private var server = TLSRecordReader()
    /// The server sent an application-data record before the app sent any (TLS 1.3).
    private var serverSpokeFirst = false
    /// Application-data records the app began.
    private var appDataRecords = 0

    /// The app's `bytes` were read: true when they begin a message (stamp `appSent`).
    mutating func appRead(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if framing == .undecided, let first = bytes.first {
            framing = first == TLSRecordReader.handshake ? .tls : .plain
        }
        guard framing == .tls else { return begin(bytes.count > 0) }
        guard let starts = app.read(bytes) else {
            framing = .plain
            return begin(true)
        }
        var request = false
        for type in starts where type == TLSRecordReader.applicationData {
            appDataRecords += 1
            // TLS 1.3: the app's first application-data record is its Finished.
            if !(serverSpokeFirst && appDataRecords == 1) { request = true }
        }
        return begin(request)
    }

    /// The server's `bytes` were read (before the link delays them).
    mutating func serverRead(_ bytes: UnsafeRawBufferPointer) {
        guard framing == .tls, appDataRecords == 0, !serverSpokeFirst, let starts = server.read(bytes) else { return }
        serverSpokeFirst = starts.contains(TLSRecordReader.applicationData)
    }

    /// Bytes were delivered to the app: its next request begins a message.
    mutating func delivered() {
        mayBegin = true
    }

    /// A CONNECT tunnel opened: what the app sends from now on is a new stream.
    mutating func tunnelOpened() {
        framing = .undecided
        app = TLSRecordReader()
        server = TLSRecordReader()
        serverSpokeFirst = false
        appDataRecords = 0
    }

    private mutating func begin(_ request: Bool) -> Bool {
        guard request, mayBegin else { return false }
        mayBegin = false
        return true
    }
}

/// Follows the TLS record layer of one direction (RFC 8446 §5.1): a 5-byte header (type,
/// legacy version 3.x, length), then that many bytes. Only headers are read.
struct TLSRecordReader {
    static let changeCipherSpec: UInt8 = 20
    static let handshake: UInt8 = 22
    static let applicationData: UInt8 = 23
    /// The largest record a peer may send (2^14 plus expansion, RFC 8446 §5.2).
    static let maximumLength = (1 << 14) + 256

    private var header: [UInt8] = []
    private var remaining = 0

    /// The types of the records whose headers begin in `bytes`, in order; nil when the
    /// stream is not TLS records (the reader then stays broken).
    mutating func read(_ bytes: UnsafeRawBufferPointer) -> [UInt8]? {
        guard remaining >= 0 else { return nil }
        var starts: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if remaining > 0 {
                let skip = min(remaining, bytes.count - index)
                remaining -= skip
                index += skip
                continue
            }
            if header.isEmpty { header.reserveCapacity(5) }
            header.append(bytes[index])
            index += 1
            if header.count == 1 { starts.append(header[0]) }
            guard header.count == 5 else { continue }
            let type = header[0]
            let length = Int(header[3]) << 8 | Int(header[4])
            guard (20...24).contains(type), header[1] == 3, length <= Self.maximumLength else {
                remaining = -1
                return nil
            }
            remaining = length
            header.removeAll(keepingCapacity: true)
        }
        return starts
    }
}

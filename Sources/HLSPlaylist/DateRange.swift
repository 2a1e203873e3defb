/// EXT-X-DATERANGE: a range of time with attributes, e.g. an ad break or a programme
/// boundary (RFC 8216 §4.3.2.7). Dates are kept as written (ISO 8601 text).
public struct DateRange: Hashable, Sendable, Codable {
    /// A client-defined `X-` attribute, with its value as written.
    public struct ClientAttribute: Hashable, Sendable, Codable {
        /// The name, starting with `X-`.
        public var name: String
        /// The value without quotes.
        public var value: String
        /// Whether it is a quoted string (else a hexadecimal sequence or a number).
        public var isQuoted: Bool

        /// Creates a client attribute.
        public init(name: String, value: String, isQuoted: Bool) {
            self.name = name
            self.value = value
            self.isQuoted = isQuoted
        }
    }

    /// ID (required): unique within the playlist.
    public var id: String
    /// CLASS: the semantics the client attributes follow.
    public var classID: String?
    /// START-DATE (required), as written.
    public var startDate: String
    /// END-DATE, as written.
    public var endDate: String?
    /// DURATION in seconds.
    public var duration: Double?
    /// PLANNED-DURATION in seconds.
    public var plannedDuration: Double?
    /// SCTE35-CMD, as written (a hexadecimal sequence).
    public var scte35Command: String?
    /// SCTE35-OUT, as written.
    public var scte35Out: String?
    /// SCTE35-IN, as written.
    public var scte35In: String?
    /// END-ON-NEXT=YES: the range ends where the next one of the same CLASS starts.
    public var endOnNext: Bool
    /// The `X-` attributes, in the order written.
    public var clientAttributes: [ClientAttribute]

    /// Creates a date range.
    public init(
        id: String, classID: String? = nil, startDate: String, endDate: String? = nil, duration: Double? = nil,
        plannedDuration: Double? = nil, scte35Command: String? = nil, scte35Out: String? = nil,
        scte35In: String? = nil, endOnNext: Bool = false, clientAttributes: [ClientAttribute] = []
    ) {
        self.id = id
        self.classID = classID
        self.startDate = startDate
        self.endDate = endDate
        self.duration = duration
        self.plannedDuration = plannedDuration
        self.scte35Command = scte35Command
        self.scte35Out = scte35Out
        self.scte35In = scte35In
        self.endOnNext = endOnNext
        self.clientAttributes = clientAttributes
    }
}

extension DateRange {
    init(attributes a: AttributeList) throws(PlaylistError) {
        var client: [ClientAttribute] = []
        for name in a.names where name.hasPrefix("X-") {
            guard let value = a.raw(name) else { continue }
            client.append(ClientAttribute(name: name, value: value.text, isQuoted: value.isQuoted))
        }
        self.init(
            id: try a.required("ID", a.quotedString("ID")), classID: try a.quotedString("CLASS"),
            startDate: try a.required("START-DATE", a.quotedString("START-DATE")), endDate: try a.quotedString("END-DATE"),
            duration: try a.float("DURATION"), plannedDuration: try a.float("PLANNED-DURATION"),
            scte35Command: try a.token("SCTE35-CMD"), scte35Out: try a.token("SCTE35-OUT"),
            scte35In: try a.token("SCTE35-IN"), endOnNext: try a.yesNo("END-ON-NEXT"), clientAttributes: client)
    }

    var attributeText: String {
        var w = AttributeWriter()
        w.quoted("ID", id)
        w.quoted("CLASS", classID)
        w.quoted("START-DATE", startDate)
        w.quoted("END-DATE", endDate)
        w.float("DURATION", duration)
        w.float("PLANNED-DURATION", plannedDuration)
        for attribute in clientAttributes {
            if attribute.isQuoted {
                w.quoted(attribute.name, attribute.value)
            } else {
                w.enumerated(attribute.name, attribute.value)
            }
        }
        w.enumerated("SCTE35-CMD", scte35Command)
        w.enumerated("SCTE35-OUT", scte35Out)
        w.enumerated("SCTE35-IN", scte35In)
        w.yes("END-ON-NEXT", endOnNext)
        return w.text
    }
}

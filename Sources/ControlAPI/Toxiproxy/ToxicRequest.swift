/// Reads a toxic from a request's JSON (`POST /proxies/{proxy}/toxics`, or an update of
/// one), with toxiproxy's defaults, and refuses what Deadzone cannot apply, naming the field.
public enum ToxicRequest {
    /// A new toxic from `body` (a JSON object already decoded).
    public static func create(_ body: JSONValue) throws(APIError) -> Toxic {
        let fields = try object(body)
        guard let typeText = fields["type"], !typeText.isNull else { throw .badRequest("missing required field: type (one of \(typeList))") }
        guard let typeName = typeText.stringValue, let type = ToxicType(rawValue: typeName) else {
            throw .badRequest("invalid toxic type \(typeText): one of \(typeList)")
        }
        let stream = try readStream(fields["stream"]) ?? .downstream
        let name: String
        switch fields["name"] {
        case nil, .null?: name = "\(type.rawValue)_\(stream.rawValue)"
        case .string(let text)? where !text.isEmpty: name = text
        case let other?: throw .badRequest("name must be a non-empty string (got \(other))")
        }
        var toxic = Toxic(name: name, type: type, stream: stream)
        toxic.toxicity = try readToxicity(fields["toxicity"]) ?? 1
        toxic.attributes = try readAttributes(fields["attributes"], of: type, over: toxic.attributes)
        try check(toxic)
        return toxic
    }

    /// `existing` changed by `body`: its toxicity and attributes (merged); its name, type
    /// and stream stay (a different one is refused: delete it and add another).
    public static func update(_ existing: Toxic, with body: JSONValue) throws(APIError) -> Toxic {
        let fields = try object(body)
        if let type = fields["type"]?.stringValue, type != existing.type.rawValue {
            throw .badRequest("a toxic's type cannot change (\(existing.name) is \(existing.type.rawValue)): delete it and add a \(type) toxic")
        }
        if let stream = try readStream(fields["stream"]), stream != existing.stream {
            throw .badRequest("a toxic's stream cannot change (\(existing.name) is \(existing.stream.rawValue)): delete it and add another")
        }
        if let name = fields["name"]?.stringValue, name != existing.name {
            throw .badRequest("a toxic's name cannot change (\(existing.name)): delete it and add another")
        }
        var toxic = existing
        toxic.toxicity = try readToxicity(fields["toxicity"]) ?? existing.toxicity
        toxic.attributes = try readAttributes(fields["attributes"], of: existing.type, over: existing.attributes)
        try check(toxic)
        return toxic
    }

    private static var typeList: String { ToxicType.allCases.map(\.rawValue).joined(separator: ", ") }

    private static func object(_ body: JSONValue) throws(APIError) -> [String: JSONValue] {
        guard let fields = body.objectValue else {
            throw .badRequest("bad request body: expected a JSON object, got \(body)")
        }
        return fields
    }

    private static func readStream(_ value: JSONValue?) throws(APIError) -> ToxicStream? {
        switch value {
        case nil, .null?: return nil
        case .string(let text)?:
            guard let stream = ToxicStream(rawValue: text) else {
                throw .badRequest("stream was invalid, can be either upstream or downstream (got \"\(text)\")")
            }
            return stream
        case let other?: throw .badRequest("stream must be \"upstream\" or \"downstream\" (got \(other))")
        }
    }

    private static func readToxicity(_ value: JSONValue?) throws(APIError) -> Double? {
        guard let value, !value.isNull else { return nil }
        guard let number = value.numberValue, number >= 0, number <= 1 else {
            throw .badRequest("toxicity must be a number from 0 to 1 (got \(value))")
        }
        guard number == 0 || number == 1 else {
            throw .badRequest(
                "toxicity \(number) is not modelled: Deadzone's link stages act on every connection of a proxy (toxicity 1) "
                    + "or on none (0, the toxic kept but idle); per-connection toxicity is toxiproxy's alone")
        }
        return number
    }

    private static func readAttributes(_ value: JSONValue?, of type: ToxicType, over base: [String: Double]) throws(APIError) -> [String: Double] {
        guard let value, !value.isNull else { return base }
        guard let given = value.objectValue else {
            throw .badRequest("attributes must be a JSON object (got \(value))")
        }
        var attributes = base
        for (key, raw) in given.sorted(by: { $0.key < $1.key }) {
            guard type.attributeNames.contains(key) else {
                throw .badRequest("\(type.rawValue) has no attribute \(key): its attributes are \(type.attributeNames.joined(separator: ", "))")
            }
            guard let number = raw.numberValue, number.isFinite else {
                throw .badRequest("attributes.\(key) must be a number, in \(type.unit(of: key)) (got \(raw))")
            }
            guard number >= 0 else {
                throw .badRequest("attributes.\(key) must not be negative (got \(raw), in \(type.unit(of: key)))")
            }
            if type.integerAttributes.contains(key), number.rounded() != number {
                throw .badRequest("attributes.\(key) must be a whole number, in \(type.unit(of: key)) (got \(raw))")
            }
            attributes[key] = number
        }
        return attributes
    }

    /// What holds between attributes.
    private static func check(_ toxic: Toxic) throws(APIError) {
        switch toxic.type {
        case .slicer:
            guard toxic["average_size"] >= 1 else {
                throw .badRequest("attributes.average_size must be at least 1 byte: a slicer needs the size it slices at")
            }
            guard toxic["size_variation"] < toxic["average_size"] else {
                throw .badRequest("attributes.size_variation must be less than attributes.average_size "
                    + "(\(Int(toxic["size_variation"])) ≥ \(Int(toxic["average_size"])))")
            }
        case .packetLoss:
            guard toxic["probability"] <= 1 else {
                throw .badRequest("attributes.probability must be from 0 to 1 (got \(toxic["probability"]))")
            }
        default: break
        }
    }
}

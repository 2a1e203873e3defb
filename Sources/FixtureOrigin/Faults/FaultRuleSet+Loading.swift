import Foundation

extension FaultRuleSet {
    /// Reads the JSON form (see `FaultRuleSet`). A bad document throws an error that says
    /// what is wrong and where: the JSON syntax error, or the place in the document as a
    /// path such as `rules[1].fault.code`.
    public static func parse(json: some Sequence<UInt8>) throws(FaultRuleSetError) -> FaultRuleSet {
        let data = Data(json)
        do {
            return try JSONDecoder().decode(FaultRuleSet.self, from: data)
        } catch let error as FaultRuleSetError {
            throw error
        } catch let error as DecodingError {
            throw FaultRuleSetError("fault rules: \(describe(error, in: data))")
        } catch {
            throw FaultRuleSetError("fault rules are not valid JSON of the expected form: \(error)")
        }
    }

    /// Reads the JSON file at `path` (`bench origin --faults FILE`, the harness). The
    /// error names the file, then says what is wrong and where, as `parse(json:)` does.
    public static func load(contentsOf path: String) throws(FaultRuleSetError) -> FaultRuleSet {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw FaultRuleSetError("\(path): cannot read the fault rules file (\(error.localizedDescription))")
        }
        do {
            return try parse(json: data)
        } catch {
            throw FaultRuleSetError("\(path): \(error.description)")
        }
    }

    /// `at rules[1].fault: what`, or the JSON syntax error and its line and column.
    private static func describe(_ error: DecodingError, in data: Data) -> String {
        switch error {
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            return "not valid JSON" + (syntaxError(in: data).map { ": \($0)" } ?? "")
        case .dataCorrupted(let context):
            return "at \(place(context.codingPath)): \(context.debugDescription)"
        case .keyNotFound(let key, let context):
            return "at \(place(context.codingPath)): missing \"\(key.stringValue)\""
        case .typeMismatch(_, let context):
            return "at \(place(context.codingPath)): \(context.debugDescription)"
        case .valueNotFound(_, let context):
            return "at \(place(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }

    /// JSONDecoder does not say where the syntax is wrong; JSONSerialization says "around
    /// character N", turned here into a line and column (1-based).
    private static func syntaxError(in data: Data) -> String? {
        do {
            _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            return nil
        } catch {
            guard let text = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String else { return nil }
            guard let range = text.range(of: "character "),
                let offset = Int(text[range.upperBound...].prefix { $0.isNumber })
            else { return text }
            let before = data.prefix(offset)
            let line = before.count { $0 == UInt8(ascii: "\n") } + 1
            let column = offset - (before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0) + 1
            let what = text[..<range.lowerBound].replacingOccurrences(of: " around ", with: "")
            return "\(what.prefix(1).lowercased() + what.dropFirst()) at line \(line), column \(column)"
        }
    }

    /// `rules[1].fault.code` for a coding path; `the top level` for an empty one.
    private static func place(_ path: [any CodingKey]) -> String {
        var text = ""
        for key in path {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += (text.isEmpty ? "" : ".") + key.stringValue
            }
        }
        return text.isEmpty ? "the top level" : text
    }
}

import Foundation
#if canImport(FoundationXML)
    import FoundationXML
#endif

/// A parsed XML document as a tree, for tests: Foundation's `XMLParser` must accept
/// the file (well-formed), then tests walk elements, attributes and text.
final class ParsedElement {
    let name: String
    let attributes: [String: String]
    var children: [ParsedElement] = []
    /// The character data directly inside this element.
    var text = ""
    /// Its text and its children, in document order.
    private var nodes: [Node] = []

    private enum Node {
        case text(String)
        case element(ParsedElement)
    }

    init(name: String, attributes: [String: String]) {
        self.name = name
        self.attributes = attributes
    }

    /// This element and every element below it, in document order.
    var all: [ParsedElement] { [self] + children.flatMap(\.all) }

    /// Every element below (or at) this one named `name`.
    func elements(_ name: String) -> [ParsedElement] { all.filter { $0.name == name } }

    /// The text of this element and of everything below it, in document order.
    var allText: String {
        nodes.map { node in
            switch node {
            case .text(let text): text
            case .element(let child): child.allText
            }
        }.joined()
    }

    /// Parses `data`; throws the parser's error (with its line) when it is not well-formed.
    static func parse(_ data: Data) throws -> ParsedElement {
        let builder = Builder()
        let parser = XMLParser(data: data)
        parser.delegate = builder
        guard parser.parse(), let root = builder.root else {
            throw ParseError(
                description: "line \(parser.lineNumber) column \(parser.columnNumber): "
                    + String(describing: parser.parserError))
        }
        return root
    }

    struct ParseError: Error, CustomStringConvertible { var description: String }

    private final class Builder: NSObject, XMLParserDelegate {
        var root: ParsedElement?
        var stack: [ParsedElement] = []

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            let element = ParsedElement(name: elementName, attributes: attributes)
            if let parent = stack.last {
                parent.children.append(element)
                parent.nodes.append(.element(element))
            } else {
                root = element
            }
            stack.append(element)
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
            stack.removeLast()
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            stack.last?.text += string
            stack.last?.nodes.append(.text(string))
        }
    }
}

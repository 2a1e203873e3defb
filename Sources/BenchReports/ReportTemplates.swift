import Foundation
import Mustache

/// The page templates of `Templates/`, read and parsed once: `report` (a scenario
/// run), `compare` (a comparison) and the partials both include: `style` (the CSS) and
/// `timeline` (the inside of a timeline's `<svg>`).
enum ReportTemplates {
    static let names = ["report", "compare", "style", "timeline"]

    /// The library, or why it cannot be made.
    static let library: Result<MustacheLibrary, HTMLReportError> = {
        var library = MustacheLibrary()
        for name in names {
            guard let url = Bundle.module.url(forResource: name, withExtension: "mustache", subdirectory: "Templates") else {
                return .failure(.templateMissing(reason: "Templates/\(name).mustache is not in \(Bundle.module.bundlePath)"))
            }
            do {
                library.register(try MustacheTemplate(string: String(contentsOf: url, encoding: .utf8)), named: name)
            } catch {
                return .failure(.templateInvalid(reason: "Templates/\(name).mustache: \(error)"))
            }
        }
        return .success(library)
    }()

    /// `object` rendered with the template `name`.
    static func render(_ object: Any, with name: String) throws(HTMLReportError) -> String {
        let library = try library.get()
        guard let page = library.render(object, withTemplate: name) else {
            throw .templateMissing(reason: "no template \(name) in the library")
        }
        return page
    }
}

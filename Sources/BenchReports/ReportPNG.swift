import BenchCore
import Foundation

/// `report.png`: the first screen of a `report.html` (what failed and the grid) as a
/// picture, for a pull request's comment. Taken by a headless Chromium (or Chrome), offline;
/// there is none here to depend on, so a machine without one gets `ReportPNGError.noBrowser`
/// saying how to install it, and the HTML report stands without the picture.
public enum ReportPNG {
    /// The file name beside `report.html`.
    public static let fileName = "report.png"
    /// The names looked up on the PATH, in order.
    public static let browserNames = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"]

    /// The first of `browserNames` on `path` (a PATH value), as a full path.
    public static func findBrowser(path: String = ProcessInfo.processInfo.environment["PATH"] ?? "") -> String? {
        let directories = path.split(separator: ":").map(String.init)
        for name in browserNames {
            for directory in directories {
                let candidate = (directory as NSString).appendingPathComponent(name)
                if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            }
        }
        return nil
    }

    /// The arguments that make `browser` write `png`: `width` × `height` of `html`, from
    /// its top, every host name unresolvable (the page must need nothing from a network).
    public static func arguments(html: URL, png: URL, width: Int, height: Int) -> [String] {
        [
            "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
            "--host-resolver-rules=MAP * ~NOTFOUND", "--window-size=\(width),\(height)", "--screenshot=\(png.path)",
            html.absoluteString,
        ]
    }

    /// Writes the picture of `html` to `png` (replacing it) with `browser` (default: the
    /// first found on the PATH), within two minutes.
    public static func write(
        html: URL, to png: URL, width: Int = 1280, height: Int = 900, browser: String? = nil
    ) async throws(ReportPNGError) {
        guard let browser = browser ?? findBrowser() else { throw .noBrowser }
        try? FileManager.default.removeItem(at: png)
        let outcome: ChildProcess.Outcome
        do {
            outcome = try await ChildProcess.run(
                browser, arguments(html: html, png: png, width: width, height: height), timeout: .seconds(120))
        } catch {
            throw .failed(browser: browser, reason: error.description)
        }
        let written = (try? Data(contentsOf: png, options: .mappedIfSafe)) ?? Data()
        guard !outcome.timedOut, written.starts(with: [0x89, 0x50, 0x4E, 0x47]) else {
            let why = outcome.timedOut ? "it took more than 120 s" : "it wrote no PNG (\(outcome.termination))"
            let said = outcome.stderr.split(separator: "\n").suffix(3).joined(separator: " / ")
            throw .failed(browser: browser, reason: why + (said.isEmpty ? "" : "; it said: " + said))
        }
    }
}

/// Why `report.png` could not be made.
public enum ReportPNGError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No Chromium or Chrome on the PATH.
    case noBrowser
    /// The browser ran and made no picture.
    case failed(browser: String, reason: String)

    public var description: String {
        switch self {
        case .noBrowser:
            "no headless browser to take the picture with: none of \(ReportPNG.browserNames.joined(separator: ", ")) is on "
                + "the PATH. Install one (Debian/Ubuntu: apt-get install chromium) or name it with --browser; "
                + "report.html is written and complete without the picture"
        case let .failed(browser, reason):
            "\(browser) could not take the picture: \(reason); report.html is written and complete without it"
        }
    }
}

import BenchReports
import Foundation
import Testing

/// `bench report --png`: the browser is a real child process; here a script that plays
/// one (writes what it was asked to, or fails), so the test needs no Chromium.
@Suite struct ReportPNGTests {
    let directory = NSTemporaryDirectory() + "deadzone-png-\(UUID().uuidString)"

    init() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    /// An executable shell script in the scratch directory.
    func script(_ name: String, _ body: String) throws -> String {
        let path = directory + "/" + name
        try ("#!/bin/sh\n" + body).write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        return path
    }

    @Test func theBrowserIsAskedForTheFirstScreenOfThePageOffline() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Writes its arguments, one per line, and a PNG signature where --screenshot says.
        let browser = try script("fake-chromium", #"""
            for a in "$@"; do echo "$a"; done > "$(dirname "$0")/args"
            for a in "$@"; do case "$a" in --screenshot=*) printf '\211PNG\r\n\032\n' > "${a#--screenshot=}";; esac; done
            """#)
        let html = URL(fileURLWithPath: directory + "/report.html"), png = URL(fileURLWithPath: directory + "/report.png")
        try "<html/>".write(to: html, atomically: true, encoding: .utf8)
        try await ReportPNG.write(html: html, to: png, browser: browser)
        #expect(FileManager.default.fileExists(atPath: png.path))
        let args = try String(contentsOfFile: directory + "/args", encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(args.contains("--headless") && args.contains("--window-size=1280,900"))
        #expect(args.contains("--host-resolver-rules=MAP * ~NOTFOUND"), "nothing may come from a network")
        #expect(args.last == html.absoluteString)
    }

    @Test func aBrowserThatMakesNoPictureIsAnErrorSayingWhatItSaid() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let browser = try script("broken-chromium", "echo 'cannot open display' >&2\nexit 3\n")
        let html = URL(fileURLWithPath: directory + "/report.html"), png = URL(fileURLWithPath: directory + "/report.png")
        try "<html/>".write(to: html, atomically: true, encoding: .utf8)
        try Data("stale".utf8).write(to: png)
        await #expect(throws: ReportPNGError.self) { try await ReportPNG.write(html: html, to: png, browser: browser) }
        do { try await ReportPNG.write(html: html, to: png, browser: browser) } catch {
            #expect(error.description.contains("it wrote no PNG (exit status 3)"), "\(error)")
            #expect(error.description.contains("cannot open display"), "\(error)")
            #expect(error.description.hasSuffix("report.html is written and complete without it"))
        }
        #expect(!FileManager.default.fileExists(atPath: png.path), "an old picture must not pass for this page's")
    }

    @Test func theBrowserIsFoundOnThePathOrTheErrorSaysHowToGetOne() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let found = try script("chromium-browser", "exit 0\n")
        #expect(ReportPNG.findBrowser(path: "/nonexistent:" + directory) == found)
        #expect(ReportPNG.findBrowser(path: "/nonexistent") == nil)
        #expect(ReportPNGError.noBrowser.description.contains("apt-get install chromium"))
    }
}

// NOT RUN HERE: an XCUITest needs Xcode and an iOS simulator, which this repository's CI
// (Linux) does not have. It is the flow of examples/sessions/test_session.py (which CI runs)
// as an iOS team would write it; keep the two in step when the session API changes.
//
// Before the test: on the Mac, `swift run bench session --api 127.0.0.1:8474` (the
// simulator shares the Mac's loopback). The app under test reads two launch-environment
// values this test sets: DEADZONE_ORIGIN (the interface endpoint it downloads from, as its
// origin) and DEADZONE_STORAGE (where it keeps its downloads: the harness reads that
// directory at each announced kill; on a simulator the app can write a path of the Mac's,
// on a device it cannot, and crash-recovery then has no disk to judge, which it says).
//
// The verdicts come from what the bench saw (its conditioner and origin), never from the
// app: an announcement says only what this test did.

import Foundation
import XCTest

/// The session's API over URLSession, synchronously (a UI test runs on the main thread).
struct DeadzoneSession {
    let api: URL

    func call(_ method: String, _ path: String, _ body: [String: Any]? = nil) throws -> [String: Any] {
        var request = URLRequest(url: api.appendingPathComponent(path))
        request.httpMethod = method
        request.timeoutInterval = 120
        if let body {
            request.httpBody = try JSONSerialization.data(withJSONObject: body)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let done = DispatchSemaphore(value: 0)
        var result: Result<(Data, HTTPURLResponse), Error> = .failure(URLError(.unknown))
        URLSession.shared.dataTask(with: request) { data, response, error in
            if let error { result = .failure(error) }
            else if let data, let http = response as? HTTPURLResponse { result = .success((data, http)) }
            done.signal()
        }.resume()
        done.wait()
        let (data, http) = try result.get()
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        guard (200..<300).contains(http.statusCode) else {
            throw NSError(domain: "DeadzoneSession", code: http.statusCode,
                          userInfo: [NSLocalizedDescriptionKey: "\(method) \(path): \(object["error"] ?? http.statusCode)"])
        }
        return object
    }

    func announce(_ event: [String: Any]) throws { _ = try call("POST", "session/announce", event) }
}

final class DeadzoneSessionUITests: XCTestCase {
    let session = DeadzoneSession(api: URL(string: "http://127.0.0.1:8474")!)

    /// The app downloads "clear" on WiFi only, is killed mid-download and relaunched; it must
    /// keep what it had stored and resume the partial segment by Range (crash-recovery), and
    /// never touch cellular (cellular-policy).
    func testADownloadSurvivesAKillAndKeepsOffCellular() throws {
        let state = try session.call("GET", "session")
        let interfaces = try XCTUnwrap(state["interfaces"] as? [String: String])
        let storage = try XCTUnwrap(state["storage"] as? String)

        let app = XCUIApplication()
        app.launchEnvironment = ["DEADZONE_ORIGIN": "http://" + interfaces["wifi", default: ""],
                                 "DEADZONE_STORAGE": storage]
        try session.announce(["event": "launched", "after": "clean"])
        app.launch()

        // The user asks for the download; the app's "use cellular" setting is off by default.
        app.buttons["Download clear"].tap()
        try session.announce(["event": "downloadRequested", "video": "clear", "allowsCellular": false])

        // Wait for progress the app shows, then kill it mid-download. terminate() ends the
        // process from outside, without the app's say: announced as a crash.
        XCTAssertTrue(app.staticTexts["2 segments"].waitForExistence(timeout: 60))
        app.terminate()
        try session.announce(["event": "killed", "reason": "crash"])

        // WiFi goes down for a while after the relaunch; cellular stays up.
        _ = try session.call("POST", "deadzone/interfaces/wifi", ["state": "down", "mode": "reset"])
        try session.announce(["event": "launched", "after": "crash"])
        app.launch()
        _ = try session.call("POST", "deadzone/interfaces/wifi", ["state": "up"])
        XCTAssertTrue(app.staticTexts["Downloaded"].waitForExistence(timeout: 120))

        let result = try session.call("POST", "session/end")
        let verdicts = try XCTUnwrap(result["verdicts"] as? [String: [String: String]])
        XCTAssertEqual(verdicts["crash-recovery"]?["outcome"], "passed", verdicts["crash-recovery"]?["summary"] ?? "")
        XCTAssertEqual(verdicts["cellular-policy"]?["outcome"], "passed", verdicts["cellular-policy"]?["summary"] ?? "")
    }
}

@testable import DeadzoneKit
import Foundation
import Testing

/// The kit's command loop over a real pipe: each command becomes a call on the app, and
/// each reply carries the command's id and what the protocol asks of it.
@Suite struct CommandLoopTests {
    @Test func helloIsAnsweredWithTheAppsNameCapabilitiesAndPidThenLaunched() throws {
        let app = RecordingApp()
        let pipe = KitPipe(app: app)
        let (reply, launched) = try pipe.hello(after: "crash")
        #expect(reply["type"] as? String == "reply" && reply["id"] as? Int == 1)
        #expect(reply["protocol"] as? Int == 1 && reply["app"] as? String == "recording 1.0")
        #expect(reply["capabilities"] as? [String] == ["inspect", "licenses", "pause"])
        #expect(reply["pid"] as? Int == Int(getpid()))
        #expect(launched["name"] as? String == "launched" && launched["after"] as? String == "crash")
        #expect((launched["t"] as? Int ?? 0) > 0)
        #expect(app.calls == ["launch /tmp/s crash", "didLaunch"])
    }

    @Test func helloHandsTheAppTheRunsCAWhenItIsServedOverHTTPS() throws {
        let app = RecordingApp()
        let pipe = KitPipe(app: app)
        pipe.send(["type": "command", "id": 1, "name": "hello", "protocol": 1, "storage": "/tmp/s", "after": "clean",
                   "caFile": "/tmp/run/ca.pem"])
        _ = try pipe.next()
        #expect(app.launches == [Launch(storage: "/tmp/s", after: .clean, caFile: "/tmp/run/ca.pem")])
        _ = try KitPipe(app: app).hello()
        #expect(app.launches.last?.caFile == nil)
    }

    @Test func aCommandBeforeHelloIsRefusedAndReachesNoApp() throws {
        let app = RecordingApp()
        let pipe = KitPipe(app: app)
        pipe.send(["type": "command", "id": 4, "name": "setForeground", "foreground": false])
        let reply = try pipe.next()
        #expect(reply["id"] as? Int == 4 && reply["error"] as? String == "hello first: no command is taken before it")
        #expect(app.calls.isEmpty)
    }

    @Test func anotherProtocolVersionIsRefusedAndEndsTheProcessWithStatus2() throws {
        let pipe = KitPipe(app: RecordingApp())
        let outcome = pipe.send(["type": "command", "id": 1, "name": "hello", "protocol": 2, "storage": "/s", "after": "clean"])
        #expect(outcome == .exit(2))
        #expect(try pipe.next()["error"] as? String == "this app speaks protocol 1, not 2")
    }

    @Test func setPathHandsTheAppEachInterfaceWithItsEndpointAndProxy() throws {
        let app = RecordingApp()
        let pipe = KitPipe(app: app)
        _ = try pipe.hello()
        pipe.send(["type": "command", "id": 2, "name": "setPath", "interfaces": [
            ["kind": "wifi", "endpoint": "127.0.0.2:4001", "proxy": "http://127.0.0.2:4001", "isExpensive": false, "isConstrained": false],
            ["kind": "cellular", "endpoint": "127.0.0.3:4002", "isExpensive": true, "isConstrained": false],
        ]])
        let reply = try pipe.next()
        #expect(reply["id"] as? Int == 2 && reply["error"] == nil)
        #expect(app.lastPath == [
            NetworkInterface(kind: .wifi, host: "127.0.0.2", port: 4001, proxy: URL(string: "http://127.0.0.2:4001"), isExpensive: false),
            NetworkInterface(kind: .cellular, host: "127.0.0.3", port: 4002, isExpensive: true),
        ])
        let wifi = try #require(app.lastPath.first)
        #expect(wifi.routed(URL(string: "http://127.0.0.1:8080/videos/clear/master.m3u8?x=1")!).absoluteString
            == "http://127.0.0.2:4001/videos/clear/master.m3u8?x=1")

        pipe.send(["type": "command", "id": 3, "name": "setPath", "interfaces": [["kind": "wifi", "endpoint": "nowhere"]]])
        #expect(try pipe.next()["error"] as? String == "the endpoint nowhere is not host:port")
    }

    @Test func booleansAndNumbersAreToldApart() throws {
        let app = RecordingApp()
        let pipe = KitPipe(app: app)
        _ = try pipe.hello()
        pipe.send(["type": "command", "id": 2, "name": "setForeground", "foreground": false])
        pipe.send(["type": "command", "id": 3, "name": "setAllowsCellular", "allowed": 1])
        #expect(try pipe.next()["id"] as? Int == 2)
        #expect(try pipe.next()["error"] as? String == "the command lacks the field allowed")
        #expect(app.calls.suffix(1) == ["setForeground false"])
    }

    @Test func requestDecodesTheCatalogEntryAndAnswersTheDownloadsID() throws {
        let app = RecordingApp()
        let pipe = KitPipe(app: app)
        _ = try pipe.hello()
        let video: [String: Any] = [
            "id": "protected", "name": "Protected", "duration": 60, "offline_enabled": true,
            "sources": [["url": "/videos/protected/master.m3u8", "type": "application/x-mpegURL", "key_systems": [
                ["name": "com.apple.fps.1_0", "certificate_url": "/fps/cert", "license_url": "/fps/license", "key_uri": "skd://protected"],
            ]]],
        ]
        pipe.send(["type": "command", "id": 7, "name": "request", "video": video, "catalogURL": "http://127.0.0.1:8080/videos/protected",
                   "allowsCellular": true, "rentalSeconds": 30, "audioLanguages": ["fr"], "subtitleLanguages": []])
        let reply = try pipe.next()
        #expect(reply["id"] as? Int == 7 && reply["download"] as? String == "d1")
        let request = try #require(app.lastRequest)
        #expect(request.video.id == "protected" && request.allowsCellular == true && request.rentalSeconds == 30)
        #expect(request.audioLanguages == ["fr"])
        let source = try #require(request.video.hlsSource)
        #expect(source.keySystems?.first?.licenseURL == "/fps/license" && source.keySystems?.first?.keyURI == "skd://protected")
        #expect(request.resolve(source.url)?.absoluteString == "http://127.0.0.1:8080/videos/protected/master.m3u8")

        app.downloadID = ""
        pipe.send(["type": "command", "id": 8, "name": "request", "video": video, "catalogURL": "http://127.0.0.1:8080/videos/protected"])
        #expect(try pipe.next()["error"] as? String == "not sent (it breaks the app protocol): a download id must not be empty")
    }

    @Test func inspectionAndRefusalsAreAnsweredAsTheProtocolSays() throws {
        let app = RecordingApp()
        let pipe = KitPipe(app: app)
        _ = try pipe.hello()
        pipe.send(["type": "command", "id": 2, "name": "inspect", "download": "d1"])
        let inspection = try #require(try pipe.next()["inspection"] as? [String: Any])
        #expect(inspection["download"] as? String == "d1" && inspection["state"] as? String == "downloaded")
        #expect(inspection["playable"] as? Bool == true && inspection["package"] as? String == "/tmp/s/p/master.m3u8")

        app.inspection = Inspection(known: true, playable: true, package: "p/master.m3u8")
        pipe.send(["type": "command", "id": 3, "name": "inspect", "download": "d1"])
        #expect(try pipe.next()["error"] as? String
            == "not sent (it breaks the app protocol): inspection of d1: package p/master.m3u8 is not an absolute path")
        pipe.send(["type": "command", "id": 4, "name": "pause", "download": "d1"])
        #expect(try pipe.next()["error"] as? String == "no such download")
        pipe.send(["type": "command", "id": 5, "name": "pause"])
        #expect(try pipe.next()["error"] as? String == "the command lacks the field download")
        pipe.send(["type": "command", "id": 6, "name": "rewind", "download": "d1"])
        #expect(try pipe.next()["error"] as? String == "unknown command rewind")
    }

    @Test func prepareForBackgroundDoesNotHoldTheCommandsAfterIt() throws {
        let app = RecordingApp()
        app.holdsBackground = true
        let pipe = KitPipe(app: app)
        _ = try pipe.hello()
        pipe.send(["type": "command", "id": 2, "name": "prepareForBackground"])
        pipe.send(["type": "command", "id": 3, "name": "setForeground", "foreground": false])
        // The later command is answered while prepareForBackground still waits.
        #expect(try pipe.next()["id"] as? Int == 3)
        app.backgroundGate.signal()
        let reply = try pipe.next()
        #expect(reply["id"] as? Int == 2)
        #expect(reply["unfinished"] as? [String: String] == ["d1": "the license server did not answer"])
    }

    @Test func shutdownCallsTheAppRepliesAndEndsWithStatus0() throws {
        let app = RecordingApp()
        let pipe = KitPipe(app: app)
        _ = try pipe.hello()
        #expect(pipe.send(["type": "command", "id": 9, "name": "shutdown"]) == .exit(0))
        #expect(try pipe.next()["id"] as? Int == 9)
        #expect(app.calls.last == "shutdown")
    }

    @Test func aRefusedConnectionEndsWithStatus2AndGarbageIsIgnored() {
        let pipe = KitPipe(app: RecordingApp())
        #expect(pipe.loop.handle("not json at all") == .goOn)
        #expect(pipe.loop.handle(#"{"type":"refused","error":"token used already"}"#) == .exit(2))
    }
}

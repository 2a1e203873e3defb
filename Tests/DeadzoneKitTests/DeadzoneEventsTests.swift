@testable import DeadzoneKit
import Foundation
import Testing

/// The kit's events: each line is stamped and written whole, and a line the harness would
/// refuse is not written at all: the method throws saying why.
@Suite struct DeadzoneEventsTests {
    private func launched() throws -> (KitPipe, DeadzoneEvents) {
        let app = RecordingApp()
        let pipe = KitPipe(app: app)
        _ = try pipe.hello()
        return (pipe, try #require(app.events))
    }

    @Test func validEventsAreWrittenWithTheirFieldsAndARisingClock() throws {
        let (pipe, events) = try launched()
        try events.stateChanged("d1", from: .notDownloaded, to: .requested)
        try events.progress("d1", selection: "video", fraction: 0.25)
        try events.segmentStored("d1", stream: "video", index: 3, bytes: 98_304, path: "/videos/clear/400k/seg3.ts")
        try events.licenseAcquired("d1", expiration: Date(timeIntervalSince1970: 1_795_000_000))
        try events.finished("d1", package: "/tmp/s/packages/d1/master.m3u8")
        try events.partialSegmentsFound([PartialSegment(download: "d1", stream: "video", index: 4, path: "/videos/clear/400k/seg4.ts", bytes: 51_200)])
        let lines = try (0..<6).map { _ in try pipe.next() }
        #expect(lines.map { $0["name"] as? String } == [
            "stateChanged", "progress", "segmentStored", "licenseAcquired", "finished", "partialSegmentsFound",
        ])
        #expect(lines.allSatisfy { $0["type"] as? String == "event" })
        let clock = lines.compactMap { $0["t"] as? Int }
        #expect(clock.count == 6 && clock == clock.sorted())
        #expect(lines[0]["from"] as? String == "notDownloaded" && lines[0]["to"] as? String == "requested")
        #expect(lines[1]["fraction"] as? Double == 0.25)
        #expect(lines[2]["index"] as? Int == 3 && lines[2]["bytes"] as? Int == 98_304)
        #expect(lines[3]["expiration"] as? String == "2026-11-18T11:06:40Z")
        #expect((lines[5]["segments"] as? [[String: Any]])?.first?["bytes"] as? Int == 51_200)
    }

    @Test func aLineTheHarnessWouldRefuseIsNotWritten() throws {
        let (pipe, events) = try launched()
        #expect(throws: KitError.invalid("progress of d1: fraction 1.5 is not within 0…1")) {
            try events.progress("d1", selection: "video", fraction: 1.5)
        }
        #expect(throws: KitError.invalid("segmentStored: seg3.ts is not an origin path (the URL's path, from /)")) {
            try events.segmentStored("d1", stream: "video", index: 3, bytes: 10, path: "seg3.ts")
        }
        #expect(throws: KitError.invalid("a download id must not be empty")) { try events.evicted("") }
        #expect(throws: KitError.invalid("finished of d1: package master.m3u8 is not an absolute path")) {
            try events.finished("d1", package: "master.m3u8")
        }
        // Nothing of the refused lines reached the pipe: the next line is this one.
        try events.error("the index could not be opened")
        #expect(try pipe.next()["message"] as? String == "the index could not be opened")
    }

    @Test func aStateChangeMustStartFromTheStateLastReported() throws {
        let (pipe, events) = try launched()
        try events.stateChanged("d1", from: .notDownloaded, to: .requested)
        #expect(throws: KitError.invalid("stateChanged of d1 from downloading, but its last reported state is requested")) {
            try events.stateChanged("d1", from: .downloading, to: .suspendedNetwork)
        }
        try events.stateChanged("d1", from: .requested, to: .downloading)
        #expect(try pipe.next()["to"] as? String == "requested")
        #expect(try pipe.next()["to"] as? String == "downloading")
    }
}

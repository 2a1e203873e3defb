import Testing
@testable import LinkConditioner

/// Which of the app's reads begin a request (`appSent`), on plain and TLS streams, fed the
/// record sequences of TLS 1.2 and 1.3 handshakes as clients and servers send them.
struct AppMessageWatchTests {
    /// A record of `type` with `length` bytes of body.
    static func record(_ type: UInt8, _ length: Int = 40) -> [UInt8] {
        [type, 3, 3, UInt8(length >> 8), UInt8(length & 0xFF)] + [UInt8](repeating: 0xAB, count: length)
    }

    static let handshake = TLSRecordReader.handshake
    static let ccs = TLSRecordReader.changeCipherSpec
    static let data = TLSRecordReader.applicationData

    private static func app(_ watch: inout AppMessageWatch, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { watch.appRead($0) }
    }

    private static func server(_ watch: inout AppMessageWatch, _ bytes: [UInt8]) {
        bytes.withUnsafeBytes { watch.serverRead($0) }
        watch.delivered()
    }

    @Test func onAPlainStreamTheFirstReadAfterADeliveryBeginsAMessage() {
        var watch = AppMessageWatch()
        #expect(Self.app(&watch, Array("GET /a HTTP/1.1\r\n".utf8)))
        #expect(!Self.app(&watch, Array("Host: x\r\n\r\n".utf8)))
        Self.server(&watch, Array("HTTP/1.1 200 OK\r\n\r\n".utf8))
        #expect(Self.app(&watch, Array("GET /b HTTP/1.1\r\n\r\n".utf8)))
    }

    @Test func tls13TheHandshakeBeginsNoMessageTheRequestDoes() {
        var watch = AppMessageWatch()
        #expect(!Self.app(&watch, Self.record(Self.handshake, 300)), "ClientHello")
        // ServerHello, then the encrypted rest of the server's flight.
        Self.server(&watch, Self.record(Self.handshake, 90) + Self.record(Self.ccs, 1) + Self.record(Self.data, 2000))
        #expect(!Self.app(&watch, Self.record(Self.ccs, 1) + Self.record(Self.data, 53)), "the client's Finished")
        // The connection waits in a pool, nothing more delivered; then the request.
        #expect(Self.app(&watch, Self.record(Self.data, 120)), "the request")
        #expect(!Self.app(&watch, Self.record(Self.data, 120)), "more of it before any answer")
        Self.server(&watch, Self.record(Self.data, 500))
        #expect(Self.app(&watch, Self.record(Self.data, 120)), "the next request")
    }

    @Test func tls13AFinishedAndARequestInOneReadBeginAMessage() {
        var watch = AppMessageWatch()
        #expect(!Self.app(&watch, Self.record(Self.handshake, 300)))
        Self.server(&watch, Self.record(Self.handshake, 90) + Self.record(Self.data, 2000))
        #expect(Self.app(&watch, Self.record(Self.data, 53) + Self.record(Self.data, 120)))
    }

    @Test func tls12TheFirstApplicationDataIsTheRequest() {
        var watch = AppMessageWatch()
        #expect(!Self.app(&watch, Self.record(Self.handshake, 200)), "ClientHello")
        Self.server(&watch, Self.record(Self.handshake, 90) + Self.record(Self.handshake, 900) + Self.record(Self.handshake, 4))
        // ClientKeyExchange, ChangeCipherSpec, Finished (encrypted, still a handshake record).
        #expect(!Self.app(&watch, Self.record(Self.handshake, 70) + Self.record(Self.ccs, 1) + Self.record(Self.handshake, 40)))
        Self.server(&watch, Self.record(Self.ccs, 1) + Self.record(Self.handshake, 40))
        #expect(Self.app(&watch, Self.record(Self.data, 120)), "the request")
    }

    @Test func recordHeadersSplitAcrossReadsAreFollowed() {
        var watch = AppMessageWatch()
        let hello = Self.record(Self.handshake, 300)
        #expect(!Self.app(&watch, Array(hello.prefix(3))))
        #expect(!Self.app(&watch, Array(hello.dropFirst(3))))
        let flight = Self.record(Self.handshake, 90) + Self.record(Self.data, 2000)
        flight.prefix(97).withUnsafeBytes { watch.serverRead($0) }
        flight.dropFirst(97).withUnsafeBytes { watch.serverRead($0) }
        watch.delivered()
        #expect(!Self.app(&watch, Self.record(Self.data, 53)), "Finished")
        let request = Self.record(Self.data, 120)
        #expect(!Self.app(&watch, Array(request.prefix(0))))
        #expect(Self.app(&watch, Array(request.prefix(2))), "a read with the request's first header bytes")
        #expect(!Self.app(&watch, Array(request.dropFirst(2))))
    }

    @Test func aStreamThatStopsBeingTLSRecordsIsWatchedAsPlain() {
        var watch = AppMessageWatch()
        #expect(!Self.app(&watch, Self.record(Self.handshake, 10)))
        #expect(Self.app(&watch, [0x47, 0x45, 0x54, 0x20, 0x2F, 0x20]), "not a record type: plain from here")
        Self.server(&watch, Array("HTTP/1.1 200 OK\r\n\r\n".utf8))
        #expect(Self.app(&watch, Self.record(Self.handshake, 10)), "plain now, whatever the bytes")
    }

    @Test func aTunnelsStreamIsWatchedAfreshFromItsFirstByte() {
        var watch = AppMessageWatch()
        #expect(Self.app(&watch, Array("CONNECT 127.0.0.1:443 HTTP/1.1\r\n\r\n".utf8)))
        watch.tunnelOpened()
        watch.delivered()
        #expect(!Self.app(&watch, Self.record(Self.handshake, 300)), "the tunnel's ClientHello")
        Self.server(&watch, Self.record(Self.handshake, 90) + Self.record(Self.data, 2000))
        #expect(!Self.app(&watch, Self.record(Self.data, 53)))
        #expect(Self.app(&watch, Self.record(Self.data, 120)))
    }
}

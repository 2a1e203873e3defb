import FixtureOrigin
import TestSupport
import Testing

/// Reads a PNG back without any image library: chunks, CRCs, the zlib stream of stored
/// blocks and the filtered scanlines.
private struct DecodedPNG {
    var chunkTypes: [String] = []
    var width = 0, height = 0, bitDepth = 0, colourType = 0
    var zlib: [UInt8] = []

    init(_ bytes: [UInt8]) throws {
        try #require(bytes.count > 8 && Array(bytes[0..<8]) == PNGEncoder.signature)
        var offset = 8
        while offset < bytes.count {
            let length = Int(Self.uint32(bytes, offset))
            let type = Array(bytes[offset + 4..<offset + 8])
            let data = Array(bytes[offset + 8..<offset + 8 + length])
            let crc = Self.uint32(bytes, offset + 8 + length)
            #expect(PNGEncoder.crc32(type + data) == crc, "CRC of \(String(decoding: type, as: UTF8.self))")
            let name = String(decoding: type, as: UTF8.self)
            chunkTypes.append(name)
            if name == "IHDR" {
                width = Int(Self.uint32(data, 0))
                height = Int(Self.uint32(data, 4))
                bitDepth = Int(data[8])
                colourType = Int(data[9])
            }
            if name == "IDAT" { zlib += data }
            offset += 12 + length
        }
        #expect(offset == bytes.count)
    }

    /// Inflates a zlib stream made only of stored blocks; checks header and Adler-32.
    func inflateStored() throws -> [UInt8] {
        let (cmf, flg) = (zlib[0], zlib[1])
        #expect(cmf & 0x0F == 8)  // deflate
        #expect((Int(cmf) * 256 + Int(flg)) % 31 == 0)
        #expect(flg & 0x20 == 0)  // no preset dictionary
        var out: [UInt8] = []
        var offset = 2
        var final = false
        while !final {
            let header = zlib[offset]
            final = header & 1 == 1
            try #require(header >> 1 & 3 == 0, "stored block")
            let length = Int(zlib[offset + 1]) | Int(zlib[offset + 2]) << 8
            let complement = Int(zlib[offset + 3]) | Int(zlib[offset + 4]) << 8
            #expect(length ^ complement == 0xFFFF)
            out += zlib[offset + 5..<offset + 5 + length]
            offset += 5 + length
        }
        #expect(Self.uint32(zlib, offset) == PNGEncoder.adler32(out))
        #expect(offset + 4 == zlib.count)
        return out
    }

    static func uint32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        bytes[at..<at + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }
}

@Suite(.cpuHeavy) struct PNGEncoderTests {
    @Test func checksumsMatchKnownValues() {
        #expect(PNGEncoder.crc32(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(PNGEncoder.crc32(Array("IEND".utf8)) == 0xAE42_6082)
        #expect(PNGEncoder.adler32(Array("Wikipedia".utf8)) == 0x11E6_0398)
        #expect(PNGEncoder.adler32([]) == 1)
        // Long input exercises the modulo reduction.
        let long = [UInt8](repeating: 0xFF, count: 100_000)
        var a = 1, b = 0
        for byte in long { a = (a + Int(byte)) % 65_521; b = (b + a) % 65_521 }
        #expect(PNGEncoder.adler32(long) == UInt32(b << 16 | a))
    }

    @Test(arguments: [("poster.png", 320, 180), ("thumb.png", 160, 90)])
    func postersAndThumbnailsAreWellFormedPNGs(name: String, width: Int, height: Int) throws {
        let resource = try #require(contentStore.resource(at: "/videos/clear/\(name)"))
        #expect(resource.contentType == "image/png")
        let png = try DecodedPNG(resource.bytes)
        #expect(png.chunkTypes == ["IHDR", "IDAT", "IEND"])
        #expect((png.width, png.height, png.bitDepth, png.colourType) == (width, height, 8, 2))
        let raw = try png.inflateStored()
        #expect(raw.count == height * (1 + 3 * width))
        #expect(stride(from: 0, to: raw.count, by: 1 + 3 * width).allSatisfy { raw[$0] == 0 })
    }

    @Test func imagesDifferPerVideoAndAreDeterministic() {
        let clear = contentStore.resource(at: "/videos/clear/poster.png")?.bytes
        #expect(clear == ContentStore(configuration: contentConfiguration).resource(at: "/videos/clear/poster.png")?.bytes)
        #expect(clear != contentStore.resource(at: "/videos/protected/poster.png")?.bytes)
    }

    @Test func encodesPixelsExactly() throws {
        let bytes = PNGEncoder.encode(width: 2, height: 2) { x, y in (UInt8(x), UInt8(y), 7) }
        let raw = try DecodedPNG(bytes).inflateStored()
        #expect(raw == [0, 0, 0, 7, 1, 0, 7, 0, 0, 1, 7, 1, 1, 7])
    }

    @Test func emptyAndMultiBlockStreams() throws {
        #expect(PNGEncoder.zlibStored([]) == [0x78, 0x01, 1, 0, 0, 0xFF, 0xFF, 0, 0, 0, 1])
        let data = (0..<150_000).map { UInt8(truncatingIfNeeded: $0) }
        var png = try DecodedPNG(PNGEncoder.encode(width: 1, height: 1) { _, _ in (0, 0, 0) })
        png.zlib = PNGEncoder.zlibStored(data)
        #expect(try png.inflateStored() == data)
    }
}

import BenchCore
import Crypto
import _CryptoExtras

/// Deterministic synthetic media segments.
///
/// A segment's clear bytes are a xoshiro256** stream (`SeededGenerator`) seeded from
/// (catalog seed, video id, stream, index), with the MPEG-TS sync byte 0x47 stamped at
/// every 188-byte packet boundary so that sniffers see a transport stream. They are not
/// playable media: they are for byte-exact download checks (see `HashManifest`).
/// Generation is pure and runs on any thread; nothing is cached.
extension Catalog {
    /// Size of one MPEG-TS packet, the smallest segment.
    public static let transportPacketSize = 188

    /// Size of the clear segment `index` of `stream`: bandwidth / 8 × segment duration
    /// × `sizeScale`, rounded, at least one TS packet; nil if there is no such segment.
    public func clearSegmentSize(of video: Video, stream: String, index: Int) -> Int? {
        guard let bandwidth = video.bandwidth(ofStream: stream), (0..<segmentCount(of: video)).contains(index)
        else { return nil }
        let bytes = Double(bandwidth) / 8 * duration(ofSegment: index, of: video) * configuration.sizeScale
        return max(Self.transportPacketSize, Int(bytes.rounded()))
    }

    /// The clear bytes of segment `index` of `stream`, or nil if there is no such segment.
    public func clearSegment(of video: Video, stream: String, index: Int) -> [UInt8]? {
        guard let size = clearSegmentSize(of: video, stream: stream, index: index) else { return nil }
        var generator = SeededGenerator(seed: configuration.seed).derived("segment/\(video.id)/\(stream)/\(index)")
        var bytes = [UInt8](repeating: 0, count: size)
        bytes.withUnsafeMutableBytes { buffer in
            var offset = 0
            while offset + 8 <= size {
                buffer.storeBytes(of: generator.next().littleEndian, toByteOffset: offset, as: UInt64.self)
                offset += 8
            }
            if offset < size {
                let last = generator.next()
                for i in offset..<size { buffer[i] = UInt8(truncatingIfNeeded: last >> (8 * UInt64(i - offset))) }
            }
            for packet in stride(from: 0, to: size, by: Self.transportPacketSize) { buffer[packet] = 0x47 }
        }
        return bytes
    }

    /// AES-128-CBC with PKCS7 padding. The key and IV are always 16 bytes here, so
    /// the only failures swift-crypto can report cannot happen.
    static func encrypt(_ clear: [UInt8], key: [UInt8], iv: [UInt8]) -> [UInt8] {
        do {
            let cbcIV = try AES._CBC.IV(ivBytes: iv)
            return Array(try AES._CBC.encrypt(clear, using: SymmetricKey(data: key), iv: cbcIV))
        } catch {
            preconditionFailure("AES-128-CBC with a 16-byte key and IV cannot fail: \(error)")
        }
    }
}

import Foundation

/// Bytes for tests and benchmarks, written in place. In a debug build (`swift test`),
/// `Data((0..<count).map { … })` costs about a microsecond a byte in unspecialized generic
/// calls, on a thread of the concurrency pool (2.8 s for 3 MiB): the suite's few-MiB files held
/// both pool threads of a two-core machine for seconds at a time. These cost about 10 ns a byte.
package enum PatternBytes {
    /// `count` bytes, the one at each index `byte(index)`.
    package static func make(_ count: Int, _ byte: (Int) -> UInt8) -> Data {
        var data = Data(count: max(count, 0))
        data.withUnsafeMutableBytes { bytes in
            var index = 0
            while index < bytes.count {
                bytes[index] = byte(index)
                index &+= 1
            }
        }
        return data
    }

    /// `count` bytes that look random (and do not compress), the same for the same `seed`.
    package static func noise(_ count: Int, seed: UInt64 = 0x5EED) -> Data {
        var generator = SplitMix64(seed: seed)
        var word: UInt64 = 0
        return make(count) { index in
            if index & 7 == 0 { word = generator.next() }
            return UInt8(truncatingIfNeeded: word >> UInt64((index & 7) * 8))
        }
    }
}

/// A file of a repeating pattern, for uploads whose size is the point (the benchmarks and the
/// upload probes): each mebibyte starts with its own round number, so a piece sent twice or out of
/// order changes the file's hash.
package enum PatternFile {
    /// Writes `size` bytes of a repeating pattern, a mebibyte at a time.
    package static func write(_ url: URL, size: Int64) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var chunk = PatternBytes.make(1 << 20) { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        var written: Int64 = 0
        var round: UInt8 = 0
        while written < size {
            chunk[0] = round
            round &+= 1
            let piece = chunk.prefix(Int(min(Int64(chunk.count), size - written)))
            try handle.write(contentsOf: piece)
            written += Int64(piece.count)
        }
    }
}

import Foundation

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
        var chunk = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
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

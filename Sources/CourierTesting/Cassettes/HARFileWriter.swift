import Courier
import Foundation

/// Writes a cassette's HAR file: pretty-printed with sorted keys, one entry after another, so that
/// new recordings are appended in place of rewriting the file (an exchange costs the same
/// whatever the cassette's length). The whole file and appended entries are made of the same
/// pieces, so both give the same bytes.
struct HARFileWriter {
    let file: URL

    init(file: URL) {
        self.file = file
    }

    /// The file, open since this writer last wrote it whole, and where its tail starts; `nil`
    /// until it has written the whole file once (a file read from disk may be laid out otherwise).
    private var handle: FileHandle?
    private var tailOffset: UInt64 = 0

    private static let head = Array("""
        {
          "log" : {
            "creator" : {
              "name" : "Courier",
              "version" : "\(HARCreator.courierVersion)"
            },
            "entries" : [

        """.utf8)
    private static let tail = Array("""

            ],
            "version" : "1.2"
          }
        }

        """.utf8)

    /// Puts `batch`, the cassette's entries from index `start` on, into the file: appends them to
    /// what this writer wrote before, or writes the whole file when `start` is 0 (the batch is
    /// then every entry).
    mutating func write(_ batch: [CassetteEntry], after start: Int) throws(CourierError) {
        do {
            if start > 0 {
                // A writer that never wrote the whole file has no place to append to; the cassette
                // stops writing after a failed write, so this is not reached.
                guard let handle else { throw CocoaError(.fileWriteUnknown) }
                tailOffset = try append(batch[...], to: handle, at: tailOffset)
            } else {
                try? handle?.close()
                handle = nil
                try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                var json = JSONWriter(prettyPrinted: true, depth: 3, capacity: 4096 * (batch.count + 1))
                Self.head.withUnsafeBytes { json.writeRaw($0) }
                try Self.encode(batch[...], first: true, into: &json)
                let tailStart = json.count
                Self.tail.withUnsafeBytes { json.writeRaw($0) }
                try json.data.write(to: file, options: .atomic)
                handle = try FileHandle(forUpdating: file)
                tailOffset = UInt64(tailStart)
            }
        } catch {
            throw CourierError(.cassetteInvalid, "The cassette \(file.path) could not be written: \(error)", underlyingError: error)
        }
    }

    /// Writes `entries` over the old tail at `offset`, and the tail after them; returns where the new tail starts.
    private func append(_ entries: ArraySlice<CassetteEntry>, to handle: FileHandle, at offset: UInt64) throws -> UInt64 {
        var json = JSONWriter(prettyPrinted: true, depth: 3, capacity: 4096 * entries.count)
        try Self.encode(entries, first: false, into: &json)
        let newTail = offset + UInt64(json.count)
        Self.tail.withUnsafeBytes { json.writeRaw($0) }
        try json.withBytes { bytes in try Self.write(bytes, to: handle, at: offset) }
        return newTail
    }

    /// Writes `bytes` at `offset` with one `pwrite(2)` (a seek and a write cost two system calls).
    private static func write(_ bytes: UnsafeRawBufferPointer, to handle: FileHandle, at offset: UInt64) throws {
        guard let base = bytes.baseAddress else { return }
        var done = 0
        while done < bytes.count {
            let written = pwrite(handle.fileDescriptor, base + done, bytes.count - done, off_t(offset) + off_t(done))
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            done += written
        }
    }

    /// `entries` pretty-printed with sorted keys, each indented to its place in `log.entries` and
    /// after a separator (but the first, when `first`: it opens the array).
    private static func encode(_ entries: ArraySlice<CassetteEntry>, first: Bool, into json: inout JSONWriter) throws {
        for (index, entry) in zip(entries.indices, entries) {
            if index > entries.startIndex || !first { Self.separator.withUnsafeBytes { json.writeRaw($0) } }
            Self.indent.withUnsafeBytes { json.writeRaw($0) }
            try entry.write(to: &json)
        }
    }

    private static let separator = Array(",\n".utf8)
    private static let indent = Array("      ".utf8)
}

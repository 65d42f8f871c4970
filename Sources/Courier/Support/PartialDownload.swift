import Foundation

/// A download being written: a hidden temporary file beside its destination, moved into place
/// by ``commit()`` once the body is whole and removed by ``discard()`` otherwise, so the
/// destination never holds part of a body.
package struct PartialDownload {
    /// Where the body goes once whole.
    package let destination: URL
    /// The file being written.
    package let temporary: URL
    private let handle: FileHandle
    /// Bytes written so far.
    package private(set) var written: Int64 = 0

    /// Creates the temporary file beside `destination`.
    package init(for destination: URL) throws {
        let temporary = Self.temporaryFile(beside: destination)
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil),
            let handle = FileHandle(forWritingAtPath: temporary.path)
        else {
            throw CourierError(
                .transport, "The download could not be written next to \(destination.path): check that the folder exists and is writable.",
                url: destination)
        }
        self.destination = destination
        self.temporary = temporary
        self.handle = handle
    }

    /// A new hidden file name in `destination`'s folder, so the final rename stays on one file system.
    package static func temporaryFile(beside destination: URL) -> URL {
        destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).courier-\(UUID().uuidString).download")
    }

    /// Appends `bytes` to the file.
    package mutating func write(_ bytes: some DataProtocol) throws {
        do {
            try handle.write(contentsOf: bytes)
        } catch {
            throw CourierError(
                .transport, "The download could not be written next to \(destination.path): \(error.localizedDescription)",
                url: destination, underlyingError: error)
        }
        written += Int64(bytes.count)
    }

    /// Closes the file and moves it to the destination, replacing what was there; on failure the
    /// temporary file is removed.
    package func commit() throws {
        do {
            try handle.close()
            try FileReplacement.replace(destination, with: temporary)
        } catch {
            discard()
            throw error
        }
    }

    /// Closes and removes the temporary file; the destination is left as it was.
    package func discard() {
        try? handle.close()
        try? FileManager.default.removeItem(at: temporary)
    }
}

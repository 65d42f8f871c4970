import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one way Courier replaces a file: the new contents go to a temporary file beside it, which is
/// then renamed over it, so a reader (or a process that crashed half way) sees the old file or the
/// new one, never a part. The credential store, the disk cache and its index, the outbox's bodies,
/// a resumable download's record and a finished download all write through it.
package enum AtomicFile {
    /// Fills `temporary` (a new file beside `destination`, created with `permissions`) with `fill`,
    /// then renames it over `destination`. With `durable`, the bytes and then the rename are
    /// synchronised to the disk (the file, then its folder), for what must survive a power loss.
    /// On any failure the temporary file is removed and `destination` is as it was.
    package static func write(
        _ destination: URL, temporary: URL, permissions: mode_t = 0o644, durable: Bool = false, _ fill: (FileHandle) throws -> Void
    ) throws {
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_TRUNC, permissions)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: temporary.path]) }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        do {
            try fill(handle)
            if durable { try handle.synchronize() }
            try handle.close()
            guard rename(temporary.path, destination.path) == 0 else {
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO, userInfo: [NSFilePathErrorKey: destination.path])
            }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
        if durable { synchronizeFolder(of: destination) }
    }

    /// Writes `data` to `destination` as ``write(_:temporary:permissions:durable:_:)`` does.
    package static func write(
        _ data: Data, to destination: URL, temporary: URL, permissions: mode_t = 0o644, durable: Bool = false
    ) throws {
        try write(destination, temporary: temporary, permissions: permissions, durable: durable) { try $0.write(contentsOf: data) }
    }

    /// A new hidden name in `destination`'s folder, so the final rename stays on one file system.
    package static func temporaryFile(beside destination: URL) -> URL {
        destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).courier-\(UUID().uuidString).tmp")
    }

    /// Moves `file` to `destination`, replacing what is there in one step (`rename`); across file
    /// systems, copies it to a temporary file beside the destination first, then removes `file`.
    package static func move(_ file: URL, to destination: URL) throws {
        if rename(file.path, destination.path) == 0 { return }
        guard errno == EXDEV else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO, userInfo: [NSFilePathErrorKey: destination.path]) }
        let source = try FileHandle(forReadingFrom: file)
        defer { try? source.close() }
        try write(destination, temporary: temporaryFile(beside: destination)) { handle in
            while let chunk = try source.read(upToCount: 1 << 20), !chunk.isEmpty { try handle.write(contentsOf: chunk) }
        }
        try? FileManager.default.removeItem(at: file)
    }

    /// Makes a rename in `file`'s folder durable.
    private static func synchronizeFolder(of file: URL) {
        let descriptor = open(file.deletingLastPathComponent().path, O_RDONLY)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        _ = close(descriptor)
    }
}

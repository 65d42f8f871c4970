import Courier
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Streamed bodies (file uploads, multipart bodies with file parts) kept as files beside the
/// store, in `<store file>.outbox/`, one file per entry named by its idempotency key: the app's
/// file may change or go before the write is sent, and a large body does not belong in SQLite.
/// In-memory stores keep every body in the database.
struct OutboxBodies: Sendable {
    /// The directory; `nil` for an in-memory store.
    let directory: URL?
    /// Files being written for entries not committed yet, which a sweep must leave.
    private let writing = Locked<Set<String>>([])

    init(store: CourierStore) {
        directory = store.path.map(Self.directory(of:))
    }

    /// The directory of the store file at `path`.
    static func directory(of path: URL) -> URL {
        path.deletingLastPathComponent().appendingPathComponent(path.lastPathComponent + ".outbox", isDirectory: true)
    }

    /// The file named `name`.
    func url(of name: String) -> URL? {
        directory?.appendingPathComponent(name)
    }

    /// Copies `body` into the file `name`, durably (written, synchronised, renamed into place,
    /// the directory synchronised), before its entry is committed; ``committed(_:)`` ends the
    /// protection from sweeps.
    func keep(_ body: StreamedBody, name: String) throws(CourierError) {
        guard let directory else { return }
        writing.withLock { _ = $0.insert(name) }
        let target = directory.appendingPathComponent(name)
        let temporary = directory.appendingPathComponent(".\(name).tmp")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try AtomicFile.write(target, temporary: temporary, permissions: 0o600, durable: true) { handle in
                var chunks = body.chunks(size: 1 << 20).makeIterator()
                while let chunk = try chunks.next() { try handle.write(contentsOf: chunk) }
            }
        } catch {
            committed(name)
            throw CourierError.store(error, path: target, doing: "be written with the body of a write (the write was not kept)")
        }
    }

    /// The entry of file `name` is committed (or was not kept): sweeps may judge the file by the table.
    func committed(_ name: String) {
        _ = writing.withLock { $0.remove(name) }
    }

    /// Deletes the files named, after their entries left the outbox.
    func remove(_ names: some Sequence<String?>) {
        for name in names.compactMap({ $0 }) {
            if let url = url(of: name) { try? FileManager.default.removeItem(at: url) }
        }
    }

    /// Deletes every file no entry refers to (left by a crash between a file and its commit, or
    /// between a commit and the file's removal), but those being written now.
    func sweep(keeping referenced: Set<String>) {
        guard let directory, let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        let busy = writing.withLock { $0 }
        for name in names where !referenced.contains(name) && !busy.contains(name) && !busy.contains(where: { name == ".\($0).tmp" }) {
            try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
        }
    }
}

import Foundation

/// The `.apicache` files: atomic writes (a temporary file renamed into place), verified reads that
/// remove what they refuse, and the sweep of temporary files left by processes that died.
struct DiskCacheStore: Sendable {
    let directory: URL
    /// The directory's path with a trailing `/`: an entry's path is this and its relative path,
    /// joined as text (building a `URL` per lookup cost more than the rest of a cache miss).
    private let directoryPath: String

    init(directory: URL) {
        self.directory = directory
        let path = directory.path
        directoryPath = path.hasSuffix("/") ? path : path + "/"
    }

    /// Temporary files carry the writer's process id: `<digest>.<pid>.tmp`.
    static let temporarySuffix = ".tmp"

    func url(for key: CacheKey) -> URL { directory.appendingPathComponent(key.relativePath) }

    /// The entry, or `nil` when absent; a file that is corrupt, truncated or foreign is removed.
    func read(_ key: CacheKey) -> Result<CachedResponse, CacheEntryCodec.Failure>? {
        // A miss is the common case: one `open` that fails, no error object built and dropped,
        // and no path string made for it (the C path is written on the stack).
        let descriptor = Self.withCPath(directoryPath, key.relativePath) { open($0, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { return nil }
        // Not a file (a folder in the way), or unreadable: a miss, nothing removed.
        guard let bytes = Self.readAll(descriptor) else { return nil }
        do throws(CacheEntryCodec.Failure) {
            return .success(try CacheEntryCodec.decode(bytes, digest: key.digest))
        } catch {
            try? FileManager.default.removeItem(atPath: directoryPath + key.relativePath)
            return .failure(error)
        }
    }

    /// The whole content of the open file `descriptor`, which it closes; `nil` for what is not a
    /// regular file or cannot be read. Sized by `fstat`, read with `read`: a `FileHandle` and
    /// its `Data` cost more than a small entry's bytes.
    private static func readAll(_ descriptor: Int32) -> [UInt8]? {
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size))
        var filled = 0
        let complete = bytes.withUnsafeMutableBytes { buffer -> Bool in
            while filled < buffer.count {
                let count = readFile(descriptor, buffer.baseAddress.unsafelyUnwrapped + filled, buffer.count - filled)
                if count > 0 {
                    filled += count
                } else if count == 0 {
                    return true  // shorter than fstat said (another process replaced it): what was read
                } else if errno != EINTR {
                    return false
                }
            }
            return true
        }
        guard complete else { return nil }
        if filled < bytes.count { bytes.removeLast(bytes.count - filled) }
        return bytes
    }

    /// Whether the folder `relative` (`<scope>/<path digest>`) exists: when it does not, no entry
    /// of that path is stored.
    func hasFolder(_ relative: String) -> Bool {
        Self.withCPath(directoryPath, relative) { access($0, F_OK) == 0 }
    }

    /// Calls `body` with `directory` and `relative` joined as a NUL-terminated C string.
    private static func withCPath<Result>(_ directory: String, _ relative: String, _ body: (UnsafePointer<CChar>) -> Result) -> Result {
        var directory = directory, relative = relative
        return directory.withUTF8 { head in
            relative.withUTF8 { tail in
                withUnsafeTemporaryAllocation(of: CChar.self, capacity: head.count + tail.count + 1) { buffer in
                    let bytes = UnsafeMutableRawBufferPointer(buffer)
                    bytes.copyMemory(from: UnsafeRawBufferPointer(head))
                    UnsafeMutableRawBufferPointer(rebasing: bytes[head.count...]).copyMemory(from: UnsafeRawBufferPointer(tail))
                    buffer[head.count + tail.count] = 0
                    return body(UnsafePointer(buffer.baseAddress.unsafelyUnwrapped))
                }
            }
        }
    }

    /// Writes the entry atomically and returns its size on disk.
    @discardableResult
    func write(_ response: CachedResponse, for key: CacheKey) throws -> Int {
        let final = url(for: key)
        let folder = final.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let temporary = folder.appendingPathComponent("\(key.digest).\(getpid()).\(UInt32.random(in: 0...UInt32.max))\(Self.temporarySuffix)")
        let data = CacheEntryCodec.encode(response, digest: key.digest)
        try AtomicFile.write(data, to: final, temporary: temporary)
        return data.count
    }

    func remove(_ key: CacheKey) {
        try? FileManager.default.removeItem(at: url(for: key))
    }

    /// Removes a file or folder under the directory (an entry, a scope, or a scope's path).
    func removeItem(_ relativePath: String) {
        let url = directory.appendingPathComponent(relativePath)
        guard FileManager.default.fileExists(atPath: url.path) else { return }
        try? FileManager.default.removeItem(at: url)
    }

    /// Every entry file and its size, found by listing the folders (no entry is read).
    func scan() -> [(relativePath: String, size: Int)] {
        var found: [(String, Int)] = []
        for scope in contents(of: directory) {
            for path in contents(of: directory.appendingPathComponent(scope)) {
                let folder = directory.appendingPathComponent(scope).appendingPathComponent(path)
                for name in contents(of: folder) where name.hasSuffix(".apicache") {
                    let size = (try? FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(name).path)[.size] as? Int) ?? 0
                    found.append(("\(scope)/\(path)/\(name)", size))
                }
            }
        }
        return found
    }

    /// Removes temporary files (`<name>.<pid>.<random>.tmp`) whose writing process is gone.
    func sweepTemporaryFiles() {
        var folders = [directory]
        for scope in contents(of: directory) {
            for path in contents(of: directory.appendingPathComponent(scope)) {
                folders.append(directory.appendingPathComponent(scope).appendingPathComponent(path))
            }
        }
        for folder in folders {
            for name in contents(of: folder) where name.hasSuffix(Self.temporarySuffix) {
                let parts = name.split(separator: ".")
                let pid = parts.count >= 4 ? pid_t(parts[parts.count - 3]) : nil
                if let pid, pid == getpid() || kill(pid, 0) == 0 || errno == EPERM { continue }
                try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
            }
        }
    }

    private func contents(of folder: URL) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    }
}

/// The C library's `read` (inside ``DiskCacheStore`` the name is its own method's).
private func readFile(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

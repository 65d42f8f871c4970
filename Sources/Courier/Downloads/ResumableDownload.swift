import Foundation

/// A download kept so it can resume: the part on disk and what is needed to ask for the rest
/// (``APIClient/download(_:to:resuming:sha256:)``). Listed by ``APIClient/resumableDownloads()``.
public struct ResumableDownload: Sendable, Hashable {
    /// The identifier the app gave: the download is kept under it, whatever its URL.
    public var identifier: String
    /// The URL it was last asked from.
    public var url: URL
    /// Where the file goes once whole.
    public var destination: URL
    /// The bytes already on disk.
    public var bytesOnDisk: Int64
    /// The whole file's length, when the server gave it.
    public var totalBytes: Int64?
}

/// Where a client keeps its resumable downloads: per user scope, for each identifier a partial
/// file (`<identifier>.part`) and a small record beside it (`<identifier>.json`: URL, destination,
/// validator, total).
struct DownloadStore: Sendable {
    /// What is kept of a download besides its bytes.
    struct Record: Codable, Sendable {
        var url: String
        var destination: String
        /// A strong `ETag`, or a `Last-Modified` at least a minute old: what `If-Range` sends. A
        /// download with none cannot resume (nothing proves the rest belongs to the same file).
        var validator: String?
        var total: Int64?
    }

    let directory: URL

    /// The default folder: `courier-downloads` in the Caches directory (Apple platforms), else in
    /// `$XDG_CACHE_HOME` or `~/.cache`.
    static var standardDirectory: URL {
        ResponseCache.standardDirectory.deletingLastPathComponent().appendingPathComponent("courier-downloads")
    }

    func folder(scope: String) -> URL { directory.appendingPathComponent(scope, isDirectory: true) }
    func partial(_ identifier: String, scope: String) -> URL { folder(scope: scope).appendingPathComponent(identifier + ".part") }
    func recordFile(_ identifier: String, scope: String) -> URL { folder(scope: scope).appendingPathComponent(identifier + ".json") }

    func record(_ identifier: String, scope: String) -> Record? {
        guard let data = try? Data(contentsOf: recordFile(identifier, scope: scope)) else { return nil }
        return try? JSONDecoder().decode(Record.self, from: data)
    }

    /// Writes the record atomically (a crash leaves the old one or the new one).
    func save(_ record: Record, _ identifier: String, scope: String) throws {
        try FileManager.default.createDirectory(at: folder(scope: scope), withIntermediateDirectories: true)
        let file = recordFile(identifier, scope: scope)
        try AtomicFile.write(JSONEncoder().encode(record), to: file, temporary: AtomicFile.temporaryFile(beside: file))
    }

    /// The bytes of the partial file on disk (0 when there is none).
    func bytesOnDisk(_ identifier: String, scope: String) -> Int64 {
        let attributes = try? FileManager.default.attributesOfItem(atPath: partial(identifier, scope: scope).path)
        return (attributes?[.size] as? NSNumber)?.int64Value ?? 0
    }

    func discard(_ identifier: String, scope: String) {
        try? FileManager.default.removeItem(at: partial(identifier, scope: scope))
        try? FileManager.default.removeItem(at: recordFile(identifier, scope: scope))
    }

    func list(scope: String) -> [ResumableDownload] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder(scope: scope).path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted().compactMap { name in
            let identifier = String(name.dropLast(5))
            guard let record = record(identifier, scope: scope), let url = URL(string: record.url) else { return nil }
            return ResumableDownload(
                identifier: identifier, url: url, destination: URL(fileURLWithPath: record.destination),
                bytesOnDisk: bytesOnDisk(identifier, scope: scope), totalBytes: record.total)
        }
    }

    func removeAll(scope: String) {
        try? FileManager.default.removeItem(at: folder(scope: scope))
    }

    /// The identifier a client that resumes every download keeps a download to `destination`
    /// under: `to-` and the start of the SHA-256 of its path.
    static func identifier(for destination: URL) -> String {
        var hasher = CanonicalHasher()
        hasher.add(string: destination.standardizedFileURL.path)
        return "to-" + hasher.finalize().hex.prefix(40)
    }

    /// Why `identifier`, `destination` or `sha256` cannot be used, before anything is sent.
    static func problem(identifier: String, destination: URL, sha256: String?) -> CourierError? {
        func invalid(_ message: String) -> CourierError { CourierError(.invalidRequest, message + " Nothing was sent.") }
        let allowed = identifier.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
                || byte == UInt8(ascii: ".")
        }
        guard !identifier.isEmpty, identifier.utf8.count <= 128, allowed, !identifier.hasPrefix(".") else {
            return invalid(
                "The download identifier \(RequestValidation.quoted(identifier)) is not a safe file name: use 1 to 128 letters, digits, "
                    + "'-', '_' and '.', not starting with '.'.")
        }
        guard destination.isFileURL else {
            return invalid("The download destination \(destination.absoluteString) is not a file URL.")
        }
        if let sha256, sha256.utf8.count != 64 || !sha256.utf8.allSatisfy({ $0.isHexDigit }) {
            return invalid("The expected SHA-256 \(RequestValidation.quoted(sha256)) is not 64 hexadecimal digits.")
        }
        return nil
    }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        (self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9")) || (self >= UInt8(ascii: "a") && self <= UInt8(ascii: "f"))
            || (self >= UInt8(ascii: "A") && self <= UInt8(ascii: "F"))
    }
}

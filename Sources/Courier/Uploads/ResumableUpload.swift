import Crypto
import Foundation

/// The protocol a resumable upload speaks (``APIClient/upload(_:from:resuming:using:chunkSize:)``).
public struct ResumableUploadProtocol: Sendable, Hashable, CustomStringConvertible {
    let name: String

    /// tus 1.0 (tus.io): core and creation. The upload is created with a `POST` that declares
    /// `Upload-Length`, sent in `PATCH`es of `application/offset+octet-stream` that each carry
    /// `Upload-Offset`, and its offset is learnt again with `HEAD` after a failure; every request
    /// carries `Tus-Resumable: 1.0.0`. ``APIClient/discardResumableUpload(_:)`` uses termination
    /// (`DELETE`).
    public static let tus = ResumableUploadProtocol(name: "tus")

    /// The IETF's Resumable Uploads for HTTP (draft-ietf-httpbis-resumable-upload), interop
    /// version 6 (`Upload-Draft-Interop-Version: 6`), as swift-nio-extras' `NIOResumableUpload`
    /// serves it: the upload is created with a `POST` that declares `Upload-Complete: ?0` and
    /// `Upload-Length`, appended in `PATCH`es of `application/partial-upload` that carry
    /// `Upload-Offset` (and `Upload-Complete: ?1` on the last), its offset learnt again with `HEAD`,
    /// and cancelled with `DELETE`. The answer to the last `PATCH` is the target resource's answer
    /// to the whole request.
    public static let ietfDraft = ResumableUploadProtocol(name: "ietf-draft")

    /// Whichever of the two the server speaks, learnt when the upload is created: an `OPTIONS`
    /// request to the creation URL whose answer lists `1.0.0` in `Tus-Version` means tus (and,
    /// when its `Tus-Extension` lists `creation-with-upload`, the first piece goes with the
    /// creation); otherwise the creation is sent as the draft's, declaring itself incomplete, and a
    /// server that answers it with an upload resource speaks the draft. A kept upload resumes in
    /// the protocol it was created in, with no discovery.
    public static let discovered = ResumableUploadProtocol(name: "discovered")

    /// The headers every request of an upload in this protocol carries.
    var headers: HTTPHeaders {
        self == .tus ? ["Tus-Resumable": "1.0.0"] : ["Upload-Draft-Interop-Version": "6"]
    }

    /// The protocol named `name` (``description``), for the package's modules that keep it.
    package static func named(_ name: String) -> ResumableUploadProtocol? {
        [tus, ietfDraft, discovered].first { $0.name == name }
    }

    /// The protocol's name: `tus`, `ietf-draft` or `discovered`.
    public var description: String { name }
}

/// An upload kept so it can resume (``APIClient/upload(_:from:resuming:using:chunkSize:)``), as
/// ``APIClient/resumableUploads()`` lists it.
public struct ResumableUpload: Sendable, Hashable {
    /// The identifier the app gave.
    public var identifier: String
    /// The upload's own URL on the server.
    public var uploadURL: URL
    /// The file being sent.
    public var file: URL
    /// The bytes the server confirmed.
    public var bytesConfirmed: Int64
    /// The file's length.
    public var totalBytes: Int64
}

/// Where a client keeps its resumable uploads: beside its resumable downloads, per user scope, a
/// small record for each identifier (`uploads/<identifier>.json`), so that ``APIClient/logout()``
/// erases a user's uploads with their downloads.
struct UploadStore: Sendable {
    /// What is kept of an upload.
    struct Record: Codable, Sendable, Equatable {
        var protocolName: String
        var uploadURL: String
        var file: String
        /// The file's length and modification date when the upload was created.
        var size: Int64
        var modified: Double
        /// The bytes the server confirmed.
        var confirmed: Int64
        /// The SHA-256 of the file's first `hashed` bytes, all confirmed when it was taken
        /// (`confirmed` itself in a record kept before `hashed` was; more than `confirmed` after
        /// a server that lost part of the upload). It is brought to `confirmed` when a call ends
        /// with the upload unfinished; a process killed part way leaves it where the last such
        /// call did, and the file's length and date alone vouch for the bytes past it.
        var sentSHA256: String
        var hashed: Int64?
        /// The end of the request that was on its way when this was written: a server may hold up
        /// to here, never more.
        var sending: Int64
    }

    let downloads: DownloadStore

    func folder(scope: String) -> URL { downloads.folder(scope: scope).appendingPathComponent("uploads", isDirectory: true) }
    func recordFile(_ identifier: String, scope: String) -> URL { folder(scope: scope).appendingPathComponent(identifier + ".json") }

    func record(_ identifier: String, scope: String) -> Record? {
        guard let data = try? Data(contentsOf: recordFile(identifier, scope: scope)) else { return nil }
        return try? JSONDecoder().decode(Record.self, from: data)
    }

    /// Writes the record atomically (a crash leaves the old one or the new one).
    func save(_ record: Record, _ identifier: String, scope: String) throws(CourierError) {
        do {
            try FileManager.default.createDirectory(at: folder(scope: scope), withIntermediateDirectories: true)
            let file = recordFile(identifier, scope: scope)
            try AtomicFile.write(JSONEncoder().encode(record), to: file, temporary: AtomicFile.temporaryFile(beside: file))
        } catch {
            throw CourierError(
                .transport, "The upload \(identifier) could not be kept in \(folder(scope: scope).path): \(error.localizedDescription)",
                underlyingError: error)
        }
    }

    func discard(_ identifier: String, scope: String) {
        try? FileManager.default.removeItem(at: recordFile(identifier, scope: scope))
    }

    func list(scope: String) -> [ResumableUpload] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder(scope: scope).path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted().compactMap { name in
            let identifier = String(name.dropLast(5))
            guard let record = record(identifier, scope: scope), let url = URL(string: record.uploadURL) else { return nil }
            return ResumableUpload(
                identifier: identifier, uploadURL: url, file: URL(fileURLWithPath: record.file), bytesConfirmed: record.confirmed,
                totalBytes: record.size)
        }
    }
}

/// The SHA-256 of the first bytes of a file: what tells a resumed upload that the part already
/// sent is still the file's. It is taken from the file only when the upload is kept to resume in a
/// later call (``ResumableUploadRun``), never while the upload's bytes go out, where it would
/// compete with the sending for the processor.
struct UploadDigest {
    private static let readSize = 1 << 20
    let file: URL
    private var hash = SHA256()
    /// How many of the file's first bytes `hash` covers.
    private var covered: Int64 = 0

    init(file: URL) { self.file = file }

    /// The digest, in hexadecimal.
    var hex: String { hash.finalize().map { String(format: "%02x", $0) }.joined() }

    /// Forgets everything: the digest of no bytes.
    mutating func reset() { self = UploadDigest(file: file) }

    /// Covers the file's first `count` bytes, reading on from where the digest stops (from the
    /// start, when it covers more).
    mutating func cover(upTo count: Int64) throws(CourierError) {
        if count < covered { reset() }
        guard count > covered else { return }
        do {
            let handle = try FileHandle(forReadingFrom: file)
            defer { try? handle.close() }
            try handle.seek(toOffset: UInt64(covered))
            while covered < count {
                let piece = try handle.read(upToCount: Int(min(Int64(Self.readSize), count - covered))) ?? Data()
                guard !piece.isEmpty else { throw CocoaError(.fileReadCorruptFile) }
                piece.withUnsafeBytes { hash.update(bufferPointer: $0) }
                covered += Int64(piece.count)
            }
        } catch {
            throw CourierError(.invalidRequest, "The file \(file.path) could not be read: \(error.localizedDescription)", underlyingError: error)
        }
    }
}

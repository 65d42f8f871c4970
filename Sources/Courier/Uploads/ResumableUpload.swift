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
        /// The bytes the server confirmed, and the SHA-256 of the file's first `confirmed` bytes.
        var confirmed: Int64
        var sentSHA256: String
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

/// The SHA-256 of the first bytes of a file, grown as the server confirms more of it: what tells
/// a resumed upload that the part already sent is still the file's.
///
/// The bytes a request reads from the file are hashed as they are read (``tap(from:)``), with the
/// digest kept at every mebibyte, so that the part the server then confirms is covered without
/// reading the file again: at most a mebibyte of it, after a request that failed part way.
final class UploadDigest: Sendable {
    private struct State {
        /// The digest of the part confirmed.
        var confirmed: Digest
        /// The digest of what the current request read, and its kept stages.
        var reading: Digest?
        var marks: [Digest] = []
        /// Which request's reads count: a later one's tap makes an earlier one's stale.
        var generation = 0
    }

    /// A SHA-256 and how many of the file's first bytes it covers.
    private struct Digest {
        var hash = SHA256()
        var covered: Int64 = 0

        mutating func add(_ bytes: Data) {
            bytes.withUnsafeBytes { hash.update(bufferPointer: $0) }
            covered += Int64(bytes.count)
        }
    }

    private static let markEvery: Int64 = 1 << 20
    let file: URL
    private let state = Locked(State(confirmed: Digest()))

    init(file: URL) { self.file = file }

    /// How many bytes of the file the confirmed digest covers.
    var covered: Int64 { state.withLock { $0.confirmed.covered } }

    /// The confirmed digest, in hexadecimal.
    var hex: String { state.withLock { $0.confirmed.hash.finalize().map { String(format: "%02x", $0) }.joined() } }

    /// Forgets everything: the digest of no bytes.
    func reset() {
        state.withLock {
            $0.confirmed = Digest()
            $0.reading = nil
            $0.marks = []
            $0.generation += 1
        }
    }

    /// What hashes a request's body as it is read from the file, from `start` (which the
    /// confirmed digest covers): a body read again starts over.
    func tap(from start: Int64) -> FileReadTap {
        let generation = state.withLock {
            $0.generation += 1
            $0.reading = nil
            $0.marks = []
            return $0.generation
        }
        return FileReadTap { [state] piece, offset in
            state.withLock { state in
                guard state.generation == generation, state.confirmed.covered == start else { return }
                if offset == start {
                    state.reading = state.confirmed
                    state.marks = []
                }
                guard state.reading?.covered == offset else {
                    state.reading = nil  // reads that do not follow each other: the file is read instead
                    return
                }
                state.reading?.add(piece)
                if let reading = state.reading, reading.covered - (state.marks.last?.covered ?? start) >= Self.markEvery {
                    state.marks.append(reading)
                }
            }
        }
    }

    /// Covers the file's first `count` bytes: from what the last request read, as far as it
    /// goes, then from the file (from the start, when the digest covers more).
    func cover(upTo count: Int64) throws(CourierError) {
        try state.withLock { (state: inout State) throws(CourierError) in
            if count < state.confirmed.covered { state.confirmed = Digest() }
            if let read = ([state.reading].compactMap { $0 } + state.marks.reversed()).first(where: {
                $0.covered <= count && $0.covered > state.confirmed.covered
            }) {
                state.confirmed = read
            }
            state.reading = nil
            state.marks = []
            state.generation += 1
            guard count > state.confirmed.covered else { return }
            do {
                let handle = try FileHandle(forReadingFrom: file)
                defer { try? handle.close() }
                try handle.seek(toOffset: UInt64(state.confirmed.covered))
                while state.confirmed.covered < count {
                    let piece = try handle.read(upToCount: Int(min(Self.markEvery, count - state.confirmed.covered))) ?? Data()
                    guard !piece.isEmpty else { throw CocoaError(.fileReadCorruptFile) }
                    state.confirmed.add(piece)
                }
            } catch {
                throw CourierError(.invalidRequest, "The file \(file.path) could not be read: \(error.localizedDescription)", underlyingError: error)
            }
        }
    }
}

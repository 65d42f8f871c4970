import Foundation

/// A request body read piece by piece when it is sent: bytes held in memory and ranges of files,
/// never loaded whole. Multipart bodies with file parts are streamed this way.
///
/// The body can be read again (a redirect that keeps the body, a retry after a refresh): each
/// reading opens the files anew.
public struct StreamedBody: Sendable, Hashable {
    /// One stretch of the body: bytes in memory, or a range of a file.
    public struct Segment: Sendable, Hashable {
        /// What the stretch holds, for the package's readers.
        package enum Content: Sendable, Hashable {
            case bytes(Data)
            case file(URL, offset: Int64, length: Int64)
        }

        package let content: Content

        /// Bytes in memory.
        public static func bytes(_ data: Data) -> Segment { Segment(content: .bytes(data)) }

        /// `length` bytes of a file, from its start.
        public static func file(_ url: URL, length: Int64) -> Segment { Segment(content: .file(url, offset: 0, length: length)) }

        /// `length` bytes of a file, from byte `offset`. A negative offset or length is refused
        /// before the request is sent (``CourierError/Kind/invalidRequest``), and fails a reading.
        public static func file(_ url: URL, from offset: Int64, length: Int64) -> Segment {
            Segment(content: .file(url, offset: offset, length: length))
        }

        /// The stretch's length in bytes.
        public var length: Int64 {
            switch content {
            case .bytes(let data): Int64(data.count)
            case .file(_, _, let length): max(0, length)  // a negative one fails when read
            }
        }

        /// The file the stretch is read from, if any.
        public var file: URL? {
            if case .file(let url, _, _) = content { url } else { nil }
        }
    }

    /// The stretches, in order.
    public let segments: [Segment]
    /// The `Content-Type` to send.
    public let contentType: String

    /// Creates a body.
    public init(segments: [Segment], contentType: String) {
        self.segments = segments
        self.contentType = contentType
    }

    /// The total length in bytes.
    public var length: Int64 {
        segments.reduce(0) { total, segment in total + segment.length }
    }

    /// Whether two bodies send the same segments with the same `Content-Type`.
    public static func == (lhs: StreamedBody, rhs: StreamedBody) -> Bool {
        lhs.segments == rhs.segments && lhs.contentType == rhs.contentType
    }

    /// Hashes the segments and the `Content-Type`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(segments)
        hasher.combine(contentType)
    }

    /// The pieces of the body, at most `chunkSize` bytes each, read from the files only when the
    /// consumer asks for the next one (back-pressure by construction).
    package func chunks(size chunkSize: Int = 64 * 1024) -> Chunks { Chunks(body: self, chunkSize: chunkSize) }

    /// The whole body in memory: for small bodies and for tests.
    public func collect() throws -> Data {
        var data = Data()
        var iterator = chunks().makeIterator()
        while let chunk = try iterator.next() { data.append(chunk) }
        return data
    }

    /// Writes the body to a file, a chunk at a time.
    func write(to url: URL) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var iterator = chunks(size: 1 << 20).makeIterator()
        while let chunk = try iterator.next() { try handle.write(contentsOf: chunk) }
    }

    /// The body's pieces; iterate with ``Iterator/next()``.
    package struct Chunks: Sendable {
        let body: StreamedBody
        let chunkSize: Int

        /// A reader positioned at the start.
        package func makeIterator() -> Iterator { Iterator(segments: body.segments, chunkSize: chunkSize) }
    }

    /// Reads the body in order. A file shorter than its declared length is an error (it changed
    /// since the body was made), so the declared `Content-Length` is never broken silently.
    package struct Iterator {
        let segments: [Segment]
        let chunkSize: Int
        private var index = 0
        private var offset = 0
        private var handle: FileHandle?
        private var remaining: Int64 = 0

        init(segments: [Segment], chunkSize: Int) {
            self.segments = segments
            self.chunkSize = max(1, chunkSize)
        }

        /// The next piece, or `nil` at the end.
        package mutating func next() throws -> Data? {
            while index < segments.count {
                switch segments[index].content {
                case .bytes(let data):
                    if offset < data.count {
                        let end = min(offset + chunkSize, data.count)
                        defer { offset = end }
                        return data[(data.startIndex + offset)..<(data.startIndex + end)]
                    }
                case .file(let url, let start, let length):
                    guard start >= 0, length >= 0 else {
                        throw CocoaError(.fileReadUnknown, userInfo: [
                            NSFilePathErrorKey: url.path,
                            NSLocalizedDescriptionKey: "the body's range of \(url.path) starts at \(start) and is \(length) bytes long; neither may be negative",
                        ])
                    }
                    if handle == nil, length > 0 {
                        let opened = try FileHandle(forReadingFrom: url)
                        handle = opened
                        if start > 0 { try opened.seek(toOffset: UInt64(start)) }
                        remaining = length
                    }
                    if let handle, remaining > 0 {
                        let chunk = try handle.read(upToCount: Int(min(Int64(chunkSize), remaining))) ?? Data()
                        guard !chunk.isEmpty else {
                            throw CocoaError(.fileReadCorruptFile, userInfo: [
                                NSFilePathErrorKey: url.path,
                                NSLocalizedDescriptionKey: "\(url.path) ended \(remaining) bytes early: it changed while it was being sent",
                            ])
                        }
                        remaining -= Int64(chunk.count)
                        return chunk
                    }
                    try handle?.close()
                    handle = nil
                }
                index += 1
                offset = 0
            }
            return nil
        }
    }
}

extension CourierError {
    /// The failure of a request whose streamed body could not be read (a file that is gone, or
    /// that changed while it was sent), the same on every transport.
    package static func unreadableBody(_ error: any Error) -> CourierError {
        CourierError(.encodingFailed, "The upload body could not be read: \(error.localizedDescription)", underlyingError: error)
    }
}

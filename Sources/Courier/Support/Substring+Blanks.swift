extension Substring {
    /// The text without the spaces and tabs around it (HTTP's optional whitespace), read on its
    /// UTF-8 bytes: Foundation's `trimmingCharacters(in:)` costs thousands of instructions a call,
    /// and header values are read on every cache hit.
    var trimmingBlanks: Substring {
        let bytes = utf8
        var start = bytes.startIndex
        var end = bytes.endIndex
        func blank(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        while start < end, blank(bytes[start]) { start = bytes.index(after: start) }
        while start < end, blank(bytes[bytes.index(before: end)]) { end = bytes.index(before: end) }
        return self[start..<end]
    }
}

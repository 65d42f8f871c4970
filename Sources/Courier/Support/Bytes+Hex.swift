/// Hexadecimal text of bytes (digests in cache file names, ETags, upload checksums).
extension Sequence where Element == UInt8 {
    /// Lowercase hexadecimal.
    package var hex: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(underestimatedCount * 2)
        for byte in self {
            bytes.append(hexDigits[Int(byte >> 4)])
            bytes.append(hexDigits[Int(byte & 0x0F)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension UnsafeRawBufferPointer {
    /// Lowercase hexadecimal, written straight into the string's storage.
    package var hex: String {
        String(unsafeUninitializedCapacity: count * 2) { output in
            for (offset, byte) in enumerated() {
                output[offset * 2] = hexDigits[Int(byte >> 4)]
                output[offset * 2 + 1] = hexDigits[Int(byte & 0x0F)]
            }
            return count * 2
        }
    }
}

let hexDigits = Array("0123456789abcdef".utf8)

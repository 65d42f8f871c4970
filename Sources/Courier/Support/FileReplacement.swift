import Foundation

/// Puts a finished download in place.
package enum FileReplacement {
    /// Moves `file` to `destination`, replacing what is there in one step (`rename`); across file
    /// systems, copies it beside the destination first.
    package static func replace(_ destination: URL, with file: URL) throws {
        do {
            if rename(file.path, destination.path) == 0 { return }
            guard errno == EXDEV else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            let beside = PartialDownload.temporaryFile(beside: destination)
            do {
                try FileManager.default.copyItem(at: file, to: beside)
                guard rename(beside.path, destination.path) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            } catch {
                try? FileManager.default.removeItem(at: beside)
                throw error
            }
        } catch {
            throw CourierError(
                .transport, "The download could not be saved to \(destination.path): \(error.localizedDescription)",
                url: destination, underlyingError: error)
        }
    }
}

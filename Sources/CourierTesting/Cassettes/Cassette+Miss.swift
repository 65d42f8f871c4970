import Courier
import Foundation

extension Cassette {
    /// The error for a request with no answer left: what was asked, the closest recorded entry and
    /// how it differs. Both requests are redacted.
    func missError(_ request: TransportRequest, answered: Int, entries: [CassetteEntry]) -> CourierError {
        let asked = "\(request.method) \(request.url.absoluteString)"
        var message = "The cassette \(file.lastPathComponent) (mode \(mode)) has no answer for \(asked)"
        if answered > 0 {
            message += ": its \(answered) recorded \(answered == 1 ? "answer was" : "answers were") already used."
            message += " Set CassetteMatching.repeatsLastAnswer to answer the last one again, or record the request once more (mode newEpisodes)."
        } else if let (index, differences) = closest(to: request, among: entries) {
            let recorded = entries[index].request
            message += ". The closest recorded entry, #\(index + 1) \(recorded.method) \(recorded.url.absoluteString), differs in "
            message += differences.joined(separator: "; ") + "."
        } else {
            message += ": it has no entries."
        }
        message += " Nothing was sent. The file is \(file.path)."
        return CourierError(.cassetteMiss, message, url: request.url)
    }

    /// The error for a ``ReplayTransport``'s request to a cassette that records everything (mode
    /// `all`, or `once` on a file that was missing): it has nothing to replay.
    func recordingMiss(_ request: TransportRequest) -> CourierError {
        let message = "The cassette \(file.lastPathComponent) (mode \(mode)) is being recorded, so it has no answer for "
            + "\(request.method) \(request.url.absoluteString) to replay. Replay from a cassette opened on the recorded file "
            + "(mode once or none), or record through a RecordingTransport. Nothing was sent. The file is \(file.path)."
        return CourierError(.cassetteMiss, message, url: request.url)
    }

    /// The entry that differs from `request` in the fewest ways (the first of equals), with its differences.
    private func closest(to request: TransportRequest, among entries: [CassetteEntry]) -> (Int, [String])? {
        var best: (Int, [String])?
        for (index, entry) in entries.enumerated() {
            let differences = matching.differences(between: request, and: entry.request)
            if best == nil || differences.count < best?.1.count ?? .max { best = (index, differences) }
        }
        return best
    }
}

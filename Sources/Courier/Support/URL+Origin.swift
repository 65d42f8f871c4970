import Foundation

extension URL {
    /// `host:port` (or the host alone without an explicit port), for messages; the whole URL when
    /// there is no host.
    package var hostAndPort: String {
        guard let host else { return absoluteString }
        return port.map { "\(host):\($0)" } ?? host
    }

    /// The scheme, host and effective port, lower-cased: two URLs with the same origin may share
    /// credentials.
    package var origin: String {
        let scheme = (scheme ?? "").lowercased()
        let port = port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
        return "\(scheme)://\((host ?? "").lowercased()):\(port)"
    }
}

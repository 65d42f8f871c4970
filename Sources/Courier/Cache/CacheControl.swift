import Foundation

/// The parts of a `Cache-Control` header the cache acts on.
struct CacheControl {
    var noStore = false
    var maxAge: TimeInterval?

    init(_ value: String?) {
        guard let value else { return }
        for directive in value.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1)
            let name = parts[0].trimmingCharacters(in: .whitespaces).lowercased()
            switch name {
            case "no-store": noStore = true
            case "max-age":
                if parts.count == 2 {
                    maxAge = TimeInterval(parts[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: ["\""]))
                }
            default: break
            }
        }
    }
}

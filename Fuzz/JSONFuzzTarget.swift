// libFuzzer entry point: arbitrary bytes into the JSON parser, the model decoder and the
// validation-error parser.
// Compiled together with Courier's sources by Fuzz/run.sh; not part of the package.
import Foundation

/// A seed-shaped model for the decoder to try on whatever parses.
struct FuzzPizza: Codable, Sendable {
    var pizzaID: Int
    var name: String?
    var numberOfIngredients: Double?
}

struct FuzzUser: Codable, Sendable {
    var uid: Int
    var userName: String
    var isFirstLogin: Bool?
    var registerDate: Date?
    var favoritePizza: FuzzPizza?
    var orderedPizzas: [FuzzPizza]?
    var tags: [String: String]?
}

@_cdecl("LLVMFuzzerTestOneInput")
public func courierFuzzOneInput(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    guard let value = try? JSONValue.parse(data) else { return 0 }
    // What parses must survive a write and a re-read unchanged.
    if let written = try? JSONEncoder().encode(value), let again = try? JSONValue.parse(written), again != value {
        fatalError("round trip changed the value: \(value) → \(again)")
    }
    if let mapped = try? ModelDecoder().decodeMapped(FuzzUser.self, from: data) {
        _ = try? mapped.dictionaryRepresentation()
    }
    _ = try? ModelDecoder().decode([FuzzPizza].self, from: value)
    _ = ResponseBodyValue.read(data, contentType: nil)
    // Field errors, whatever the shape: every field named, every message kept, the summary bounded.
    if let errors = ValidationErrorParser.parse(value) {
        if errors.fields.isEmpty || errors.fields.contains(where: { $0.key.isEmpty && $0.value.isEmpty }) {
            fatalError("field errors with nothing in them: \(errors.fields)")
        }
        _ = errors.summary(limit: 3)
    }
    return 0
}

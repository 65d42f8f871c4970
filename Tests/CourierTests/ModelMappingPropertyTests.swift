import Courier
import Foundation
import PropertyBased
import Testing

/// Random models written in random key styles and value representations decode back equal.
@Suite struct ModelMappingPropertyTests {
    struct LineItem: Codable, Equatable, Sendable {
        var productID: Int
        var quantity: Int
        var label: String
    }

    struct Order: Codable, Equatable, Sendable {
        var uid: Int
        var customerName: String
        var pizzaID: Int
        var isPaid: Bool
        var totalPrice: Double
        var placedAt: Date
        var deliveredAt: Date?
        var notes: String?
        var lineItems: [LineItem]
    }

    static let text = Gen.latin1.string(of: 0...10)
    static let lineItem = zip(Gen.int(in: -1_000_000...1_000_000), Gen.int(in: 0...99), text)
        .map { LineItem(productID: $0, quantity: $1, label: $2) }
    static let seconds = Gen.int(in: 0...4_000_000_000)
    static let order = zip(
        Gen.int(in: 1...Int(Int32.max)), text, Gen.int(in: 0...100_000), Gen.bool,
        Gen.double(in: -10_000...10_000), seconds, seconds.optional(), text.optional(), lineItem.array(of: 0...4)
    ).map { uid, name, pizza, paid, price, placed, delivered, notes, items in
        Order(
            uid: uid, customerName: name, pizzaID: pizza, isPaid: paid, totalPrice: price,
            placedAt: Date(timeIntervalSince1970: Double(placed)),
            deliveredAt: delivered.map { Date(timeIntervalSince1970: Double($0)) }, notes: notes, lineItems: items
        )
    }
    /// One style choice per key and value written; `PayloadWriter` reads them in turn.
    static let styles = Gen.int(in: 0...5).array(of: 64)

    @Test func randomModelsInRandomKeyStylesDecodeBackEqual() async throws {
        await propertyCheck(count: 300, input: Self.order, Self.styles) { order, styles in
            var writer = PayloadWriter(styles: styles)
            let payload = writer.object(for: order)
            let data = try JSONEncoder().encode(payload)
            let decoded = try ModelDecoder().decode(Order.self, from: data)
            #expect(decoded == order, "payload: \(String(decoding: data, as: UTF8.self))")
        }
    }

    @Test func theReverseRulesRoundTrip() async throws {
        await propertyCheck(count: 300, input: Self.order) { order in
            let data = try ModelEncoder().encode(order)
            #expect(try ModelDecoder().decode(Order.self, from: data) == order)
            let payload = try JSONValue.parse(data)
            #expect(payload["pizza_id"] != nil && payload["id"] != nil && payload["customer_name"] != nil)
        }
    }

    @Test func theDictionaryRepresentationKeepsThePayloadsKeys() async throws {
        await propertyCheck(count: 200, input: Self.order, Self.styles) { order, styles in
            var writer = PayloadWriter(styles: styles)
            let payload = writer.object(for: order)
            var mapped = try ModelDecoder().decodeMapped(Order.self, from: JSONEncoder().encode(payload))
            #expect(mapped.model == order)
            mapped.model.customerName += "!"
            let written = try mapped.dictionaryRepresentation()
            #expect(Set(written.objectValue?.keys ?? [:].keys) == Set(payload.objectValue?.keys ?? [:].keys))
            let items = written[writer.lineItemsKey]?.arrayValue ?? []
            let originalItems = payload[writer.lineItemsKey]?.arrayValue ?? []
            #expect(items.map { Set($0.objectValue?.keys ?? [:].keys) } == originalItems.map { Set($0.objectValue?.keys ?? [:].keys) })
            let back = try ModelDecoder().decode(Order.self, from: JSONEncoder().encode(written))
            #expect(back == mapped.model)
        }
    }
}

/// Writes a model as a payload, choosing each key's style and each value's representation from `styles`.
private struct PayloadWriter {
    typealias Order = ModelMappingPropertyTests.Order
    let styles: [Int]
    var next = 0
    var lineItemsKey = "lineItems"

    init(styles: [Int]) { self.styles = styles }

    /// The seed's default format, in UTC as `ModelDecoder` reads it.
    static let seedFormatter: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = "yyyy/MM/dd HH:mm:ss"
        return formatter
    }()

    mutating func choice(_ count: Int) -> Int {
        defer { next += 1 }
        return styles[next % styles.count] % count
    }

    /// `customerName`, `customer_name` or `CustomerName`.
    mutating func key(_ property: String) -> String {
        switch choice(3) {
        case 0: property
        case 1: KeyMapping.payloadKey(for: property)
        default: property.prefix(1).uppercased() + property.dropFirst()
        }
    }

    mutating func int(_ value: Int) -> JSONValue { choice(2) == 0 ? .int(value) : .string(String(value)) }

    mutating func bool(_ value: Bool) -> JSONValue {
        switch choice(3) {
        case 0: .bool(value)
        case 1: .int(value ? 1 : 0)
        default: .string(value ? "true" : "false")
        }
    }

    mutating func double(_ value: Double) -> JSONValue { choice(2) == 0 ? .double(value) : .string(String(value)) }

    mutating func date(_ value: Date) -> JSONValue {
        let seconds = Int(value.timeIntervalSince1970)
        switch choice(3) {
        case 0: return .int(seconds)
        case 1: return .string(value.formatted(.iso8601))
        default:
            return .string(Self.seedFormatter.string(from: value))
        }
    }

    /// A `nil` is written as `null` or left out.
    mutating func optional(_ value: JSONValue?, _ key: String, into object: inout [String: JSONValue]) {
        if let value { object[key] = value } else if choice(2) == 0 { object[key] = .null }
    }

    mutating func object(for order: Order) -> JSONValue {
        var object: [String: JSONValue] = [:]
        object[choice(2) == 0 ? "uid" : "id"] = int(order.uid)
        object[key("customerName")] = .string(order.customerName)
        object[choice(2) == 0 ? key("pizzaID") : "pizzaId"] = int(order.pizzaID)
        object[key("isPaid")] = bool(order.isPaid)
        object[key("totalPrice")] = double(order.totalPrice)
        object[key("placedAt")] = date(order.placedAt)
        let deliveredAt = order.deliveredAt.map { date($0) }
        optional(deliveredAt, key("deliveredAt"), into: &object)
        optional(order.notes.map(JSONValue.string), key("notes"), into: &object)
        lineItemsKey = key("lineItems")
        var items: [JSONValue] = []
        for item in order.lineItems {
            var fields: [String: JSONValue] = [:]
            fields[key("productID")] = int(item.productID)
            fields[key("quantity")] = int(item.quantity)
            fields[key("label")] = .string(item.label)
            items.append(.object(fields))
        }
        object[lineItemsKey] = .array(items)
        return .object(object)
    }
}

import Foundation

extension ResponseSerializer where Value: Decodable {
    /// Decodes the part of the body at `keyPath` (seed 004's `firstKey`): `"object"` reads
    /// `{"object": {…}}`, `"data.items"` reads `{"data": {"items": […]}}`. For XML the document
    /// element stands for the top-level object, so `"object"` reads `<response><object>…`.
    ///
    /// The value is decoded with the request's decoder (``ModelDecoder`` by default, without
    /// writing the part out again), or with an ``XMLTreeDecoder`` for XML. A missing key fails with
    /// ``CourierError/Kind/decodingFailed`` whose ``CourierError/keyPath`` names it, and a failure
    /// inside the value names its full path from the top (`object.favoritePizza.pizzaID`).
    public static func decodable(_ type: Value.Type = Value.self, at keyPath: String) -> ResponseSerializer {
        let root = RootKeyPath(keyPath)
        return ResponseSerializer { body, context in
            // A failure to find the root names the root itself; one inside the value gets the root as prefix.
            if context.mayBeXML(body), context.bodyKind(of: body) == .xml {
                let node = try root.node(in: XMLTreeParser.parse(body))
                let decoder = XMLTreeDecoder.matching(context.decoder)
                do { return try decoder.decode(Value.self, from: node) } catch { throw root.prefixing(error) }
            }
            let value = try root.value(in: JSONValue.parse(body))
            do {
                if let decoder = context.decoder as? ModelDecoder { return try decoder.decode(Value.self, from: value) }
                return try context.decoder.decode(Value.self, from: JSONEncoder().encode(value))
            } catch {
                throw root.prefixing(error)
            }
        }
    }
}

extension Request where Value: Decodable {
    /// The same request, its `Value` decoded from the part of the body at `keyPath` instead of the
    /// whole body (seed 004's `firstKey`); see ``ResponseSerializer/decodable(_:at:)``.
    ///
    /// ```swift
    /// let images = try await client.send(Request<[Image]>(.get, "images").decoding(at: "images")).value
    /// ```
    public func decoding(at keyPath: String) -> Request {
        reading(with: .decodable(Value.self, at: keyPath))
    }
}

/// The one reference inside a value that is handed on often and changed seldom
/// (``TransportRequest``, ``TransportResponse``): a copy of the value is one retain; a change
/// through ``unique(_:)`` copies the fields first when another value shares them.
///
/// `@unchecked`: the fields are only written through a box that exactly one value holds
/// (`isKnownUniquelyReferenced`), as the standard library's own copy-on-write buffers, so a box
/// that two values share is never written.
final class CopyOnWriteBox<Fields: Sendable>: @unchecked Sendable {
    var fields: Fields

    init(_ fields: Fields) {
        self.fields = fields
    }

    /// The box to write `fields` in: `box` itself when nothing else holds it, else a copy.
    static func unique(_ box: inout CopyOnWriteBox) -> CopyOnWriteBox {
        if !isKnownUniquelyReferenced(&box) { box = CopyOnWriteBox(box.fields) }
        return box
    }
}

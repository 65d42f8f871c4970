import Foundation

/// The conversion table, one non-generic function per common type (the containers call these
/// directly, so the common properties skip generic dispatch and dynamic casts).
extension ModelValueDecoder {
    func decodeString() throws -> String {
        switch value {
        case .string(let text): text
        case .int(let number): String(number)
        case .double(let number): JSONWriter.format(number)
        case .bool(let flag): String(flag)
        case .null: throw nullFound(String.self)
        default: throw mismatch("a string")
        }
    }

    func decodeInt() throws -> Int {
        switch value {
        case .int(let number): return number
        case .null: throw nullFound(Int.self)
        default: return try decodeInteger(Int.self)
        }
    }

    func decodeDouble() throws -> Double {
        switch value {
        case .double(let number): return number
        case .int(let number): return Double(number)
        case .null: throw nullFound(Double.self)
        default: return try decodeFloating(Double.self)
        }
    }

    func decodeBool() throws -> Bool {
        switch value {
        case .bool(let flag): return flag
        case .int(0): return false
        case .int(1): return true
        case .string(let text):
            switch text.lowercased() {
            case "true", "1", "yes": return true
            case "false", "0", "no": return false
            default: throw mismatch("a Boolean")
            }
        case .null: throw nullFound(Bool.self)
        default: throw mismatch("a Boolean")
        }
    }

    func decodeDate() throws -> Date {
        switch value {
        case .string(let text):
            guard let date = context.date(from: text) else { throw mismatch("a date") }
            return date
        case .int(let seconds): return Date(timeIntervalSince1970: Double(seconds))
        case .double(let seconds): return Date(timeIntervalSince1970: seconds)
        case .null: throw nullFound(Date.self)
        default: throw mismatch("a date")
        }
    }

    func decodeInteger<I: BinaryInteger & LosslessStringConvertible>(_ type: I.Type) throws -> I {
        let result: I? = switch value {
        case .int(let number): I(exactly: number)
        case .double(let number): number.isFinite && number == number.rounded() ? I(exactly: number) : nil
        case .string(let text): I(text.trimmingCharacters(in: .whitespaces))
        default: nil
        }
        guard let result else { throw mismatch("\(type)") }
        return result
    }

    func decodeFloating<F: BinaryFloatingPoint & LosslessStringConvertible>(_ type: F.Type) throws -> F {
        let result: F? = switch value {
        case .int(let number): F(number)
        case .double(let number): F(number)
        case .string(let text): F(text.trimmingCharacters(in: .whitespaces))
        default: nil
        }
        guard let result else { throw mismatch("\(type)") }
        return result
    }
}

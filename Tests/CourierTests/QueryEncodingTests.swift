@testable import Courier
import Foundation
import Testing

@Suite struct QueryEncodingTests {
    @Test func scalarsAndSortedKeys() throws {
        let query = try QueryStringEncoder.encode(["b": 2, "a": "x y", "c": true, "d": 1.5, "e": nil, "f": -3])
        #expect(query == "a=x%20y&b=2&c=true&d=1.5&e=&f=-3")
    }

    /// One parameter alone takes a path of its own (no sorting, the name written in place).
    @Test func oneParameterOfEachKind() throws {
        #expect(try QueryStringEncoder.encode(["a b": "c&d"]) == "a%20b=c%26d")
        #expect(try QueryStringEncoder.encode(["n": -3]) == "n=-3")
        #expect(try QueryStringEncoder.encode(["d": 1.5]) == "d=1.5")
        #expect(try QueryStringEncoder.encode(["t": false]) == "t=false")
        #expect(try QueryStringEncoder.encode(["e": nil]) == "e=")
        #expect(try QueryStringEncoder.encode(["a[]": ["x", "y"]]) == "a%5B%5D%5B%5D=x&a%5B%5D%5B%5D=y")
        #expect(try QueryStringEncoder.encode(["o": ["k": 1]]) == "o%5Bk%5D=1")
        #expect(try QueryStringEncoder.encode(["tags": []]) == "")
        #expect(throws: (any Error).self) { try QueryStringEncoder.encode(["f": .data(Data([1]))]) }
        #expect(throws: (any Error).self) { try QueryStringEncoder.encode(["n": .double(.nan)]) }
    }

    @Test func interpolatedStringsAreParameters() throws {
        let index = 3
        let parameters: Parameters = ["note": "upload \(index)", "list": ["item \(index + 1)"]]
        #expect(parameters["note"] == .string("upload 3"))
        #expect(try QueryStringEncoder.encode(parameters) == "list%5B%5D=item%204&note=upload%203")
    }

    @Test func nestedObjectsAndArrays() throws {
        let query = try QueryStringEncoder.encode([
            "user": ["name": "Ana", "address": ["city": "Rio"]],
            "tags": ["a", "b"],
            "items": [["id": 1], ["id": 2]],
        ])
        #expect(query == "items%5B%5D%5Bid%5D=1&items%5B%5D%5Bid%5D=2&tags%5B%5D=a&tags%5B%5D=b&user%5Baddress%5D%5Bcity%5D=Rio&user%5Bname%5D=Ana")
        #expect(query.removingPercentEncoding == "items[][id]=1&items[][id]=2&tags[]=a&tags[]=b&user[address][city]=Rio&user[name]=Ana")
    }

    @Test func reservedAndUnicodeCharactersAreEscaped() throws {
        #expect(try QueryStringEncoder.encode(["q": "a+b&c=d/é?#"]) == "q=a%2Bb%26c%3Dd%2F%C3%A9%3F%23")
        #expect(try QueryStringEncoder.encode(["safe": "A-z_0.9~"]) == "safe=A-z_0.9~")
    }

    @Test func sameParametersAlwaysGiveTheSameString() throws {
        var many: Parameters = [:]
        for index in 0..<50 { many["k\(index)"] = .int(index) }
        let first = try QueryStringEncoder.encode(many)
        let reordered = Parameters(uniqueKeysWithValues: many.shuffled())
        #expect(try QueryStringEncoder.encode(reordered) == first)
    }

    @Test func binaryAndNonFiniteValuesFail() {
        #expect(throws: (any Error).self) { try QueryStringEncoder.encode(["file": .data(Data([1]))]) }
        #expect(throws: (any Error).self) { try QueryStringEncoder.encode(["n": .double(.infinity)]) }
    }

    @Test func integralDoublesHaveNoFraction() throws {
        #expect(try QueryStringEncoder.encode(["a": 2.0, "b": 1e20, "c": 0.1]) == "a=2&b=1e%2B20&c=0.1")
    }
}

@Suite struct HTTPHeadersTests {
    @Test func lookupIsCaseInsensitiveAndSettingReplaces() {
        var headers: HTTPHeaders = ["Content-Type": "a", "X-Many": "1"]
        headers.add(name: "x-many", value: "2")
        #expect(headers["content-type"] == "a")
        #expect(headers["CONTENT-TYPE"] == "a")
        #expect(headers["Content-Typf"] == nil)
        #expect(headers["Content_Type"] == nil)
        #expect(headers.values(for: "X-MANY") == ["1", "2"])
        headers["x-many"] = "3"
        #expect(headers.values(for: "X-Many") == ["3"])
        headers["X-Many"] = nil
        #expect(!headers.contains("x-many"))
        #expect(headers.redacted(["content-type"]) == "[Content-Type: <redacted>]")
    }
}

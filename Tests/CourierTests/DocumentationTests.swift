import Foundation
import Testing

/// The DocC catalog's code is compiled test code, and the README's "From the seeds" table points
/// to tests that exist.
@Suite struct DocumentationTests {
    static let root = ReadmeTests.root
    static let catalog = root.appendingPathComponent("Sources/Courier/Courier.docc")

    /// The compiled sources the articles' code may come from (the examples target, the tests for
    /// the article on testing, and the generated client's target for its article), each as lines
    /// without their indentation.
    static func testSources() throws -> [(name: String, lines: [String])] {
        var sources: [(String, [String])] = []
        for folder in ["Sources/CourierExamples", "Tests/CourierTests", "Tests/CourierOpenAPITests"] {
            let enumerator = FileManager.default.enumerator(at: root.appendingPathComponent(folder), includingPropertiesForKeys: nil)
            while let url = enumerator?.nextObject() as? URL {
                guard url.pathExtension == "swift", url.lastPathComponent != "DocumentationTests.swift" else { continue }
                let text = try String(contentsOf: url, encoding: .utf8)
                sources.append((url.lastPathComponent, text.components(separatedBy: "\n").map(Self.trimmed)))
            }
        }
        return sources
    }

    /// Articles show code a user writes: no test checks, test helpers or the package's own lock,
    /// except the article about testing.
    @Test func articlesShowNoTestCodeButInTheArticleOnTesting() throws {
        let articles = try FileManager.default.contentsOfDirectory(at: Self.catalog, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "md" && $0.lastPathComponent != "TestingWithCourierTesting.md" }
        for article in articles {
            let code = try String(contentsOf: article, encoding: .utf8).components(separatedBy: "```swift\n").dropFirst()
                .map { $0.components(separatedBy: "\n```")[0] }.joined(separator: "\n")
            for helper in ["#expect", "#require", "Issue.record", "Locked", "Recorder", "SeedFixtures", "server.client", "withServer"] {
                #expect(!code.contains(helper), "\(article.lastPathComponent) shows \(helper)")
            }
        }
    }

    /// A line without its indentation, and without `public ` where it opens a declaration: the
    /// articles show code as an app writes it, and the examples' module exports a few of its
    /// models to the demo and the benchmarks.
    static func trimmed(_ line: String) -> String {
        let line = line.drop { $0 == " " }
        return String(line.hasPrefix("public ") ? line.dropFirst("public ".count) : line)
    }

    /// Whether `block` (lines without indentation) runs, line after line, in `lines`.
    static func contains(_ lines: [String], _ block: [String]) -> Bool {
        guard !block.isEmpty, lines.count >= block.count else { return false }
        return (0...(lines.count - block.count)).contains { start in lines[start..<(start + block.count)].elementsEqual(block) }
    }

    @Test func everySwiftBlockOfTheCatalogIsCompiledTestCode() throws {
        let sources = try Self.testSources()
        let articles = try FileManager.default.contentsOfDirectory(at: Self.catalog, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "md" }
        #expect(articles.count >= 15)
        var checked = 0
        for article in articles {
            let text = try String(contentsOf: article, encoding: .utf8)
            for block in text.components(separatedBy: "```swift\n").dropFirst() {
                let code = block.components(separatedBy: "\n```")[0]
                if code.hasPrefix("// Package.swift") { continue }
                let lines = code.components(separatedBy: "\n").map(Self.trimmed)
                checked += 1
                #expect(sources.contains { Self.contains($0.lines, lines) },
                        "\(article.lastPathComponent): a Swift block is not in any compiled test file:\n\(code)")
            }
        }
        #expect(checked >= 40)
    }

    @Test func everySeedRowOfTheReadmeNamesAnExistingSeedTest() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let table = try #require(readme.components(separatedBy: "## From the seeds").dropFirst().first?.components(separatedBy: "\n## ").first)
        let rows = table.components(separatedBy: "\n").filter { $0.hasPrefix("| ") && !$0.hasPrefix("| Seed |") }
        let folder = Self.root.appendingPathComponent("Tests/CourierTests/SeedExamples")
        let seedTests = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .map { try String(contentsOf: $0, encoding: .utf8) }.joined()
        #expect(rows.count >= 40)
        for row in rows {
            // The last column names the test: `Seed00xSuite/testName`.
            let test = try #require(row.split(separator: "|").last?.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "`")))
            let parts = test.split(separator: "/")
            #expect(parts.count == 2, "\(row)")
            guard parts.count == 2 else { continue }
            #expect(seedTests.contains("struct \(parts[0])"), "no suite \(parts[0])")
            #expect(seedTests.contains("func \(parts[1])("), "no test \(test) for row: \(row)")
        }
    }
}

import AppNativeTesting
import Foundation
import Testing

/// The documentation describes the product as it is: no history ("as before", "today's"), no
/// notes about how a page was checked, no tracker numbers. CHANGELOG.md is the one place for
/// history and is not read here.
@Suite("Documentation wording")
struct DocumentationWordingTests {
    static let root = ProcessRunner.repositoryRoot()

    /// Phrases that only ever tell history or process, matched case-insensitively on word boundaries.
    static let forbidden = [
        "as before", "today", "today's", "not yet fixed", "previously", "formerly", "used to be",
        "until recently", "at the time of writing", "now fixed", "has been fixed", "by hand",
    ]

    /// README.md and every Markdown file under docs/ and deploy/.
    static func pages() throws -> [String] {
        var pages = ["README.md"]
        for folder in ["docs", "deploy"] {
            let enumerator = FileManager.default.enumerator(atPath: root + "/" + folder)
            while let path = enumerator?.nextObject() as? String {
                if path.hasSuffix(".md") { pages.append(folder + "/" + path) }
            }
        }
        return pages.sorted()
    }

    static func findings(in text: String, page: String) throws -> [String] {
        var found = [String]()
        let alternatives = forbidden.map(NSRegularExpression.escapedPattern(for:)).joined(separator: "|")
        let phrase = try NSRegularExpression(pattern: "\\b(\(alternatives))\\b", options: [.caseInsensitive])
        let tracker = try NSRegularExpression(pattern: "\\b(issue|tracker|ticket) #?[0-9]+\\b", options: [.caseInsensitive])
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(line)
            let range = NSRange(line.startIndex..., in: line)
            for expression in [phrase, tracker] {
                for match in expression.matches(in: line, range: range) {
                    found.append("\(page):\(number + 1): \"\((line as NSString).substring(with: match.range))\" in: \(line)")
                }
            }
        }
        return found
    }

    @Test("README.md, docs/ and deploy/ tell no history and no tracker numbers")
    func noHistory() throws {
        let pages = try Self.pages()
        #expect(pages.count > 20, "found only \(pages)")
        var findings = [String]()
        for page in pages {
            findings += try Self.findings(in: String(contentsOfFile: Self.root + "/" + page, encoding: .utf8), page: page)
        }
        #expect(findings.isEmpty, "describe the product as it is:\n\(findings.joined(separator: "\n"))")
    }

    @Test("the check finds each forbidden phrase, and not the words that merely contain one")
    func checkFindsPhrases() throws {
        for phrase in Self.forbidden {
            #expect(try Self.findings(in: "It works \(phrase.uppercased()) here.", page: "x").count == 1, "\(phrase)")
        }
        #expect(try Self.findings(in: "See issue 25 and tracker #7.", page: "x").count == 2)
        #expect(try Self.findings(in: "todays_total, a standby host, as_before", page: "x").isEmpty)
    }
}

import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import HearthRulesTest

@Suite("JUnit XML")
struct JUnitReportTests {
    /// Parses XML, collecting elements with their attributes and failure texts.
    final class Collector: NSObject, XMLParserDelegate {
        var elements: [(name: String, attributes: [String: String])] = []
        var text = ""
        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            elements.append((name, attributes))
        }
        func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }
    }

    static func parse(_ xml: String) -> (ok: Bool, Collector, String) {
        let parser = XMLParser(data: Data(xml.utf8))
        let collector = Collector()
        parser.delegate = collector
        let ok = parser.parse()
        return (ok, collector, parser.parserError.map { "\($0)" } ?? "")
    }

    @Test("the report is well-formed XML with a suite per spec, a case per case and a failure with its trace")
    func wellFormed() async throws {
        let fixture = try SpecFixture(rules: SpecFixture.ownerRules)
        let passing = await RulesTestRunner.run(path: try fixture.write(RulesTestRunnerTests.seed + """
              - {name: "ann <reads> & \\"quotes\\" 'her' note", as: ann, get: notes/n1, expect: allow}
              - {name: "control \\u0001 character", as: ben, get: notes/n1, expect: allow}
            """, as: "first.yaml"))
        let broken = await RulesTestRunner.run(path: try fixture.write("rules: test.rules\ncases: 3\n", as: "broken.yaml"))
        let xml = JUnitReport([passing, broken]).xml
        let (ok, collector, error) = Self.parse(xml)
        #expect(ok, "\(error)\n\(xml)")
        let names = collector.elements.map(\.name)
        #expect(names == ["testsuites", "testsuite", "testcase", "testcase", "failure", "testsuite", "testcase", "error"])
        let root = collector.elements[0].attributes
        #expect(root["tests"] == "3")
        #expect(root["failures"] == "1")
        #expect(root["errors"] == "1")
        #expect(collector.elements[2].attributes["name"] == "ann <reads> & \"quotes\" 'her' note")
        #expect(collector.elements[3].attributes["name"] == "control \u{FFFD} character")
        #expect(collector.elements[4].attributes["message"] == "expected allow, got deny")
        #expect(collector.text.contains("resource.data.owner == request.auth.uid` is false: \"ann\" == \"ben\""))
        #expect(collector.text.contains("cases must be a list"))
    }
}

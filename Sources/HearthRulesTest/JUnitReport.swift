import Foundation

/// The results as JUnit XML, the format CI systems show test results from: a `testsuite` per
/// spec, a `testcase` per case, a `failure` (with the trace) per failed case, and an `error` for a
/// spec that could not run.
package struct JUnitReport: Sendable {
    package var outcomes: [SpecOutcome]

    package init(_ outcomes: [SpecOutcome]) {
        self.outcomes = outcomes
    }

    package var xml: String {
        let tests = outcomes.reduce(0) { $0 + max($1.results.count, $1.setupFailure == nil ? 0 : 1) }
        let failures = outcomes.reduce(0) { $0 + $1.failedCount }
        let errors = outcomes.count { $0.setupFailure != nil }
        let time = outcomes.reduce(0) { $0 + $1.seconds }
        var out = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        out += #"<testsuites name="hearth test" tests="\#(tests)" failures="\#(failures)" errors="\#(errors)" time="\#(Self.seconds(time))">"# + "\n"
        for outcome in outcomes {
            let suiteTests = outcome.setupFailure == nil ? outcome.results.count : 1
            out += "  <testsuite name=\"\(Self.escape(outcome.name))\" file=\"\(Self.escape(outcome.path))\" tests=\"\(suiteTests)\" "
            out += "failures=\"\(outcome.failedCount)\" errors=\"\(outcome.setupFailure == nil ? 0 : 1)\" skipped=\"0\" time=\"\(Self.seconds(outcome.seconds))\">\n"
            if let failure = outcome.setupFailure {
                out += "    <testcase name=\"(spec)\" classname=\"\(Self.escape(outcome.name))\" file=\"\(Self.escape(outcome.path))\" time=\"0\">\n"
                out += "      <error message=\"the spec could not run\" type=\"SpecError\">\(Self.escape(failure))</error>\n"
                out += "    </testcase>\n"
            }
            for result in outcome.results {
                out += "    <testcase name=\"\(Self.escape(result.testCase.name))\" classname=\"\(Self.escape(outcome.name))\" "
                out += "file=\"\(Self.escape(outcome.path))\" line=\"\(result.testCase.line)\" time=\"\(Self.seconds(result.seconds))\""
                if result.isPassed {
                    out += "/>\n"
                    continue
                }
                let message = "expected \(result.testCase.expectation), got \(result.actualDescription)"
                out += ">\n      <failure message=\"\(Self.escape(message))\" type=\"\(Self.escape(result.actualDescription))\">"
                out += Self.escape(result.explanation) + "</failure>\n    </testcase>\n"
            }
            out += "  </testsuite>\n"
        }
        return out + "</testsuites>\n"
    }

    static func seconds(_ value: Double) -> String { String(format: "%.6f", value) }

    /// Text safe in an XML attribute or element: the five special characters escaped, and the
    /// characters XML 1.0 cannot carry at all (most control characters, lone surrogates never
    /// reach a Swift string) replaced with U+FFFD.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            default:
                let v = scalar.value
                if v < 0x20 || v == 0xFFFE || v == 0xFFFF {
                    out += "\u{FFFD}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}

import Foundation

/// `application/x-www-form-urlencoded` text, as `URLSearchParams` reads and writes it: pairs
/// split on `&` and `=`, `+` for a space, percent escapes.
package enum FormEncoding {
    /// The pairs of a form or query string, in order.
    package static func decode(_ text: some StringProtocol) -> [(String, String)] {
        text.split(separator: "&", omittingEmptySubsequences: true).map { part in
            let kv = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (unescape(kv[0]), kv.count > 1 ? unescape(kv[1]) : "")
        }
    }

    /// One component with `+` and percent escapes decoded.
    package static func unescape(_ s: some StringProtocol) -> String {
        let spaced = s.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }

    /// Escapes a query parameter value (everything but unreserved characters).
    package static func escape(_ s: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return s.addingPercentEncoding(withAllowedCharacters: allowed) ?? s
    }

    /// A query string of `pairs`, each escaped.
    package static func encode(_ pairs: [(String, String)]) -> String {
        pairs.map { escape($0.0) + "=" + escape($0.1) }.joined(separator: "&")
    }
}

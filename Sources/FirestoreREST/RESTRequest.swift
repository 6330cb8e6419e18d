import Foundation
import FirestoreJSON
package import FirestoreModel
package import HearthJSON

/// A decoded REST request: method, percent-decoded path, query parameters and JSON body.
package struct RESTRequest: Sendable {
    package var method: String
    package var path: String
    package var query: [(String, String)]
    package var body: [UInt8]
    /// The `Authorization` header, if any.
    package var authorization: String?

    package init(method: String, rawPath: String, rawQuery: String?, body: [UInt8], authorization: String? = nil) {
        self.method = method
        self.authorization = authorization
        self.path = rawPath.removingPercentEncoding ?? rawPath
        self.body = body
        var q: [(String, String)] = []
        for part in (rawQuery ?? "").split(separator: "&") where !part.isEmpty {
            let kv = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ s: Substring) -> String {
                String(s).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(s)
            }
            q.append((decode(kv[0]), kv.count > 1 ? decode(kv[1]) : ""))
        }
        query = q
    }

    package func parameter(_ name: String) -> String? { query.last { $0.0 == name }?.1 }
    package func parameters(_ name: String) -> [String] { query.filter { $0.0 == name }.map(\.1) }

    /// The body parsed as JSON, its fields given as `null` left out as not set
    /// (``RESTCodec/droppingUnsetFields(_:inMap:)``); an empty body is an empty object.
    package func json() throws(FirestoreError) -> JSON {
        if body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return .object([]) }
        do {
            return RESTCodec.droppingUnsetFields(try JSON.parse(body))
        } catch {
            throw .invalidArgument("Payload isn't valid for request: invalid JSON (\(error)).")
        }
    }

    /// The read mask, `mask.fieldPaths` query parameters, as field paths (nil when absent), held
    /// to a read mask's limits as the emulator's are (r16-get-mask-*).
    package func mask() throws(FirestoreError) -> [FieldPath]? {
        try mask("mask.fieldPaths")?.map { path throws(FirestoreError) in
            try path.validateAsReadMask()
            return path
        }
    }

    /// Field paths from the query parameters `name` (nil when absent), parsed only: an update
    /// mask's are checked with its write.
    package func mask(_ name: String) throws(FirestoreError) -> [FieldPath]? {
        let values = parameters(name)
        if values.isEmpty { return nil }
        var out: [FieldPath] = []
        for v in values { out.append(try FieldPath(parsing: v)) }
        return out
    }

    package func boolParameter(_ name: String) throws(FirestoreError) -> Bool? {
        guard let v = parameter(name) else { return nil }
        switch v {
        case "true", "1": return true
        case "false", "0": return false
        default: throw .invalidArgument("Invalid value at '\(name)' (TYPE_BOOL), \"\(v)\"")
        }
    }

    package func intParameter(_ name: String) throws(FirestoreError) -> Int? {
        guard let v = parameter(name) else { return nil }
        guard let i = Int32(v) else { throw .invalidArgument("Invalid value at '\(name)' (TYPE_INT32), \"\(v)\"") }
        return Int(i)
    }
}

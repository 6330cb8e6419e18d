import HearthHashing
import HearthJSON

/// A signed URL's claim, rebuilt from the request the way Cloud Storage checks it: who signed
/// (the service account's email), the string they signed, their signature, and when it
/// expires. Checking the signature against the account's public key is the engine's job.
///
/// V4 (`X-Goog-Signature`, `GOOG4-RSA-SHA256`): the canonical request is the method, the path
/// (decoded and re-encoded per RFC 3986, `/` kept), the query without the signature sorted and
/// RFC 3986-encoded, the signed headers (`name:value`, lower-case, spaces collapsed), their
/// names, and `UNSIGNED-PAYLOAD` (or `x-goog-content-sha256`); the string to sign is
/// `GOOG4-RSA-SHA256`, the request time, the credential scope and the canonical request's
/// SHA-256 in hex. V2 (`GoogleAccessId`, `Expires`, `Signature`): the method, `Content-MD5`,
/// `Content-Type`, the expiry, the `x-goog-*` headers and the path, one per line.
package struct SignedURL: Sendable, Equatable {
    package enum Version: String, Sendable { case v2 = "V2", v4 = "V4" }

    package var version: Version
    /// The service account that signed.
    package var email: String
    package var signature: [UInt8]
    /// What was signed.
    package var stringToSign: String
    /// V4's canonical request, for the explanation of a mismatch.
    package var canonicalRequest: String?
    /// When the URL stops working, in microseconds since the epoch.
    package var expiresAt: Int64
    /// V4: when it was signed.
    package var signedAt: Int64?
    /// A second candidate string to sign, when clients may order the query differently.
    package var alternateStringToSign: String?

    /// The longest a V4 URL may live: seven days.
    package static let maxV4Seconds: Int64 = 604_800

    /// Whether a request's query makes it a signed-URL request.
    package static func isSigned(_ query: [(String, String)]) -> Bool {
        query.contains { $0.0 == "X-Goog-Signature" || $0.0 == "Signature" && query.contains(where: { $0.0 == "GoogleAccessId" }) }
    }

    /// Rebuilds what the signer signed; throws 400 (`reason`: the XML API's code) when the URL's
    /// parameters are malformed.
    ///
    /// - Parameters:
    ///   - rawPath: The path as the request carried it (percent-encoded).
    ///   - headers: The request's headers, names in lower case, in order.
    package init(method: String, rawPath: String, query: [(String, String)], headers: [(String, String)]) throws(StorageError) {
        let header: (String) -> [String] = { name in headers.filter { $0.0 == name }.map(\.1) }
        var parameters: [String: String] = [:]
        for (name, value) in query where parameters[name] == nil { parameters[name] = value }
        if let signatureHex = parameters["X-Goog-Signature"] {
            try self.init(v4: method, rawPath: rawPath, query: query, parameters: parameters, signatureHex: signatureHex, header: header)
        } else {
            let extensions = headers.filter { $0.0.hasPrefix("x-goog-") }.map { "\($0.0):\($0.1.trimmingSpaces)" }.sorted()
            try self.init(v2: method, rawPath: rawPath, query: query, parameters: parameters, header: header, extensions: extensions)
        }
    }

    private init(v4 method: String, rawPath: String, query: [(String, String)], parameters: [String: String], signatureHex: String,
                 header: (String) -> [String]) throws(StorageError) {
        guard parameters["X-Goog-Algorithm"] == "GOOG4-RSA-SHA256" else {
            throw Self.bad("X-Goog-Algorithm must be GOOG4-RSA-SHA256 (HMAC keys are not supported), not \(parameters["X-Goog-Algorithm"] ?? "missing").")
        }
        guard let credential = parameters["X-Goog-Credential"], let slash = credential.firstIndex(of: "/") else {
            throw Self.bad("X-Goog-Credential is missing or malformed; expected email/date/region/storage/goog4_request.")
        }
        let scope = String(credential[credential.index(after: slash)...])
        guard let date = parameters["X-Goog-Date"], let signedAt = Self.micros(goog4Date: date) else {
            throw Self.bad("X-Goog-Date is missing or malformed; expected YYYYMMDDTHHMMSSZ.")
        }
        guard scope.hasPrefix(String(date.prefix(8)) + "/"), scope.hasSuffix("/storage/goog4_request") else {
            throw Self.bad("The credential scope \(scope) does not match X-Goog-Date \(date).")
        }
        guard let expires = parameters["X-Goog-Expires"].flatMap({ Int64($0) }), expires > 0, expires <= Self.maxV4Seconds else {
            throw Self.bad("X-Goog-Expires must be a number of seconds from 1 to \(Self.maxV4Seconds).")
        }
        guard let signedHeaders = parameters["X-Goog-SignedHeaders"], !signedHeaders.isEmpty else {
            throw Self.bad("X-Goog-SignedHeaders is missing.")
        }
        guard let signature = Self.hexBytes(signatureHex) else { throw Self.bad("X-Goog-Signature is not hexadecimal.") }
        let names = signedHeaders.split(separator: ";").map { $0.lowercased() }
        var headerLines = ""
        for name in names {
            let values = header(name).map { $0.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ") }
            headerLines += "\(name):\(values.joined(separator: ","))\n"
        }
        let payload = names.contains("x-goog-content-sha256") ? header("x-goog-content-sha256").first ?? "" : "UNSIGNED-PAYLOAD"
        let encoded = query.filter { $0.0 != "X-Goog-Signature" }
            .map { (PercentEncoding.encode($0.0), PercentEncoding.encode($0.1)) }
        let byPair = encoded.map { "\($0.0)=\($0.1)" }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        let byName = encoded.sorted { ($0.0, $0.1) < ($1.0, $1.1) }.map { "\($0.0)=\($0.1)" }
        func stringToSign(_ canonicalQuery: [String]) -> (String, String) {
            let canonical = [method, Self.canonicalPath(rawPath), canonicalQuery.joined(separator: "&"), headerLines, signedHeaders, payload]
                .joined(separator: "\n")
            let hash = SHA256.digest(Array(canonical.utf8)).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
            return (["GOOG4-RSA-SHA256", date, scope, hash].joined(separator: "\n"), canonical)
        }
        let (primary, canonical) = stringToSign(byPair)
        version = .v4
        email = String(credential[..<slash])
        self.signature = signature
        self.stringToSign = primary
        canonicalRequest = canonical
        self.signedAt = signedAt
        expiresAt = signedAt + expires * 1_000_000
        alternateStringToSign = byName == byPair ? nil : stringToSign(byName).0
    }

    private init(v2 method: String, rawPath: String, query: [(String, String)], parameters: [String: String],
                 header: (String) -> [String], extensions: [String]) throws(StorageError) {
        guard let email = parameters["GoogleAccessId"], !email.isEmpty else { throw Self.bad("GoogleAccessId is missing.") }
        guard let expires = parameters["Expires"].flatMap({ Int64($0) }) else { throw Self.bad("Expires must be a Unix time in seconds.") }
        guard let signatureText = parameters["Signature"], let signature = Base64.decode(signatureText) else {
            throw Self.bad("Signature is missing or not base64.")
        }
        let reserved: Set<String> = ["GoogleAccessId", "Expires", "Signature", "response-content-type", "response-content-disposition", "generation"]
        let extra = query.filter { !reserved.contains($0.0) }
            .map { ($0.0.lowercased(), $0.1.trimmingSpaces) }.sorted { ($0.0, $0.1) < ($1.0, $1.1) }
        var resource = Self.canonicalPath(rawPath)
        if !extra.isEmpty {
            resource += "?" + extra.map { "\(Self.formEncode($0.0))=\(Self.formEncode($0.1))" }.joined(separator: "&")
        }
        var lines = [method, header("content-md5").first ?? "", header("content-type").first ?? "", String(expires)]
        lines += extensions
        lines.append(resource)
        version = .v2
        self.email = email
        self.signature = signature
        stringToSign = lines.joined(separator: "\n")
        canonicalRequest = nil
        expiresAt = expires * 1_000_000
        signedAt = nil
        alternateStringToSign = nil
    }

    /// The path decoded and re-encoded as RFC 3986 asks (unreserved characters and `/` kept).
    static func canonicalPath(_ rawPath: String) -> String {
        PercentEncoding.decode(rawPath).map { PercentEncoding.encode($0, keeping: [UInt8(ascii: "/")]) } ?? rawPath
    }

    /// `application/x-www-form-urlencoded` as Python's `urlencode` writes it (spaces as `+`).
    static func formEncode(_ text: String) -> String {
        PercentEncoding.encode(text, spaceAsPlus: true)
    }

    /// `20240101T120000Z` in microseconds since the epoch.
    static func micros(goog4Date text: String) -> Int64? {
        let b = Array(text.utf8)
        guard b.count == 16, b[8] == UInt8(ascii: "T"), b[15] == UInt8(ascii: "Z") else { return nil }
        let iso = "\(String(decoding: b[0..<4], as: UTF8.self))-\(String(decoding: b[4..<6], as: UTF8.self))-"
            + "\(String(decoding: b[6..<8], as: UTF8.self))T\(String(decoding: b[9..<11], as: UTF8.self)):"
            + "\(String(decoding: b[11..<13], as: UTF8.self)):\(String(decoding: b[13..<15], as: UTF8.self))Z"
        return StorageTime.micros(rfc3339: iso)
    }

    static func hexBytes(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0, !digits.isEmpty else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index...index + 1], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(byte)
        }
        return bytes
    }

    static func bad(_ message: String) -> StorageError {
        StorageError(.invalidArgument, message, reason: "InvalidArgument")
    }
}

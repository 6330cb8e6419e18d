import _CryptoExtras
import Crypto
package import Foundation
import HearthJSON
package import StorageModel

/// The service accounts whose signed URLs Hearth honours, by email, with their public keys.
///
/// A client signs a URL with a service account's private key; checking it needs the matching
/// public key. Google publishes those at the account's `client_x509_cert_url`, which cannot be
/// fetched offline, so Hearth reads the same service account JSON file the client signs with
/// (`--storage-service-account FILE`, or the file `GOOGLE_APPLICATION_CREDENTIALS` names when it
/// is a service account) and keeps only the public half of its `private_key`. A signed URL from
/// any other account is refused, saying which file to pass.
package struct ServiceAccountKeys: Sendable {
    private var keys: [String: _RSA.Signing.PublicKey] = [:]

    package init() {}

    /// The accounts known, by email.
    package var emails: [String] { keys.keys.sorted() }

    /// Adds the account of a service account JSON file; returns its email.
    @discardableResult
    package mutating func add(serviceAccountJSON bytes: [UInt8], source: String) throws(StorageError) -> String {
        let json: JSON
        do { json = try JSON.parse(bytes) } catch { throw StorageError.invalidArgument("\(source) is not JSON: \(error).") }
        guard case .string(let email)? = json["client_email"], case .string(let pem)? = json["private_key"] else {
            throw StorageError.invalidArgument("\(source) is not a service account key file: it needs client_email and private_key.")
        }
        do {
            keys[email] = try _RSA.Signing.PrivateKey(unsafePEMRepresentation: pem).publicKey
        } catch {
            throw StorageError.invalidArgument("The private_key of \(source) is not an RSA key in PEM form: \(error).")
        }
        return email
    }

    /// Reads service account files.
    package mutating func add(files: [URL]) throws(StorageError) {
        for file in files {
            guard let data = FileManager.default.contents(atPath: file.path) else {
                throw StorageError.invalidArgument("Cannot read the service account file \(file.path).")
            }
            try add(serviceAccountJSON: Array(data), source: file.path)
        }
    }

    /// Checks a signed URL: its signer is known, its signature is theirs over what the request
    /// says, and it has not expired (nor, for V4, been signed in the future).
    package func verify(_ url: SignedURL, now: Int64) throws(StorageError) {
        guard let key = keys[url.email] else {
            let known = emails.isEmpty ? "none" : emails.joined(separator: ", ")
            throw StorageError(.permissionDenied, "Hearth does not know the key of \(url.email) (known: \(known)); start Hearth with "
                               + "--storage-service-account FILE naming that account's key file.", reason: "AccessDenied")
        }
        if let signedAt = url.signedAt, signedAt > now + 15 * 60 * 1_000_000 {
            throw StorageError(.invalidArgument, "The signed URL's X-Goog-Date is in the future.", reason: "InvalidArgument")
        }
        guard now < url.expiresAt else {
            throw StorageError(.invalidArgument, "Request has expired: the signed URL expired at \(StorageTime.rfc3339(micros: url.expiresAt)).",
                               reason: "ExpiredToken")
        }
        let signature = _RSA.Signing.RSASignature(rawRepresentation: url.signature)
        let candidates = [url.stringToSign] + (url.alternateStringToSign.map { [$0] } ?? [])
        let valid = candidates.contains { text in
            key.isValidSignature(signature, for: SHA256.hash(data: Array(text.utf8)), padding: .insecurePKCS1v1_5)
        }
        guard valid else {
            var detail = "StringToSign:\n\(url.stringToSign)"
            if let canonical = url.canonicalRequest { detail += "\nCanonicalRequest:\n\(canonical)" }
            throw StorageError(.permissionDenied, "The request signature we calculated does not match the signature you provided. "
                               + "Check your Google secret key and signing method.", detail: detail, reason: "SignatureDoesNotMatch")
        }
    }
}

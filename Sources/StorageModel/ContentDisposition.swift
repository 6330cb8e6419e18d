/// The `Content-Disposition` of a Firebase download: the object's disposition (or
/// `attachment`) with the object's file name in RFC 5987 form, so a browser saves
/// `photos/cat 1.png` as `cat 1.png`.
package enum ContentDisposition {
    /// `inline; filename*=utf-8''cat%201.png`. A disposition that already names a file is
    /// returned as it is.
    package static func download(disposition: String?, objectName: ObjectName) -> String {
        let base = disposition ?? "attachment"
        if base.lowercased().contains("filename") { return base }
        return "\(base); filename*=utf-8''\(rfc5987(objectName.lastComponent))"
    }

    /// RFC 5987 `value-chars`: UTF-8 bytes, all but `attr-char` percent-encoded.
    package static func rfc5987(_ text: String) -> String {
        let attrChars = Set("!#$&+-.^_`|~".utf8)
        return PercentEncoding.encode(text, keeping: attrChars)
    }
}

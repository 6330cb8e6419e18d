import Foundation
package import HearthJSON
package import Hummingbird

/// The emulator hub's port (firebase-tools' `hub.ts`): `GET /emulators` lists each running
/// service's address in firebase-tools' shape, which `@firebase/rules-unit-testing` and the
/// Emulator UI read; `GET /` is the locator (also written to ``HubLocatorFile``). Routes the
/// hub does not serve (`/_admin/export`, the Functions triggers) answer 404 with a JSON message.
package struct EmulatorHub: HTTPResponder {
    package typealias Context = BasicRequestContext
    let emulators: RunningEmulators
    let pid: Int32
    /// Writes every service's data to a directory (`POST /_admin/export`); nil: not served.
    var export: (@Sendable (URL) async throws -> [String])?

    package func respond(to request: Request, context: Context) async throws -> Response {
        switch (request.method, request.uri.path) {
        case (.get, "/"):
            return Self.reply(200, locator())
        case (.get, "/emulators"), (.get, "/emulators/"):
            return Self.reply(200, Self.emulatorsJSON(emulators.entries, pid: pid))
        case (.post, "/_admin/export"):
            return try await exportReply(request)
        default:
            let message = "The Hearth hub serves GET /, GET /emulators and POST /_admin/export; \(request.method) \(request.uri.path) is not one of them."
            return Self.reply(404, .object([("message", .string(message))]))
        }
    }

    /// `POST /_admin/export`: 200 `{"message": "OK", "exported": [...]}` once the export is in
    /// place, 500 `{message}` when it failed (the previous export is then untouched), 403 for a
    /// request from a web page (an `Origin` header), as firebase-tools refuses it.
    func exportReply(_ request: Request) async throws -> Response {
        guard let export else { return Self.reply(404, .object([("message", .string("Export is not available."))])) }
        if request.headers[.origin] != nil {
            return Self.reply(403, .object([("message", .string("Export cannot be triggered by external callers."))]))
        }
        let usage = "The body must be JSON with the export directory: {\"path\": \"DIR\"}."
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: 1 << 20)
        } catch {
            // A body cut short, malformed chunks, or more than a megabyte.
            return Self.reply(400, .object([("message", .string("The request body could not be read (\(error)). " + usage))]))
        }
        guard let json = try? JSON.parse(Array(buffer: body)), case .string(let path)? = json["path"], !path.isEmpty,
              !path.contains("\u{0}") else {
            return Self.reply(400, .object([("message", .string(usage))]))
        }
        do {
            let lines = try await export(URL(fileURLWithPath: path))
            return Self.reply(200, .object([("message", .string("OK")), ("exported", .array(lines.map(JSON.string)))]))
        } catch {
            // A directory that cannot be made or written is the caller's to fix (400); anything
            // else (a full disk, a failing read of Hearth's own data) is Hearth's (500).
            let message = "Export to \(path) failed: \(error). The previous export there is unchanged."
            return Self.reply(Self.isPathProblem(error) ? 400 : 500, .object([("message", .string(message))]))
        }
    }

    /// Whether an export failed because of the directory it was asked to write (missing parent,
    /// no permission, a file in the way, a name too long, a read-only file system).
    static func isPathProblem(_ error: any Error) -> Bool {
        let ns = error as NSError
        let posix: Int32?
        if ns.domain == NSPOSIXErrorDomain {
            posix = Int32(ns.code)
        } else if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            posix = Int32(underlying.code)
        } else if ns.domain == NSCocoaErrorDomain {
            return [CocoaError.fileNoSuchFile.rawValue, CocoaError.fileWriteNoPermission.rawValue, CocoaError.fileWriteInvalidFileName.rawValue,
                    CocoaError.fileWriteFileExists.rawValue, CocoaError.fileWriteVolumeReadOnly.rawValue, CocoaError.fileReadNoSuchFile.rawValue,
                    CocoaError.fileWriteUnknown.rawValue].contains(ns.code)
        } else {
            posix = nil
        }
        guard let posix else { return false }
        return [ENOENT, EACCES, EPERM, ENOTDIR, EISDIR, EEXIST, ENOTEMPTY, ENAMETOOLONG, EROFS, EINVAL, ELOOP, EXDEV].contains(posix)
    }

    /// The locator and, for callers of old CLIs, the hub's own host and port.
    func locator() -> JSON {
        guard let hub = emulators.entry(.hub) else { return Self.locator(origins: [], pid: pid) }
        guard case .object(var pairs) = Self.locator(origins: [Self.origin(hub)], pid: pid) else { return .null }
        pairs.append(("host", .string(hub.connectableHost)))
        pairs.append(("port", .number(String(hub.port))))
        return .object(pairs)
    }

    /// `{version, origins, pid}`: firebase-tools' `Locator`. `version` names Hearth, which has no
    /// CLI release number to give.
    package static func locator(origins: [String], pid: Int32) -> JSON {
        .object([("version", .string("hearth")), ("origins", .array(origins.map(JSON.string))), ("pid", .number(String(pid)))])
    }

    /// How the hub is reached, as a URL prefix (`http://127.0.0.1:4400`).
    static func origin(_ hub: RunningEmulators.Entry) -> String {
        "http://" + hub.hostAndPort
    }

    /// `GET /emulators`: name → `{listen, name, host, port, pid}`, each service as firebase-tools'
    /// `EmulatorInfo` with its listen specs first (`listen: [{address, family, port}]`).
    package static func emulatorsJSON(_ entries: [RunningEmulators.Entry], pid: Int32) -> JSON {
        .object(entries.map { entry in
            let family = entry.host.contains(":") ? "IPv6" : "IPv4"
            let listen = JSON.object([("address", .string(entry.host)), ("family", .string(family)), ("port", .number(String(entry.port)))])
            return (entry.name.rawValue, .object([
                ("listen", .array([listen])), ("name", .string(entry.name.rawValue)), ("host", .string(entry.connectableHost)),
                ("port", .number(String(entry.port))), ("pid", .number(String(pid))),
            ]))
        })
    }

    static func reply(_ status: Int, _ body: JSON) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: .init(code: status), headers: headers, body: .init(byteBuffer: ByteBuffer(string: body.serialized)))
    }
}

import ArgumentParser
import Foundation
import HearthJSON

/// `hearth export DIR`: asks a running Hearth, through its hub, to export every service's data
/// to DIR (`POST /_admin/export`, as `firebase emulators:export` does), replacing what DIR held
/// only once the new export is complete.
struct Export: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Export the data of a running Hearth (every service) to a directory, through its hub.",
        discussion: "The directory is replaced only once the export is complete (docs/import-export.md). Read it back with hearth start --import DIR."
    )

    @Argument(help: ArgumentHelp("The directory to write (created, or replaced whole).", valueName: "dir"))
    var directory: String

    @Option(help: ArgumentHelp("The running Hearth's hub (default: $FIREBASE_EMULATOR_HUB, else 127.0.0.1:4400).", valueName: "host:port"))
    var hub: String?

    func run() async throws {
        let hub = hub ?? ProcessInfo.processInfo.environment["FIREBASE_EMULATOR_HUB"].flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1:4400"
        guard let (host, port) = Self.hostAndPort(hub) else { throw ValidationError("Bad hub address \(hub); give host:port.") }
        let path = URL(fileURLWithPath: directory).standardizedFileURL.path
        let body = Array(JSON.object([("path", .string(path)), ("initiatedBy", .string("hearth export"))]).serialized.utf8)
        let answer: LocalHTTP.Reply
        do {
            answer = try await LocalHTTP.post(host: host, port: port, path: "/_admin/export", body: body, contentType: "application/json")
        } catch {
            throw ValidationError("Cannot reach the hub at \(hub) (\(error)): is Hearth running? Name its hub with --hub HOST:PORT.")
        }
        let data = answer.body
        let reply = try? JSON.parse(data)
        let status = answer.status
        guard status == 200 else {
            var message = String(decoding: data, as: UTF8.self)
            if case .string(let text)? = reply?["message"] { message = text }
            FileHandle.standardError.write(Data("hearth export: the hub at \(hub) answered \(status): \(message)\n".utf8))
            throw ExitCode.failure
        }
        print("Exported to \(path)")
        if case .array(let lines)? = reply?["exported"] {
            for case .string(let line) in lines { print("  \(line)") }
        }
    }

    /// `host:port`, `[v6]:port` → host and port; nil when either is missing or the port is not one.
    static func hostAndPort(_ text: String) -> (String, Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (1...65535).contains(port) else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host.isEmpty ? nil : (host, port)
    }
}

import ArgumentParser
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
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
        guard let url = URL(string: "http://\(hub)/_admin/export") else { throw ValidationError("Bad hub address \(hub); give host:port.") }
        let path = URL(fileURLWithPath: directory).standardizedFileURL.path
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(JSON.object([("path", .string(path)), ("initiatedBy", .string("hearth export"))]).serialized.utf8)
        request.timeoutInterval = 3600
        let data: Data, response: URLResponse
        do {
            (data, response) = try await URLSession.shared.data(for: request)
        } catch {
            throw ValidationError("Cannot reach the hub at \(hub) (\(error.localizedDescription)): is Hearth running? Name its hub with --hub HOST:PORT.")
        }
        let reply = try? JSON.parse(Array(data))
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
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
}

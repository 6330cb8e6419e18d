import DatabaseEngine
import DatabaseREST
import DatabaseRules
import DatabaseWebSocket
import Foundation
import HearthHTTP
import HummingbirdWebSocket
import NIOCore
import HTTPTypes

/// The Realtime Database emulator's port: REST and event streams through ``DatabaseRESTResponder``
/// (behind CORS), the SDKs' WebSocket protocol on `/.ws`, and the `--database-rules` file,
/// reloaded when it changes.
struct DatabaseServer: Sendable {
    let settings: HearthConfiguration.DatabaseSettings
    let host: String
    let service: DatabaseService
    let rest: DatabaseRESTService
    let report: @Sendable (String) -> Void

    init(settings: HearthConfiguration.DatabaseSettings, host: String, service: DatabaseService, report: @escaping @Sendable (String) -> Void) {
        self.settings = settings
        self.host = host
        self.report = report
        self.service = service
        rest = DatabaseRESTService(database: service)
    }

    /// Serves the port until cancelled; `onOff` is called instead of `onBound`, and it returns,
    /// when a busy default port turns the database off.
    func run(onBound: @escaping @Sendable (Int) async -> Void, onOff: @escaping @Sendable () -> Void = {}) async throws {
        var files: [WatchedFile] = []
        if let file = settings.rulesFile {
            files.append(DatabaseRulesFile.watched(file, service: service, report: report))
        } else {
            report("hearth: no Realtime Database rules loaded: every client read and write is allowed"
                   + (settings.instanceRules.isEmpty ? "" : " (but in \(settings.instanceRules.keys.sorted().joined(separator: ", ")))")
                   + ". Load rules with --database-rules FILE or PUT /.settings/rules.json.")
        }
        for (namespace, file) in settings.instanceRules.sorted(by: { $0.key < $1.key }) {
            files.append(DatabaseRulesFile.watched(file, namespace: namespace, service: service, report: report))
        }
        for file in files { _ = file.load() }
        let watches = files.map { file in Task { await file.watch() } }
        defer { for watch in watches { watch.cancel() } }
        let listener = HTTPListener(host: host, port: settings.port,
                                    responder: CORSResponder(DatabaseRESTResponder(service: rest), exposedHeaders: ["ETag"]),
                                    webSocket: webSocketRoute())
        do {
            try await ServicePortError.naming("The Realtime Database", option: "--database-port") {
                try await listener.run(onBound: onBound)
            }
        } catch let error as ServicePortError where !settings.isExplicit && !Task.isCancelled {
            onOff()
            report("hearth: the Realtime Database is off: \(error.failure). Choose a port with --database-port.")
        }
    }

    /// `/.ws?v=5&ns=…`: the SDKs' WebSocket protocol, one ``WireConnection`` per socket.
    func webSocketRoute() -> HTTPListener.WebSocketRoute {
        { [rest, service] request in
            guard let target = request.path, target == "/.ws" || target.hasPrefix("/.ws?") else { return nil }
            var parameters: [String: String] = [:]
            for pair in (target.split(separator: "?", maxSplits: 1).dropFirst().first ?? "").split(separator: "&") {
                let kv = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
                if kv.count == 2 { parameters[kv[0]] = kv[1] }
            }
            let authority = request.authority
            guard let ns = try? service.namespace(rest.namespaceName(parameters: parameters, host: authority)) else { return nil }
            let connection = WireConnection(namespace: ns, host: authority ?? "localhost")
            return HTTPListener.textWebSocket { texts, send in await connection.run(frames: texts, send: send) }
        }
    }
}

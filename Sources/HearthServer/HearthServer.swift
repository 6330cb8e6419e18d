import Foundation
package import FirestoreEngine
import FirestoreREST
import FirestoreStorage
import FirestoreGRPC
import FirestoreWebChannel
import FirestoreWebSocket
package import AuthService
import GRPCCore
import GRPCNIOTransportHTTP2
import HearthHTTP
import HummingbirdWebSocket
import NIOCore
import UnixSignals
import HTTPTypes
package import DatabaseEngine
package import StorageEngine
import StorageHTTP

/// The composition root: builds the engine and the transports from a configuration and runs
/// them until SIGINT or SIGTERM.
package struct HearthServer: Sendable {
    package let configuration: HearthConfiguration
    package let engine: FirestoreEngine
    /// The Auth emulator, when ``HearthConfiguration/authPort`` is set.
    package let auth: AuthService?
    /// The Storage emulator, unless its port is 0.
    package let storage: StorageEngine?
    /// The Realtime Database, when ``HearthConfiguration/database`` is set.
    package let database: DatabaseService?
    /// The services serving and their addresses, as the hub lists them.
    package let running: RunningEmulators

    package init(configuration: HearthConfiguration) throws {
        self.configuration = configuration
        running = RunningEmulators(expecting: configuration.services)
        let stores = try StoreDirectory(dataDirectory: configuration.dataDirectory)
        engine = FirestoreEngine(stores: stores, singleProject: configuration.singleProjectMode
                                 ? SingleProjectMode(project: configuration.projectID, report: Self.standardError) : nil)
        auth = configuration.authPort == nil ? nil : try Self.makeAuthService(configuration)
        storage = configuration.storagePort == 0 ? nil : try Self.makeStorage(configuration, firestore: engine)
        database = configuration.database == nil ? nil : try DatabaseService(dataDirectory: configuration.dataDirectory, report: Self.standardError)
    }

    /// Writes a line to standard error.
    package static let standardError: @Sendable (String) -> Void = { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }

    /// Every service's data, for `hearth export`, `--import` and `--export-on-exit`.
    package var dataExport: EmulatorExport {
        EmulatorExport(firestore: engine, auth: auth, database: database, storage: storage, project: configuration.projectID)
    }

    /// Serves until SIGINT or SIGTERM (with `stopsOnSignal`) or cancellation; `onRunning`
    /// receives the bound port (useful with port 0), once Storage's port (reported to
    /// `onStorageRunning`) is bound too; `onAuthRunning` receives the Auth emulator's,
    /// `onDatabaseRunning` the Realtime Database's, `onHubRunning` the hub's, when they serve
    /// one. Each bound port is also recorded in ``running``.
    package func run(onRunning: @escaping @Sendable (Int) async -> Void = { _ in },
                     onAuthRunning: @escaping @Sendable (Int) async -> Void = { _ in },
                     onStorageRunning: @escaping @Sendable (Int) async -> Void = { _ in },
                     onDatabaseRunning: @escaping @Sendable (Int) async -> Void = { _ in },
                     onHubRunning: @escaping @Sendable (Int) async -> Void = { _ in },
                     stopsOnSignal: Bool = true,
                     report: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }) async throws {
        var watched: [WatchedFile] = []
        if let rulesFile = configuration.rulesFile {
            let file = RulesFile.watched(rulesFile, registry: engine.rules, report: report)
            _ = file.load()
            watched.append(file)
        } else if configuration.firestoreDatabaseRules.isEmpty {
            report("hearth: no security rules loaded: every client request is allowed. Load rules with --rules FILE or PUT /emulator/v1/projects/{project}:securityRules.")
        }
        for (database, rulesFile) in configuration.firestoreDatabaseRules.sorted(by: { $0.key < $1.key }) {
            let file = RulesFile.watched(rulesFile, install: { [rules = engine.rules] in rules.install($0, database: database) }, report: report)
            _ = file.load()
            watched.append(file)
        }
        engine.indexes.mode = configuration.effectiveIndexMode
        engine.indexes.report(to: report)
        if let indexesFile = configuration.indexesFile {
            let file = IndexesFile.watched(indexesFile, registry: engine.indexes, report: report)
            guard file.load() else { throw HearthServerError.badIndexesFile(indexesFile.path) }
            watched.append(file)
        }
        if let storage { watched += storageRules(storage, report: report) }
        defer { storage?.close() }
        defer { self.database?.closeAll() }
        if let importDirectory = configuration.importDirectory {
            do {
                let lines = try await dataExport.importData(from: importDirectory)
                report("hearth: imported \(importDirectory.path): " + lines.joined(separator: ", "))
            } catch {
                throw HearthServerError.badImport(importDirectory.path, "\(error)")
            }
        }
        let watchTasks = watched.map { file in Task { await file.watch() } }
        defer { for task in watchTasks { task.cancel() } }
        // gRPC starts on the first HTTP/2 connection, so an emulator that only serves REST never
        // loads the gRPC stack (faster start, smaller idle memory).
        let grpc = LazyGRPCServer(service: FirestoreGRPCService(engine: engine))
        let webChannelSessions = WebChannelSessions(engine: engine)
        defer { webChannelSessions.closeAll() }
        let firestore = HTTPListener(
            host: configuration.host(of: .firestore), port: configuration.port,
            responder: CORSResponder(HearthResponder(rest: FirestoreRESTResponder(service: FirestoreRESTService(engine: engine)),
                                                     webChannel: WebChannelResponder(sessions: webChannelSessions)),
                                     exposedHeaders: ["x-client-wire-protocol", "x-http-session-id", "x-http-initial-response"]),
            webSocket: Self.webSocketRoute(WebSocketListenConnection(engine: engine)),
            http2: HTTP2Intake(adopt: { channel in
                channel.eventLoop.makeFutureWithTask { await grpc.handoff() }.flatMap { $0.adopt(channel) }
            }, frontHandlers: { [PingAndLateResetAbsorber(), EndOfTickFlusher()] })
        )
        defer { engine.stores.closeAll() }
        let authHTTP = auth.map { authListener($0) }
        defer { closeAuth() }
        let database: DatabaseServer? = if let settings = configuration.database, let service = self.database {
            DatabaseServer(settings: settings, host: configuration.host(of: .database), service: service, report: report)
        } else {
            nil
        }
        let running = self.running
        let dataExport = self.dataExport
        let hub = configuration.hub.map {
            HubServer(settings: $0, host: configuration.host(of: .hub), project: configuration.projectID, running: running, export: { target in
                let lines = try await dataExport.write(to: target)
                report("hearth: exported to \(target.path): " + lines.joined(separator: ", "))
                return lines
            })
        }
        defer { hub?.locator.remove() }
        // Every connection's tasks (the listener's per-connection tasks, grpc-swift's per-call
        // tasks) stay on their connection's event loop.
        try await withTaskExecutorPreference(EventLoopTaskExecutor.singleton) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                if let storage {
                    try await serveStorage(storage, in: &group, onRunning: onStorageRunning, report: report)
                }
                let firestoreHost = firestore.host
                group.addTask {
                    try await ServicePortError.naming("Firestore", option: "--port") {
                        try await firestore.run { port in
                            running.started(.firestore, host: firestoreHost, port: port)
                            await onRunning(port)
                        }
                    }
                }
                if let authHTTP {
                    group.addTask { try await runAuth(authHTTP, onRunning: onAuthRunning, report: report) }
                }
                if let database {
                    let host = database.host
                    group.addTask {
                        try await database.run(onBound: { port in
                            running.started(.database, host: host, port: port)
                            await onDatabaseRunning(port)
                        }, onOff: { running.off(.database) })
                    }
                }
                if let hub {
                    group.addTask { try await hub.run(onRunning: onHubRunning, report: report) }
                }
                if stopsOnSignal {
                    group.addTask {
                        // Ends the group (and so the listeners) on the first SIGINT or SIGTERM.
                        for await _ in await UnixSignalsSequence(trapping: .sigterm, .sigint) { break }
                        throw CancellationError()
                    }
                }
                // Ends on a signal, on cancellation (every task then returns) or on a task's error;
                // a task that returns early (a service whose default port was busy, turned off)
                // leaves the others serving.
                do {
                    for try await _ in group {}
                } catch is CancellationError {
                    // a signal
                }
                await grpc.shutdown()
                group.cancelAll()
            }
        }
        if let target = configuration.exportOnExit { await exportOnExit(to: target, report: report) }
    }

    /// `--export-on-exit`: every service's data to `target`, in a task of its own so that the
    /// cancellation that stopped the server does not stop the export.
    func exportOnExit(to target: URL, report: @escaping @Sendable (String) -> Void) async {
        let dataExport = self.dataExport
        let result = await Task.detached { try await dataExport.write(to: target) }.result
        switch result {
        case .success(let lines): report("hearth: exported to \(target.path) on exit: " + lines.joined(separator: ", "))
        case .failure(let error): report("hearth: export to \(target.path) on exit failed: \(error); the previous export there is unchanged.")
        }
    }
}

extension HearthServer {
    /// Hearth's own listen protocol on `/ws` (docs/websocket-protocol.md): text messages in and
    /// out of a ``WebSocketListenConnection``.
    static func webSocketRoute(_ listen: WebSocketListenConnection) -> HTTPListener.WebSocketRoute {
        { request in
            guard request.path == "/ws" || request.path?.hasPrefix("/ws?") == true else { return nil }
            return HTTPListener.textWebSocket { texts, send in try await listen.run(messages: texts, send: send) }
        }
    }
}

enum HearthServerError: Error, CustomStringConvertible {
    case couldNotStart
    case badIndexesFile(String)
    case badImport(String, String)

    var description: String {
        switch self {
        case .couldNotStart: "Hearth could not start."
        case .badIndexesFile(let path): "\(path) has errors (above); fix it and start again."
        case .badImport(let path, let problem): "cannot import \(path): \(problem)"
        }
    }
}

enum FirestoreGRPCLimits {
    /// The largest gRPC message the transport takes: Firestore's 10 MiB request limit plus
    /// framing. Write requests over 4 MiB (the official emulator's gRPC limit) are refused by
    /// the service with RESOURCE_EXHAUSTED, which the client then sees as a status.
    static let maxRequestBytes = 11 * 1024 * 1024
}

/// The gRPC server, started once, on first use; it serves the HTTP/2 connections the port
/// multiplexer hands it.
actor LazyGRPCServer {
    let service: FirestoreGRPCService
    private var started: (server: GRPCServer<TunedServerTransport<HTTP2ServerTransport.Custom<GRPCConnectionHandoff>>>, task: Task<Void, any Error>,
                          handoff: GRPCConnectionHandoff)?

    init(service: FirestoreGRPCService) { self.service = service }

    func handoff() -> GRPCConnectionHandoff {
        if let started { return started.handoff }
        var config = HTTP2ServerTransport.Custom<GRPCConnectionHandoff>.Config.defaults
        config.rpc.maxRequestPayloadSize = FirestoreGRPCLimits.maxRequestBytes
        // A window as large as the largest request, so that a big commit (a batch of 500
        // documents is ~100 KB) arrives without waiting on WINDOW_UPDATE round trips.
        config.http2.targetWindowSize = FirestoreGRPCLimits.maxRequestBytes
        // No limit on concurrent streams, said in SETTINGS as the official emulator says it. Left
        // unset, grpc-swift advertises none while SwiftNIO HTTP/2 still enforces its own 100: a
        // client with 100 listeners open on one connection then starts a call, breaks the limit
        // it was never told, and the whole connection goes (GOAWAY PROTOCOL_ERROR).
        config.http2.maxConcurrentStreams = Int(Int32.max)
        // Any client ping is welcome: policing them (GOAWAY "too many pings") protects a shared
        // server, and only breaks connections of clients probing bandwidth or keeping alive here.
        config.connection.keepalive.clientBehavior.allowWithoutCalls = true
        config.connection.keepalive.clientBehavior.minPingIntervalWithoutCalls = .zero
        // Every flush goes out at once. grpc-swift's default holds a response's bytes for up to
        // 100 µs (on a timer) hoping to write more with them; a local emulator's clients mostly
        // wait on one call at a time, so the delay only adds to each call's latency.
        config.connection.flushCoalescing = nil
        let handoff = GRPCConnectionHandoff()
        let transport = TunedServerTransport(inner: HTTP2ServerTransport.Custom(listenerFactory: handoff, config: config),
                                             liveStreams: FirestoreGRPCRoutes.liveStreams)
        let server = GRPCServer(transport: transport, services: [FirestoreGRPCRoutes(service: service)])
        // Every call's task (grpc-swift's per-connection and per-stream tasks are children of
        // this one, and inherit it) stays on its connection's event loop.
        let task = Task(executorPreference: EventLoopTaskExecutor.singleton) {
            do {
                try await server.serve()
            } catch {
                handoff.fail(error)
                throw error
            }
        }
        started = (server, task, handoff)
        return handoff
    }

    func shutdown() async {
        guard let started else { return }
        // Listen streams end with UNAVAILABLE first; unary calls in flight get a moment to finish.
        service.beginShutdown()
        started.server.beginGracefulShutdown()
        let task = started.task
        let deadline = Task {
            try? await Task.sleep(for: .seconds(1))
            task.cancel()
        }
        _ = await task.result
        deadline.cancel()
    }
}

import DatabaseEngine
import DatabaseModel

/// A REST listen (`Accept: text/event-stream`): the events of one location (or one query) as
/// server-sent events, in production's shapes: `put` `{"path", "data"}` (the first one the whole
/// location at `/`), `patch` for updates, `keep-alive` every 30 s, `cancel` when the rules stop
/// allowing the read, `auth_revoked` when the credential expires; then the stream ends.
final class EventStreamListener: DatabaseListener, Sendable {
    let path: DatabasePath
    let caller: DatabaseCaller
    let query: DatabaseQuery?
    let view: ListenView
    let events: AsyncStream<String>
    let sink: AsyncStream<String>.Continuation

    init(path: DatabasePath, query: DatabaseQuery?, caller: DatabaseCaller) {
        self.path = path
        self.query = query
        self.caller = caller
        view = ListenView(path: path, query: query)
        (events, sink) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .unbounded)
    }

    static func event(_ name: String, _ data: String) -> String { "event: \(name)\ndata: \(data)\n\n" }

    /// The first event: the whole location.
    func start(from root: DatabaseNode) {
        sink.yield(Self.event("put", "{\"path\":\"/\",\"data\":" + NodeWriter().text(view.initial(root)) + "}"))
    }

    func deliver(_ change: DataChange) {
        for update in view.updates(for: change) {
            switch update {
            case .overwrite(let at, let node):
                sink.yield(Self.event("put", "{\"path\":" + JSONText.quoted(path.relative(at).description) + ",\"data\":" + NodeWriter().text(node) + "}"))
            case .merge(let base, let entries):
                var data = "{"
                for (i, (rel, node)) in entries.enumerated() {
                    if i > 0 { data += "," }
                    data += JSONText.quoted(rel.bare) + ":" + NodeWriter().text(node)
                }
                data += "}"
                sink.yield(Self.event("patch", "{\"path\":" + JSONText.quoted(path.relative(base).description) + ",\"data\":" + data + "}"))
            }
        }
    }

    func revoke() {
        sink.yield(Self.event("cancel", "\"Permission denied\""))
        sink.finish()
    }

    /// Ends the stream when the credential expires (`exp`, seconds since 1970).
    func expire() {
        sink.yield(Self.event("auth_revoked", "\"credential is no longer valid\""))
        sink.finish()
    }

    func keepAlive() {
        sink.yield(Self.event("keep-alive", "null"))
    }
}

import FirestoreEngine
import FirestoreJSON
import FirestoreModel
import HearthJSON

/// The Write stream over WebChannel: a ``WriteStream`` fed with the client's `WriteRequest`s;
/// a failed request ends the stream with the error, as the SDK expects (it opens a new one).
enum WebChannelWrite {
    static func serve(_ channel: WebChannelSession, engine: FirestoreEngine, now: @escaping @Sendable () -> Int64) async {
        var stream = WriteStream(engine: engine, identity: channel.identity)
        for await text in channel.inbound {
            do {
                let json: JSON
                do {
                    json = try JSON.parse(Array(text.utf8))
                } catch {
                    throw FirestoreError.invalidArgument("Invalid JSON payload received: \(error).")
                }
                let (name, writes) = try WebChannelCodec.decodeWriteRequest(json, database: channel.database)
                if stream.database == nil {
                    guard let name else { throw FirestoreError.invalidArgument("The first request of a Write stream must name its database.") }
                    let database = try DatabaseID.parse(databaseName: name)
                    guard database == channel.database else {
                        throw FirestoreError.invalidArgument("The Write stream's database \(name) is not the channel's, \(channel.database.name).")
                    }
                    channel.send(WebChannelCodec.encode(stream.open(database)).serialized, now: now())
                    if writes.isEmpty { continue }
                }
                channel.send(WebChannelCodec.encode(try await stream.commit(writes)).serialized, now: now())
            } catch {
                let failure = error as? FirestoreError ?? .internalError("\(error)")
                channel.fail(WebChannelCodec.streamError(failure).serialized, now: now())
                return
            }
        }
    }
}

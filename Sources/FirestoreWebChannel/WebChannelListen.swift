import FirestoreEngine
import FirestoreJSON
import FirestoreListen
import FirestoreModel
import HearthJSON

/// The Listen stream over WebChannel: each `ListenRequest` adds or removes a target of one
/// listen session; each event of the session goes to the client as `ListenResponse`s
/// (``WatchResponse``), as gRPC Listen sends them.
enum WebChannelListen {
    static func serve(_ channel: WebChannelSession, engine: FirestoreEngine, now: @escaping @Sendable () -> Int64) async {
        let session = ListenSession(engine: engine, identity: channel.identity)
        defer { session.close() }
        let database = channel.database
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await event in session.events {
                    let messages = WatchResponse.responses(for: event).map { WebChannelCodec.encode($0, database: database).serialized }
                    channel.send(contentsOf: messages, now: now())
                }
            }
            requests: for await text in channel.inbound {
                let json: JSON
                do {
                    json = try JSON.parse(Array(text.utf8))
                } catch {
                    channel.fail(WebChannelCodec.streamError(.invalidArgument("Invalid JSON payload received: \(error).")).serialized, now: now())
                    break
                }
                do throws(WebChannelCodec.ListenRequestError) {
                    switch try WebChannelCodec.decodeListenRequest(json, database: database) {
                    case .add(let target):
                        do throws(FirestoreError) { try session.add(target) } catch {
                            // An ID in use (or negative) ends the stream, as on the emulator.
                            channel.fail(WebChannelCodec.streamError(error).serialized, now: now())
                            break requests
                        }
                    case .remove(let id): session.remove(id)
                    }
                } catch {
                    if let id = error.targetID {
                        // An ID in use (or negative) ends the stream: a bad target must not
                        // answer for another target's ID.
                        do throws(FirestoreError) { try session.checkTargetID(id) } catch {
                            channel.fail(WebChannelCodec.streamError(error).serialized, now: now())
                            break requests
                        }
                        // As the emulator: the target is added, then removed with the cause.
                        let addition = WatchResponse.targetChange(.add, targetIDs: [id], cause: nil, readTime: nil)
                        channel.send(WebChannelCodec.encode(addition, database: database).serialized, now: now())
                        let removal = WatchResponse.targetChange(.remove, targetIDs: [id], cause: error.error, readTime: nil)
                        channel.send(WebChannelCodec.encode(removal, database: database).serialized, now: now())
                    } else {
                        channel.fail(WebChannelCodec.streamError(error.error).serialized, now: now())
                        break
                    }
                }
            }
            session.close()
        }
    }
}

import FirestoreJSON
package import FirestoreModel
package import HearthJSON

/// What a REST handler answers: a status and a JSON or text body.
package struct RESTReply: Sendable {
    package enum Body: Sendable {
        case json(JSON)
        case text(String)
        case html(String)
    }

    package var status: Int
    package var body: Body

    package static func ok(_ json: JSON) -> RESTReply { RESTReply(status: 200, body: .json(json)) }
    package static func error(_ e: FirestoreError) -> RESTReply {
        RESTReply(status: RESTError.httpStatus(e.code), body: .json(RESTError.body(e)))
    }
}

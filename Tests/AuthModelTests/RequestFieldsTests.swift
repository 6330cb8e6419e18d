import AuthModel
import HearthJSON
import Testing

@Suite("Request bodies")
struct RequestFieldsTests {
    func fields(_ text: String) throws -> RequestFields { try RequestFields(JSON.parse(Array(text.utf8))) }

    @Test("snake_case keys are read as camelCase, numbers as strings and numeric strings as integers")
    func coercions() throws {
        let f = try fields(#"{"grant_type":"refresh_token","valid_since":1611780718,"maxResults":"20","returnSecureToken":true}"#)
        #expect(try f.string("grantType") == "refresh_token")
        #expect(try f.string("validSince") == "1611780718")
        #expect(try f.int("maxResults") == 20)
        #expect(try f.bool("returnSecureToken") == true)
        #expect(try f.string("missing") == nil)
    }

    @Test("a field of the wrong type is INVALID_ARGUMENT with its path", arguments: [
        (#"{"email":{}}"#, "email", "Invalid JSON payload received. /email must be string"),
        (#"{"email":true}"#, "email", "Invalid JSON payload received. /email must be string"),
    ])
    func mismatch(body: String, key: String, message: String) throws {
        let f = try fields(body)
        #expect(throws: AuthError(.invalidArgument, message)) { try f.string(key) }
    }

    @Test("nested paths and enum numbers")
    func nested() throws {
        let f = try fields(#"{"users":[{"email":5},{"email":[]}],"requestType":6}"#)
        let users = try #require(try f.objects("users"))
        #expect(try users[0].string("email") == "5")
        #expect(throws: AuthError(.invalidArgument, "Invalid JSON payload received. /users/1/email must be string")) { try users[1].string("email") }
        #expect(try f.enumeration("requestType", cases: OobCode.RequestType.protoNames) == "EMAIL_SIGNIN")
    }

    @Test("a body that is not an object is refused")
    func notObject() {
        #expect(throws: AuthError.self) { try RequestFields(.array([])) }
    }
}

import AuthModel
import HearthJSON
import Testing

@Suite("Accounts")
struct UserAccountTests {
    @Test("password and phone entries follow the account's fields")
    func derivedProviders() {
        var a = UserAccount(localId: "u", createdAt: 1)
        a.normalizeProviders(upserting: [ProviderUserInfo(providerId: "apple.com", rawId: "s")])
        #expect(a.providers.map(\.providerId) == ["apple.com"])
        a.email = "e@x"
        a.password = PasswordHash.hearth(password: "secret1", salt: [1, 2, 3])
        a.phoneNumber = "+15555550100"
        a.normalizeProviders()
        #expect(a.providers.map(\.providerId) == ["apple.com", "password", "phone"])
        #expect(a.providers[1].rawId == "e@x")
        a.password = nil
        a.phoneNumber = nil
        a.normalizeProviders(deleting: ["apple.com"])
        #expect(a.providers.isEmpty)
    }

    @Test("UserInfo has the Identity Toolkit's fields and units")
    func userInfo() {
        var a = UserAccount(localId: "u", createdAt: 1_700_000_000_123)
        a.lastRefreshAt = 1_700_000_000_123
        a.validSince = 1_700_000_000
        a.disabled = true
        let info = a.userInfo
        #expect(info["createdAt"] == .string("1700000000123"))
        #expect(info["validSince"] == .string("1700000000"))
        #expect(info["lastRefreshAt"] == .string("2023-11-14T22:13:20.123Z"))
        #expect(info["disabled"] == .bool(true))
        #expect(info["providerUserInfo"] == nil)
    }

    @Test("custom claims are checked as the Identity Toolkit checks them", arguments: [
        (#"{"admin":true}"#, nil as String?),
        (#"[1]"#, "INVALID_CLAIMS"),
        (#"{"#, "INVALID_CLAIMS"),
        (#"{"sub":"x"}"#, "FORBIDDEN_CLAIM : sub"),
        (#"{"firebase":{}}"#, "FORBIDDEN_CLAIM : firebase"),
        ("{\"a\":\"" + String(repeating: "x", count: 1000) + "\"}", "CLAIMS_TOO_LARGE"),
    ])
    func claims(text: String, expected: String?) {
        do {
            _ = try AccountValidation.customClaims(serialized: text)
            #expect(expected == nil)
        } catch {
            #expect(error.message == expected)
        }
    }
}

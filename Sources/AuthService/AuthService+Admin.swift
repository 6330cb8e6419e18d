package import AuthModel
import AuthStore
package import HearthJSON

extension AuthService {
    /// `projects/{p}/accounts:batchDelete`: deletes up to 1000 accounts; without `force`, an
    /// enabled account is reported (`NOT_DISABLED`) and kept. Unknown IDs are skipped.
    package func batchDelete(_ body: RequestFields, _ call: AuthCall) throws(AuthError) -> JSON {
        let localIds = try body.strings("localIds") ?? []
        try require((1...1000).contains(localIds.count), "LOCAL_ID_LIST_EXCEEDS_LIMIT")
        let force = try body.bool("force") ?? false
        let errors: [JSON] = try write { s in
            var errors: [JSON] = []
            for (index, localId) in localIds.enumerated() {
                guard let account = try s.account(call.project, localId: localId) else { continue }
                if !account.disabled && !force {
                    errors.append(.object([("index", .number(String(index))), ("localId", .string(localId)),
                                           ("message", .string("NOT_DISABLED : Disable the account before batch deletion."))]))
                } else {
                    try s.deleteAccount(call.project, localId: localId)
                }
            }
            return errors
        }
        return errors.isEmpty ? .object([]) : .object([("errors", .array(errors))])
    }

    /// `GET projects/{p}/accounts:batchGet` (firebase-admin's `list_users`): accounts in
    /// `localId` order, `maxResults` at a time (default 20, at most 1000; -1 for all), the page
    /// token being the last ID of the page.
    package func batchGet(maxResults: String?, pageToken: String?, _ call: AuthCall) throws(AuthError) -> JSON {
        let requested = maxResults.flatMap { Int($0) ?? Double($0).map { Int($0) } } ?? 0
        let limit = requested < 0 ? nil : min(requested == 0 ? 20 : requested, 1000)
        let users = try read { s in try s.accounts(call.project, after: pageToken.flatMap { $0.isEmpty ? nil : $0 }, limit: limit) }
        var response = JSONObjectBuilder()
        response.set("kind", "identitytoolkit#DownloadAccountResponse")
        response["users"] = .array(users.map(\.userInfo))
        if let limit, users.count >= limit, let last = users.last { response.set("nextPageToken", last.localId) }
        return response.json
    }

    static let sortFields = ["SORT_BY_FIELD_UNSPECIFIED", "USER_ID", "NAME", "CREATED_AT", "LAST_LOGIN_AT", "USER_EMAIL"]

    /// `projects/{p}/accounts:query`: accounts filtered by the first `expression` (its
    /// `userId`, else `email`, else `phoneNumber`), sorted (`sortBy`, `order`), paged
    /// (`offset`, `limit`: default and most 500), or only counted (`returnUserInfo: false`).
    /// The official emulator implements neither filters, nor limits, nor other sort fields
    /// (501); Hearth does, as Identity Platform documents them
    /// (cloud.google.com/identity-platform/docs/reference/rest/v1/projects.accounts/query).
    package func queryAccounts(_ body: RequestFields, _ call: AuthCall) throws(AuthError) -> JSON {
        let expression = try body.objects("expression")?.first
        let sortBy = try body.enumeration("sortBy", cases: Self.sortFields) ?? "USER_ID"
        let descending = try body.enumeration("order", cases: ["ORDER_UNSPECIFIED", "ASC", "DESC"]) == "DESC"
        let offset = try body.int("offset") ?? 0, limit = try body.int("limit") ?? 500
        try require(offset >= 0, "INVALID_OFFSET")
        try require((0...500).contains(limit), "INVALID_LIMIT : ((limit must be at most 500))")
        var users = try read { s in try s.accounts(call.project, after: nil, limit: nil) }
        if let expression {
            if let userId = try expression.string("userId") {
                users = users.filter { $0.localId == userId }
            } else if let email = try expression.string("email") {
                users = users.filter { $0.email == AccountValidation.canonicalEmail(email) }
            } else if let phone = try expression.string("phoneNumber") {
                users = users.filter { $0.phoneNumber == phone }
            }
        }
        func key(_ a: UserAccount) -> (String, Int64) {
            switch sortBy {
            case "NAME": (a.displayName ?? "", 0)
            case "CREATED_AT": ("", a.createdAt)
            case "LAST_LOGIN_AT": ("", a.lastLoginAt ?? 0)
            case "USER_EMAIL": (a.email ?? "", 0)
            default: (a.localId, 0)
            }
        }
        users.sort { a, b in
            let (ka, kb) = (key(a), key(b))
            if ka != kb { return descending ? ka > kb : ka < kb }
            return a.localId < b.localId
        }
        let total = users.count
        guard try body.bool("returnUserInfo") != false else {
            return .object([("recordsCount", .string(String(total)))])
        }
        let page = users.dropFirst(Int(offset)).prefix(Int(limit == 0 ? 500 : limit))
        return .object([("recordsCount", .string(String(page.count))), ("userInfo", .array(page.map(\.userInfo)))])
    }
}

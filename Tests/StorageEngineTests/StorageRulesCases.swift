import Foundation
import HearthJSON
import SecurityRules

/// The rulesets the table of storage rules cases uses: the two seed apps' rules as shipped in
/// `rules/`, and small rulesets that pin one feature each.
enum StorageRulesFixtures {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func shipped(_ name: String) -> String {
        (try? String(contentsOf: repository.appendingPathComponent("rules").appendingPathComponent(name), encoding: .utf8)) ?? ""
    }

    static func wrap(_ body: String, version: String = "2") -> String {
        "rules_version = '\(version)';\nservice firebase.storage {\n  match /b/{bucket}/o {\n\(body)\n  }\n}\n"
    }

    static let rulesets: [String: String] = [
        // Seed 002: the bottles app (avatars, bottle media owned through Firestore, chat media).
        "bottles": shipped("storage.rules"),
        // Seed 000: user uploads held to their Firestore registration, public profile pictures.
        "uploads": shipped("user-uploads.storage.rules"),
        "open": wrap("match /{all=**} { allow read, write; }"),
        "closed": wrap("match /{all=**} { allow read, write: if false; }"),
        "size": wrap("match /{all=**} { allow write: if request.resource.size < 1024; allow read; }"),
        "type": wrap("match /img/{f} { allow write: if request.resource.contentType.matches('image/(png|jpeg)'); }"),
        "metadata": wrap("""
            match /docs/{f} {
              allow create: if request.resource.metadata.owner == request.auth.uid;
              allow update: if request.resource.metadata.owner == resource.metadata.owner;
              allow read: if resource.metadata.visibility == 'public' || resource.metadata.owner == request.auth.uid;
            }
            """),
        "createOnly": wrap("match /once/{f} { allow create; allow update, delete: if false; allow get: if resource != null; }"),
        "methods": wrap("""
            match /m/{f} {
              allow get: if true;
              allow list: if false;
              allow create: if request.resource.size > 0;
              allow update: if resource.size < request.resource.size;
              allow delete: if resource.contentType == 'text/plain';
            }
            """),
        "listing": wrap("""
            match /users/{uid}/{rest=**} { allow list: if request.auth.uid == uid; }
            match /public/{rest=**} { allow list; }
            """),
        "listingV1": wrap("match /{all=**} { allow read; }", version: "1"),
        "claims": wrap("""
            match /staff/{f} { allow read, write: if request.auth.token.admin == true; }
            match /verified/{f} { allow read: if request.auth.token.email_verified == true && request.auth.token.email.matches('.*@example[.]com'); }
            """),
        "time": wrap("""
            match /fresh/{f} { allow update: if request.time < resource.updated + duration.value(1, 'h'); allow create; }
            match /stamped/{f} { allow create: if request.resource.timeCreated == request.time || request.resource.size < 10; }
            """),
        "path": wrap("""
            match /{a}/{b}/{c} { allow read: if request.path == /b/$(bucket)/o/$(a)/$(b)/$(c); }
            match /bucketed/{f} { allow read: if bucket == 'demo-app.appspot.com'; }
            """),
        "recursive": wrap("""
            match /tree/{path=**} { allow read: if path[0] == 'open' || path[1] == 'shared'; }
            match /tree/secret/{f} { allow read: if false; }
            """),
        "hashes": wrap("match /h/{f} { allow create: if request.resource.md5Hash == 'kAFQmDzST7DWlj99KOF/cg=='; }"),
        "nulls": wrap("""
            match /n/{f} {
              allow update: if request.resource.cacheControl == null && request.resource.contentLanguage == 'en';
              allow create: if request.resource.contentDisposition == null;
            }
            """),
        "firestoreExists": wrap("""
            match /tenants/{tenant}/{f} {
              allow read: if firestore.exists(/databases/(default)/documents/tenants/$(tenant)/members/$(request.auth.uid));
              allow write: if firestore.get(/databases/(default)/documents/tenants/$(tenant)).data.plan == 'pro'
                && request.resource.size < firestore.get(/databases/(default)/documents/tenants/$(tenant)).data.maxBytes;
            }
            """),
        "errors": wrap("""
            match /e/{f} {
              allow read: if resource.metadata.missing == 'x' || true;
              allow create: if request.resource.metadata.flag == 'on';
            }
            """),
    ]
}

/// Firestore documents the rules read (`firestore.get()`), as rules see documents.
enum StorageRulesFirestore {
    static func document(_ path: String, _ data: [String: RuleValue]) -> (RulePath, RuleValue) {
        let segments = ["databases", "(default)", "documents"] + path.split(separator: "/").map(String.init)
        return (RulePath(segments), .map(["data": .map(data), "id": .string(segments.last!), "__name__": .path(RulePath(segments))]))
    }

    static let documents: [RulePath: RuleValue] = Dictionary(uniqueKeysWithValues: [
        document("bottles/b1", ["ownerId": .string("alice"), "participants": .list([.string("alice"), .string("carol")])]),
        document("bottles/b2", ["ownerId": .string("dave"), "participants": .list([.string("dave")])]),
        document("files/f1", ["ownerUid": .string("alice"), "status": .string("pending"), "contentType": .string("image/jpeg")]),
        document("files/f2", ["ownerUid": .string("alice"), "status": .string("ready"), "contentType": .string("image/jpeg")]),
        document("files/f3", ["ownerUid": .string("bob"), "status": .string("pending"), "contentType": .string("application/pdf")]),
        document("files/f4", ["ownerUid": .string("alice"), "status": .string("pending"), "contentType": .string("application/pdf")]),
        document("tenants/t1", ["plan": .string("pro"), "maxBytes": .int(1000)]),
        document("tenants/t2", ["plan": .string("free"), "maxBytes": .int(1000)]),
        document("tenants/t1/members/alice", ["role": .string("member")]),
    ])
}

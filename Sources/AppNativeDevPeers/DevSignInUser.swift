/// A user offered on the dev identity provider's sign-in page.
public struct DevSignInUser: Sendable {
    /// The value the sign-in page posts for this user (`user=…`), stable for tests.
    public let id: String
    public let user: DevIdentityProvider.User
    /// The tenant the user's ID token names in `tid`.
    public let tenantID: String

    public init(id: String, user: DevIdentityProvider.User, tenantID: String) {
        self.id = id
        self.user = user
        self.tenantID = tenantID
    }

    /// The group the dev user Sam belongs to (the `groups` claim of his ID token).
    public static let approversGroupID = "9a9a9a9a-0000-4000-8000-0000000000a9"

    /// A tenant that is not the dev tenant, for the wrong-tenant refusal.
    public static let otherTenantID = "e0e0e0e0-0000-4000-8000-0000000000e2"

    /// The dev users: the default dev user, a second user of the dev tenant, and one of another
    /// tenant, whom a gateway configured for the dev tenant must refuse.
    public static let all: [DevSignInUser] = {
        let zoe = DevIdentityProvider.User()
        var sam = DevIdentityProvider.User()
        sam.objectID = "22222222-3333-4444-8555-666666666666"
        sam.email = "sam.doe@example.com"
        sam.name = "Sam Doe"
        sam.roles = ["approver"]
        sam.groups = [DevSignInUser.approversGroupID]
        var eve = DevIdentityProvider.User()
        eve.objectID = "33333333-4444-4555-8666-777777777777"
        eve.email = "eve@other-tenant.example.net"
        eve.name = "Eve Other-Tenant"
        return [
            DevSignInUser(id: "zoe", user: zoe, tenantID: DevIdentityProvider.tenantID),
            DevSignInUser(id: "sam", user: sam, tenantID: DevIdentityProvider.tenantID),
            DevSignInUser(id: "eve", user: eve, tenantID: otherTenantID),
        ]
    }()
}

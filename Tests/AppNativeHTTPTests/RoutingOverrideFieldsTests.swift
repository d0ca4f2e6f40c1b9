import AppNativeHTTP
import Testing

/// `RoutingOverrideFields`: the names that re-route a request or change its method.
@Suite struct RoutingOverrideFieldsTests {
    @Test(arguments: [
        "X-Original-URL", "x-original-url", "X_ORIGINAL_URL", "X-Rewrite-URL", "x_rewrite_url",
        "X-HTTP-Method-Override", "x-http-method-override", "X_HTTP_Method_Override", "X-HTTP-Method", "x-http-method",
        "X-Method-Override", "X_METHOD_OVERRIDE",
    ])
    func matches(name: String) {
        #expect(RoutingOverrideFields.patterns.matches(name))
        #expect(FieldNamePatterns(RoutingOverrideFields.removedNames(keepingMethodOverride: false)).matches(name))
    }

    /// `X-Original-URI` is what nginx sends to a forward-auth endpoint; the others are other fields.
    @Test(arguments: ["X-Original-URI", "X-Original-Method", "X-Forwarded-Uri", "X-Forwarded-Method", "X-Original", "X-HTTP-Methods", "X-Method", "X-Rewrite"])
    func doesNotMatch(name: String) {
        #expect(!RoutingOverrideFields.patterns.matches(name))
    }

    @Test func keepingMethodOverrideStillRemovesTheRoutingOnes() {
        let kept = FieldNamePatterns(RoutingOverrideFields.removedNames(keepingMethodOverride: true))
        #expect(kept.matches("X-Original-URL"))
        #expect(kept.matches("x-rewrite-url"))
        for name in RoutingOverrideFields.methodOverrideNames { #expect(!kept.matches(name), "\(name)") }
    }
}

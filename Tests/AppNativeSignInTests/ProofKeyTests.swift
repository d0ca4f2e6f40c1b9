import AppNativeCore
import AppNativeSignIn
import Testing

@Suite("Sign-in PKCE")
struct ProofKeyTests {
    /// RFC 7636 Appendix B.
    @Test func rfc7636AppendixB() {
        let key = ProofKey(verifier: Secret("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"))
        #expect(key.challenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        #expect(ProofKey.challengeMethod == "S256")
    }

    @Test func generatedVerifiersAreLongUnreservedAndFresh() {
        var seen = Set<String>()
        for _ in 0..<200 {
            let verifier = ProofKey.generate().verifier.revealed
            #expect(verifier.utf8.count >= 43)
            #expect(ProofKey.isValidVerifier(verifier))
            seen.insert(verifier)
        }
        #expect(seen.count == 200)
    }

    @Test func verifierRules() {
        #expect(!ProofKey.isValidVerifier(String(repeating: "a", count: 42)))
        #expect(ProofKey.isValidVerifier(String(repeating: "a", count: 43)))
        #expect(ProofKey.isValidVerifier(String(repeating: "~", count: 128)))
        #expect(!ProofKey.isValidVerifier(String(repeating: "a", count: 129)))
        #expect(!ProofKey.isValidVerifier(String(repeating: "a", count: 42) + "+"))
    }

    @Test func verifierNeverPrints() {
        let key = ProofKey.generate()
        #expect(!"\(key)".contains(key.verifier.revealed))
    }
}

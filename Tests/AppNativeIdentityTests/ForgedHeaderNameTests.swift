import AppNativeIdentity
import AppNativeProxy
import Foundation
import Testing

/// The forged-identity-header match on its own: every listed name in every spelling a client or
/// an upstream stack could use, and the ordinary fields that must pass.
@Suite("Forged identity header names")
struct ForgedHeaderNameTests {
    @Test("every listed name, any case, `_` for `-`, and extended with `-…`, is caught")
    func listedNamesAreCaught() {
        for name in IdentityHeaders.forgedNames {
            let exact = name.hasSuffix("-") ? name + "Anything" : name
            for spelling in [exact, exact.lowercased(), exact.uppercased(), exact.replacingOccurrences(of: "-", with: "_")] {
                #expect(IdentityHeaders.isIdentityHeader(spelling), "\(spelling)")
                #expect(IdentityHeaders.isIdentityHeader(spelling + "-Id"), "\(spelling)-Id")
            }
        }
    }

    @Test("no forwarding field is an identity field (the proxy removes forged ones before adding those)")
    func forwardingNamesAreNotIdentityNames() {
        for name in ForwardingHeaders.names {
            #expect(!IdentityHeaders.isIdentityHeader(name), "\(name)")
        }
    }

    @Test("ordinary fields and near misses pass")
    func ordinaryFieldsPass() {
        let innocent = [
            "Host", "User-Agent", "Accept", "Accept-Encoding", "Connection", "Content-Type", "Content-Length",
            "Cookie", "Authorization", "X-Request-Id", "X-Forwarded-For", "X-Forwarded-Proto", "X-Forwarded-Host",
            "X-Username", "X-Users", "X-Emailer", "Remote-Address", "X-AppNative", "X-Remote-Username",
            "X", "", "-", "Auth-Users", "X-Ms-Client", "Cf-Access", "X-Amzn-Trace-Id",
        ]
        for name in innocent {
            #expect(!IdentityHeaders.isIdentityHeader(name), "\(name)")
        }
    }
}

@testable import AppNativeClient
import Testing

/// The origin memo must answer exactly as `URLPolicy` does for every URL, whatever came before
/// it: a hit is only a shortcut to the same verdict.
@Suite("OriginMemo")
struct OriginMemoTests {
    static let urls: [(String, Bool)] = [
        ("https://api.push.apple.com/3/device/ab12", false),
        ("https://api.push.apple.com/3/device/cd34?x=1", false),
        ("https://api.push.apple.com:443/3/device/ab12", false),
        ("https://api.push.apple.com.evil.example/3/device/ab12", false),
        ("https://api.push.apple.com@evil.example/3/device/ab12", false),
        ("https://api.push.apple.com\\@evil.example/3/device/ab12", false),
        ("https://api.push.apple.com/3/device/a b", false),
        ("https://api.push.apple.com/3/device/a\"b", false),
        ("https://api.push.apple.com", false),
        ("https://api.push.apple.com/", false),
        ("http://api.push.apple.com/3/device/ab12", false),
        ("http://127.0.0.1:8443/3/device/ab12", true),
        ("http://127.0.0.1:8443/3/device/ab12", false),
        ("http://127.0.0.1:8443/3/device/ef56", true),
        ("http://127.0.0.1:8443@10.0.0.1/3/device/ab12", true),
        ("http://[::1]:9000/3/device/ab12", true),
        ("http://[::1]:9000/3/device/ab12", false),
        ("https://[2001:db8::1]/3/device/ab12", false),
        ("HTTPS://API.push.apple.com/3/device/ab12", false),
        ("https://api.push.apple.com/3/device/ab12", false),
    ]

    /// `.success(target)` or the error code, as `URLPolicy` gives it.
    static func policy(_ url: String, _ cleartext: Bool) -> String {
        do throws(ClientError) {
            let target = try URLPolicy.outboundTarget(url: url, allowsCleartextOnLoopback: cleartext)
            return "\(target.isCleartext) \(target.host) \(target.port)"
        } catch {
            return "error \(error.code)"
        }
    }

    static func memo(_ memo: OriginMemo, _ url: String, _ cleartext: Bool) -> String {
        do throws(ClientError) {
            let target = try memo.target(for: url, allowsCleartextOnLoopback: cleartext)
            return "\(target.isCleartext) \(target.host) \(target.port)"
        } catch {
            return "error \(error.code)"
        }
    }

    @Test("every URL after every other URL gets URLPolicy's verdict")
    func agreesWithThePolicyInEveryOrder() {
        for (first, firstCleartext) in Self.urls {
            for (url, cleartext) in Self.urls {
                let memo = OriginMemo()
                _ = Self.memo(memo, first, firstCleartext)
                #expect(Self.memo(memo, url, cleartext) == Self.policy(url, cleartext), "\(url) after \(first)")
            }
        }
    }

    @Test("only plain scheme://authority origins followed by a path are remembered")
    func plainOrigins() {
        #expect(OriginMemo.plainOrigin(of: "https://api.push.apple.com/3/device/x") == "https://api.push.apple.com")
        #expect(OriginMemo.plainOrigin(of: "http://[::1]:9000/x") == "http://[::1]:9000")
        #expect(OriginMemo.plainOrigin(of: "https://api.push.apple.com") == nil)
        #expect(OriginMemo.plainOrigin(of: "https://api.push.apple.com?x") == nil)
        #expect(OriginMemo.plainOrigin(of: "https://user@host/x") == nil)
        #expect(OriginMemo.plainOrigin(of: "https://host%2e/x") == nil)
        #expect(OriginMemo.plainOrigin(of: "HTTPS://host/x") == nil)
        #expect(OriginMemo.isUnder("https://host", "https://host/a/b?c=d"))
        #expect(!OriginMemo.isUnder("https://host", "https://host.evil/a"))
        #expect(!OriginMemo.isUnder("https://host", "https://host/a b"))
        #expect(!OriginMemo.isUnder("https://host", "https://host"))
    }
}

import AppNativeHTTP
import AppNativeSignIn
import Testing

@Suite("Sign-in navigation classifier")
struct NavigationClassifierTests {
    let classifier = NavigationClassifier(isEnabled: true)
    static let chromeAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"

    @Test func topLevelNavigationIsRedirected() {
        let headers: HTTPHeaders = ["Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document", "Accept": Self.chromeAccept]
        #expect(classifier.isSignInNavigation(method: "GET", headers: headers))
        #expect(classifier.isSignInNavigation(method: "HEAD", headers: headers))
    }

    @Test func offMeansNeverRedirected() {
        let headers: HTTPHeaders = ["Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document", "Accept": Self.chromeAccept]
        #expect(!NavigationClassifier(isEnabled: false).isSignInNavigation(method: "GET", headers: headers))
        #expect(!NavigationClassifier(isEnabled: false).isSignInNavigation(method: "GET", headers: ["Accept": "text/html"]))
    }

    @Test(arguments: [
        ("cors", "empty"), ("same-origin", "empty"), ("no-cors", "image"), ("no-cors", "script"), ("cors", "style"),
        ("navigate", "iframe"), ("navigate", "frame"), ("navigate", "embed"), ("websocket", "websocket"), ("cors", "document"),
    ])
    func fetchesAndSubresourcesAreNot(mode: String, dest: String) {
        let headers: HTTPHeaders = ["Sec-Fetch-Mode": mode, "Sec-Fetch-Dest": dest, "Accept": Self.chromeAccept]
        #expect(!classifier.isSignInNavigation(method: "GET", headers: headers))
    }

    @Test func navigationWithoutDestinationIsNot() {
        #expect(!classifier.isSignInNavigation(method: "GET", headers: ["Sec-Fetch-Mode": "navigate", "Accept": "text/html"]))
    }

    @Test func authorizationHeaderIsNeverRedirected() {
        let headers: HTTPHeaders = [
            "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document", "Accept": "text/html", "Authorization": "Bearer x",
        ]
        #expect(!classifier.isSignInNavigation(method: "GET", headers: headers))
        #expect(!classifier.isSignInNavigation(method: "GET", headers: ["Accept": "text/html", "Authorization": "Basic eA=="]))
    }

    @Test func eventStreamAndWebSocketAreNot() {
        #expect(!classifier.isSignInNavigation(method: "GET", headers: ["Accept": "text/event-stream"]))
        #expect(!classifier.isSignInNavigation(method: "GET", headers: ["Accept": "text/html", "Upgrade": "websocket", "Connection": "Upgrade"]))
    }

    @Test(arguments: ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"])
    func onlyGetAndHeadAreRedirected(method: String) {
        let headers: HTTPHeaders = ["Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document", "Accept": Self.chromeAccept]
        #expect(!classifier.isSignInNavigation(method: method, headers: headers))
    }

    @Test(arguments: [
        ("text/html", true), (chromeAccept, true), ("text/html;q=0.5, application/json;q=0.4", true),
        ("*/*", false), ("application/json", false), ("application/json, text/html;q=0.9", false),
        ("text/html;q=0", false), ("text/html;q=abc", false), ("", false), ("text/*", false),
        ("TEXT/HTML", true), (" text/html ; q=1.0", true),
    ])
    func withoutFetchMetadataAcceptDecides(accept: String, expected: Bool) {
        #expect(classifier.isSignInNavigation(method: "GET", headers: ["Accept": accept]) == expected)
    }

    @Test func noAcceptIsNot() {
        #expect(!classifier.isSignInNavigation(method: "GET", headers: HTTPHeaders()))
    }

    @Test func fetchDestWithoutModeIsNot() {
        #expect(!classifier.isSignInNavigation(method: "GET", headers: ["Sec-Fetch-Dest": "document", "Accept": "text/html"]))
    }
}

/// The small HTML pages the sign-in ends on when it does not end signed in: a title, one plain
/// sentence and a link. Nothing from the request, the provider or the token is written into them.
public enum SignInPage: Sendable {
    /// The page for `failure`, with a "Sign in again" link to `loginPath`.
    public static func failure(_ failure: SignInFailure, loginPath: String) -> [UInt8] {
        document(
            title: failure.title,
            sentence: failure.explanation,
            link: (href: loginPath, text: "Sign in again"),
            reason: failure.reasonCode
        )
    }

    /// The page after a local sign-out.
    public static func signedOut(loginPath: String) -> [UInt8] {
        document(title: "Signed out", sentence: "You are signed out.", link: (href: loginPath, text: "Sign in again"), reason: nil)
    }

    /// Fields for every page: not cached, not framed, no script, no referrer leaking the callback's query.
    public static let headers: [(String, String)] = [
        ("Content-Type", "text/html; charset=utf-8"),
        ("Cache-Control", "no-store"),
        ("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'"),
        ("X-Frame-Options", "DENY"),
        ("Referrer-Policy", "no-referrer"),
    ]

    static func document(title: String, sentence: String, link: (href: String, text: String), reason: String?) -> [UInt8] {
        let code = reason.map { "<p class=\"code\">Reason: \(HTMLText.escaped($0))</p>\n" } ?? ""
        let html = """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(HTMLText.escaped(title))</title>
            <style>
            body { font-family: system-ui, sans-serif; max-width: 32rem; margin: 4rem auto; padding: 0 1rem; color: #222; }
            h1 { font-size: 1.4rem; }
            a.button { display: inline-block; margin-top: 1rem; padding: .5rem 1rem; background: #0b5cad; color: #fff; border-radius: 4px; text-decoration: none; }
            .code { color: #777; font-size: .8rem; margin-top: 2rem; }
            </style>
            </head>
            <body>
            <h1>\(HTMLText.escaped(title))</h1>
            <p>\(HTMLText.escaped(sentence))</p>
            <a class="button" href="\(HTMLText.escaped(link.href))">\(HTMLText.escaped(link.text))</a>
            \(code)</body>
            </html>

            """
        return Array(html.utf8)
    }
}

extension SignInPage {
    /// A page that moves on to `returnPath` at once (a same-site navigation of our own): used
    /// when the session cookie is `SameSite=Strict`.
    public static func continuing(to returnPath: ReturnPath) -> [UInt8] {
        let href = HTMLText.escaped(returnPath.value)
        let html = """
            <!doctype html>
            <html lang="en">
            <head><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=\(href)"><title>Signed in</title></head>
            <body><p>Signed in. <a href="\(href)">Continue</a></p></body>
            </html>

            """
        return Array(html.utf8)
    }
}

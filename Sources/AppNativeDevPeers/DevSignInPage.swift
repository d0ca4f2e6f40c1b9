import AppNativeSignIn

/// The HTML pages of the dev identity provider: the user list of the authorize endpoint, an error
/// page for requests that cannot be sent back, and the signed-out page.
enum DevSignInPage {
    /// The sign-in page: one button per dev user, each posting the authorization request back
    /// with the chosen `user`; a cancel button answers `access_denied`.
    static func userChoice(request: [(name: String, value: String)], users: [DevSignInUser], action: String) -> String {
        var hidden = ""
        for (name, value) in request {
            hidden += "<input type=\"hidden\" name=\"\(HTMLText.escaped(name))\" value=\"\(HTMLText.escaped(value))\">\n"
        }
        var buttons = ""
        for user in users {
            let tenantNote = user.tenantID == DevIdentityProvider.tenantID ? "" : " (another tenant)"
            buttons += """
                <button type="submit" name="user" value="\(HTMLText.escaped(user.id))" id="user-\(HTMLText.escaped(user.id))" data-user="\(HTMLText.escaped(user.id))">\
                <strong>\(HTMLText.escaped(user.user.name))</strong> <span>\(HTMLText.escaped(user.user.email))\(tenantNote)</span></button>

                """
        }
        return page(
            title: "Sign in — dev identity provider",
            body: """
                <h1>Sign in</h1>
                <p>Dev identity provider (DEV ONLY). Choose who you are:</p>
                <form method="post" action="\(HTMLText.escaped(action))">
                \(hidden)\(buttons)<button type="submit" name="cancel" value="1" id="cancel">Cancel</button>
                </form>
                """
        )
    }

    /// A refusal shown to the person, for requests whose redirect URI cannot be trusted (RFC 6749 §4.1.2.1).
    static func error(_ message: String) -> String {
        page(title: "Sign-in error — dev identity provider", body: "<h1>Sign-in error</h1>\n<p>\(HTMLText.escaped(message))</p>")
    }

    static let signedOut = page(
        title: "Signed out — dev identity provider",
        body: "<h1>Signed out</h1>\n<p>You are signed out of the dev identity provider.</p>"
    )

    private static func page(title: String, body: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>\(HTMLText.escaped(title))</title>
        <style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto}button{display:block;width:100%;margin:.5rem 0;padding:.75rem;text-align:left}</style>
        </head><body>
        \(body)
        </body></html>

        """
    }
}

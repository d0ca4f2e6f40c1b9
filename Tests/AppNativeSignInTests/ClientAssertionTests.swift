import AppNativeAuth
import AppNativeClient
import AppNativeCore
import AppNativeCrypto
import AppNativeHTTP
import AppNativeJSON
import AppNativeSignIn
import Foundation
import Testing

@Suite("Client credentials")
struct ClientAssertionTests {
    static let endpoint = "https://login.microsoftonline.com/d0d0d0d0-0000-4000-8000-00000000de01/oauth2/v2.0/token"
    static let clientID = "11111111-aaaa-4bbb-8ccc-222222222222"
    static let now = 1_800_000_000.0

    static func redemption() -> CodeRedemption {
        CodeRedemption(code: Secret("the-code"), codeVerifier: Secret("v" + String(repeating: "x", count: 42)), redirectURI: "https://app.example.com/.auth/callback")
    }

    static func pairs(_ body: [UInt8]) -> [String: String] {
        var out: [String: String] = [:]
        for (name, value) in FormURLEncoding.parse(body) { out[name] = value }
        return out
    }

    /// The body a client with `credential` sends, captured by a fake transport.
    static func sentBody(_ credential: ClientCredential, scope: String? = nil) async throws -> [String: String] {
        let fetcher = CannedFetcher(body: #"{"id_token":"a.b.c"}"#)
        let client = try TokenEndpointClient(
            tokenEndpoint: endpoint, clientID: clientID, credential: credential, scope: scope, client: fetcher,
            timeSource: FixedTime(wallSeconds: now))
        _ = try await client.redeem(redemption())
        let request = try #require(fetcher.requests.first)
        #expect(request.method == "POST")
        #expect(request.headers.contains { $0.name == "Content-Type" && $0.value == "application/x-www-form-urlencoded" })
        #expect(!request.followsRedirects)
        #expect(request.proxyURL == nil)
        return pairs(try #require(request.body))
    }

    @Test func secretTravelsInTheBody() async throws {
        let body = try await Self.sentBody(.secret(Secret("s3cr3t+/=")), scope: "openid profile email")
        #expect(body["grant_type"] == "authorization_code")
        #expect(body["code"] == "the-code")
        #expect(body["redirect_uri"] == "https://app.example.com/.auth/callback")
        #expect(body["code_verifier"] == Self.redemption().codeVerifier.revealed)
        #expect(body["client_id"] == Self.clientID)
        #expect(body["client_secret"] == "s3cr3t+/=")
        #expect(body["scope"] == "openid profile email")
        #expect(body["client_assertion"] == nil)
    }

    @Test func certificateAssertionIsSignedAndShapedAsEntraDocuments() async throws {
        let files = try TestClientCertificate.make()
        defer { files.remove() }
        let credential = try ClientCredential.certificate(certificateFile: files.certificateFile, privateKeyFile: files.keyFile)
        let first = try await Self.sentBody(credential)
        let second = try await Self.sentBody(credential)
        #expect(first["client_secret"] == nil)
        #expect(first["scope"] == nil)
        #expect(first["client_assertion_type"] == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
        let assertion = try #require(first["client_assertion"])

        // The signature verifies with the certificate's public key through the gateway's own verifier.
        let certificate = try X509Certificate(pem: String(contentsOfFile: files.certificateFile, encoding: .utf8))
        let publicKey = try #require(certificate.rsaPublicKey)
        let policy = JWTPolicy(
            algorithm: .rs256, issuers: [Self.clientID], audiences: [Self.endpoint], requiredClaims: ["sub", "jti", "nbf", "iat"],
            leeway: .seconds(0), maxLifetime: .seconds(600), requiresKeyID: false)
        let token = try UnverifiedJWT(assertion, policy: policy)
        let claims = try token.verify(with: .rsa(publicKey), policy: policy, now: Self.now)
        #expect(claims.string("sub") == Self.clientID)
        #expect(claims.string("iss") == Self.clientID)
        #expect(claims.string("aud") == Self.endpoint)
        #expect(claims["nbf"]?.numberValue == claims["iat"]?.numberValue)
        #expect(claims["iat"]?.numberValue?.description == "1800000000")
        #expect(claims["exp"]?.numberValue?.description == "1800000300")
        let jti = try #require(claims.string("jti"))
        #expect(jti.count == 36)

        // Header: RS256, typ JWT, no kid, both thumbprints of the certificate's DER.
        #expect(token.header["alg"]?.stringValue == "RS256")
        #expect(token.header["typ"]?.stringValue == "JWT")
        #expect(token.keyID == nil)
        #expect(token.header["x5t"]?.stringValue == Base64URL.encode(try files.fingerprint("sha1")))
        #expect(token.header["x5t#S256"]?.stringValue == Base64URL.encode(try files.fingerprint("sha256")))

        // Each redemption gets a fresh assertion.
        let secondToken = try UnverifiedJWT(try #require(second["client_assertion"]), policy: policy)
        let secondClaims = try secondToken.verify(with: .rsa(publicKey), policy: policy, now: Self.now)
        #expect(secondClaims.string("jti") != jti)
    }

    @Test func certificateAndKeyMustBelongTogether() throws {
        let one = try TestClientCertificate.make()
        let other = try TestClientCertificate.make()
        defer {
            one.remove()
            other.remove()
        }
        #expect(throws: SignInProviderError.credential(reason: "client key does not belong to the client certificate")) {
            try ClientCredential.certificate(certificateFile: one.certificateFile, privateKeyFile: other.keyFile)
        }
        #expect(throws: SignInProviderError.credential(reason: "client certificate file cannot be opened")) {
            try ClientCredential.certificate(certificateFile: one.directory + "/missing.pem", privateKeyFile: one.keyFile)
        }
        // Key and certificate swapped: each file is checked for what it must hold.
        do {
            _ = try ClientCredential.certificate(certificateFile: one.keyFile, privateKeyFile: one.certificateFile)
            Issue.record("swapped files accepted")
        } catch {
            guard case .credential(let reason) = error else { throw error }
            #expect(reason.hasPrefix("client certificate file:"))
            #expect(!reason.contains("MII"), "no PEM content in the reason")
        }
    }

    @Test func certificateFilesAreReadStrictly() throws {
        let files = try TestClientCertificate.make()
        defer { files.remove() }
        let keyPEM = try String(contentsOfFile: files.keyFile, encoding: .utf8)
        #expect(throws: CryptoError(.unsupportedKey, "")) { try X509Certificate(pem: keyPEM) }
        #expect(throws: CryptoError(.invalidKey, "")) {
            try X509Certificate(pem: "-----BEGIN CERTIFICATE-----\nAAECAwQF\n-----END CERTIFICATE-----\n")
        }
        let certificatePEM = try String(contentsOfFile: files.certificateFile, encoding: .utf8)
        #expect(throws: CryptoError(.invalidPEM, "")) { try X509Certificate(pem: certificatePEM + certificatePEM) }

        // The committed TLS test certificate holds a P-256 key: no RSA key, so no client credential.
        let ecPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("keys/test/localhost.pem").path
        let ecCertificate = try X509Certificate(pem: String(contentsOfFile: ecPath, encoding: .utf8))
        #expect(ecCertificate.rsaPublicKey == nil)
        #expect(throws: SignInProviderError.credential(reason: "client certificate does not hold an acceptable RSA public key")) {
            try CertificateCredential(certificate: ecCertificate, privateKey: try RSAPrivateKey(pem: keyPEM))
        }
    }

    @Test func federatedTokenFileIsReadOnEveryRedemption() async throws {
        let directory = NSTemporaryDirectory() + "appnative-federated-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/azure-identity-token"
        try "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJmaXJzdCJ9.c2lnMQ\n".write(toFile: path, atomically: true, encoding: .utf8)
        let first = try await Self.sentBody(.federatedTokenFile(path: path))
        #expect(first["client_assertion_type"] == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
        #expect(first["client_assertion"] == "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJmaXJzdCJ9.c2lnMQ")
        #expect(first["client_secret"] == nil)
        // The kubelet rotates the file by replacing it; the next redemption sends the new token.
        try "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzZWNvbmQifQ.c2lnMg".write(toFile: path, atomically: true, encoding: .utf8)
        let second = try await Self.sentBody(.federatedTokenFile(path: path))
        #expect(second["client_assertion"] == "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzZWNvbmQifQ.c2lnMg")
    }

    @Test func unusableFederatedTokenFileFailsBeforeAnyRequest() async throws {
        let directory = NSTemporaryDirectory() + "appnative-federated-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cases: [(content: String?, reason: String)] = [
            (nil, "federated token file cannot be opened"),
            ("\n", "federated token file is empty"),
            ("not a jwt", "federated token file does not hold a JWT"),
            ("a.b", "federated token file does not hold a JWT"),
            (String(repeating: "a", count: 70 * 1024), "federated token file is larger than 65536 bytes"),
        ]
        for (index, entry) in cases.enumerated() {
            let path = directory + "/token-\(index)"
            if let content = entry.content { try content.write(toFile: path, atomically: true, encoding: .utf8) }
            let fetcher = CannedFetcher(body: #"{"id_token":"a.b.c"}"#)
            let client = try TokenEndpointClient(
                tokenEndpoint: Self.endpoint, clientID: Self.clientID, credential: .federatedTokenFile(path: path), client: fetcher)
            await #expect(throws: SignInProviderError.credential(reason: entry.reason)) { try await client.redeem(Self.redemption()) }
            #expect(fetcher.requests.isEmpty)
        }
    }
}

/// A clock standing still at `wallSeconds`.
struct FixedTime: TimeSource {
    let wallSeconds: Double
    var monotonic: Duration { .seconds(0) }
    func sleep(for duration: Duration) async throws {}
}

@Suite("Client credential settings")
struct ClientCredentialSettingsTests {
    static func problem(_ environment: [String: String]) -> ClientCredential.SettingError? {
        do {
            _ = try ClientCredential.fromEnvironment(environment)
            return nil
        } catch {
            return error
        }
    }

    @Test func eachCredentialIsRead() throws {
        #expect(try ClientCredential.fromEnvironment([:]) == nil)
        #expect(try ClientCredential.fromEnvironment(["ENTRA_CLIENT_SECRET": "  "]) == nil)
        guard case .secret(let secret) = try ClientCredential.fromEnvironment(["ENTRA_CLIENT_SECRET": "abc~def"]) else {
            Issue.record("no secret")
            return
        }
        #expect(secret.revealed == "abc~def")
        guard case .federatedTokenFile(let path) = try ClientCredential.fromEnvironment(["AZURE_FEDERATED_TOKEN_FILE": "/var/run/token"])
        else {
            Issue.record("no token file")
            return
        }
        #expect(path == "/var/run/token")
        let files = try TestClientCertificate.make()
        defer { files.remove() }
        let certificate = try ClientCredential.fromEnvironment([
            "ENTRA_CLIENT_CERTIFICATE_FILE": files.certificateFile, "ENTRA_CLIENT_KEY_FILE": files.keyFile,
        ])
        guard case .certificate = certificate else {
            Issue.record("no certificate")
            return
        }
    }

    @Test func conflictsAndHalvesAreNamed() throws {
        #expect(Self.problem(["ENTRA_CLIENT_SECRET": "s", "AZURE_FEDERATED_TOKEN_FILE": "/t"])?.message.hasPrefix("set one client credential") == true)
        #expect(Self.problem(["ENTRA_CLIENT_KEY_FILE": "/k"])?.variable == "ENTRA_CLIENT_CERTIFICATE_FILE")
        #expect(Self.problem(["ENTRA_CLIENT_CERTIFICATE_FILE": "/c"])?.variable == "ENTRA_CLIENT_KEY_FILE")
        #expect(Self.problem(["ENTRA_CLIENT_SECRET": "secret\n"]) == ClientCredential.SettingError(
            variable: "ENTRA_CLIENT_SECRET", message: "must not begin or end with whitespace"))
        let one = try TestClientCertificate.make()
        let other = try TestClientCertificate.make()
        defer {
            one.remove()
            other.remove()
        }
        let mismatch = Self.problem(["ENTRA_CLIENT_CERTIFICATE_FILE": one.certificateFile, "ENTRA_CLIENT_KEY_FILE": other.keyFile])
        #expect(mismatch == ClientCredential.SettingError(variable: "ENTRA_CLIENT_KEY_FILE", message: "client key does not belong to the client certificate"))
        let missing = Self.problem(["ENTRA_CLIENT_CERTIFICATE_FILE": one.directory + "/none.pem", "ENTRA_CLIENT_KEY_FILE": one.keyFile])
        #expect(missing?.variable == "ENTRA_CLIENT_CERTIFICATE_FILE")
    }
}

import AppNative
import Dispatch
import Glibc

// No Foundation: valgrind 3.19 cannot load its ICU library, and `callgrind` is how the
// instructions per call of each case are counted (docs/benchmarks.md).

func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }

/// `value` rounded to a whole number, as `%.0f` would print it.
func whole(_ value: Double) -> String { value.isFinite ? String(Int64(value.rounded())) : "nan" }

// Measures, on one core: uncached RS256 verifications/s (the RSA verify plus everything around it),
// cached token verification and session-cookie verification in ns per call.
// Prints `key value` lines that Benchmarks/auth.sh turns into ratios.

struct FixedTime: TimeSource {
    let wallSeconds: Double
    var monotonic: Duration { .seconds(1000) }
    // A real sleep: the JWKS reload races its timeout against this, and an instant timeout wins.
    func sleep(for duration: Duration) async throws { try await Task.sleep(for: duration) }
}

struct StaticFetcher: JWKSFetching {
    let document: String
    func fetchDocument() async throws -> [UInt8] { Array(document.utf8) }
}

/// This thread's CPU time in ns. `openssl speed` divides by CPU (user) time too, unless given
/// `-elapsed`, so on a shared machine both sides of the ratio exclude time spent descheduled.
func threadCPUNanoseconds() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
    return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}

/// `AUTHBENCH_ONLY=<label>` runs one case alone, for `perf record` (the other cases report 0).
let onlyCase = environment("AUTHBENCH_ONLY")
/// `AUTHBENCH_CALLS=<n>` runs each case exactly n times, untimed: `perf stat -e instructions:u` at two
/// values of n gives the instructions per call, which unlike time does not drift with the machine.
let fixedCalls = environment("AUTHBENCH_CALLS").flatMap { Int($0) }

func measure(_ label: String, seconds: Double, _ body: () -> Void) -> (calls: Int, nsPerCall: Double) {
    if let onlyCase, onlyCase != label { return (0, .infinity) }
    if let fixedCalls {
        for _ in 0..<fixedCalls { body() }
        return (fixedCalls, .nan)
    }
    for _ in 0..<1000 { body() }  // warm-up
    var calls = 0
    let start = DispatchTime.now().uptimeNanoseconds
    let cpuStart = threadCPUNanoseconds()
    let end = start + UInt64(seconds * 1e9)
    var now = start
    while now < end {
        for _ in 0..<64 { body() }
        calls += 64
        now = DispatchTime.now().uptimeNanoseconds
    }
    let ns = Double(threadCPUNanoseconds() - cpuStart) / Double(calls)
    return (calls, ns)
}

/// The whole of a (small) text file.
func readTextFile(_ path: String) -> String {
    guard let file = fopen(path, "r") else { fatalError("cannot open \(path)") }
    defer { fclose(file) }
    var bytes = [UInt8]()
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = fread(&chunk, 1, chunk.count, file)
        if count <= 0 { break }
        bytes += chunk[..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
}

let seconds = Double(CommandLine.arguments.dropFirst().first ?? "3") ?? 3
let tenant = "1111aaaa-bbbb-4ccc-8ddd-eeeeffff0001"
var wallClock = timespec()
_ = clock_gettime(CLOCK_REALTIME, &wallClock)
let now = Double(wallClock.tv_sec)
// `AUTHBENCH_KEY=<PEM file>` pins the signing key (a fresh key per run otherwise).
let key = try environment("AUTHBENCH_KEY").map { path in
    try RSAPrivateKey(pem: readTextFile(path))
} ?? RSAPrivateKey.generate(bits: 2048)
let jwk = """
    {"keys":[{"kty":"RSA","kid":"k1","n":"\(Base64URL.encode(key.publicKey.modulus))","e":"\(Base64URL.encode(key.publicKey.exponent))"}]}
    """
var claims = JSONObject()
claims["aud"] = .string("app")
claims["iss"] = .string("https://login.microsoftonline.com/\(tenant)/v2.0")
claims["iat"] = .number(JSONNumber(Int64(now)))
claims["nbf"] = .number(JSONNumber(Int64(now)))
claims["exp"] = .number(JSONNumber(Int64(now) + 3600))
claims["oid"] = .string("0a0a0a0a-0000-4000-8000-000000000001")
claims["tid"] = .string(tenant)
claims["email"] = .string("ada@example.com")
claims["preferred_username"] = .string("ada@example.com")
claims["name"] = .string("Ada Lovelace")
claims["sub"] = .string("AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ")
claims["ver"] = .string("2.0")
claims["uti"] = .string("AbCdEfGhIjKlMnOpQrStUv")
claims["rh"] = .string("0.AAAA_some_opaque_refresh_hint_of_typical_length_AAAAAAAAAAAAAAAAA.")
let token = try JWTSigner.sign(claims, with: .rsa(key, keyID: "k1"))

let time = FixedTime(wallSeconds: now)
let configuration = try EntraConfiguration(tenantID: tenant, audiences: ["app"])
let policy = configuration.policy

// 1. Uncached: header checks + key from the cache map + RSA verify + claims, per token.
let keySet = try JSONWebKeySet.parse(Array(jwk.utf8))
let rsaKey = keySet.keys["k1"]!
let uncached = measure("uncached", seconds: seconds) {
    let unverified = try! UnverifiedJWT(token, policy: policy)
    _ = try! unverified.verify(with: .rsa(rsaKey), policy: policy, now: now)
}
print("rs256_uncached_per_s \(whole(1e9 / uncached.nsPerCall))")
print("rs256_uncached_ns \(whole(uncached.nsPerCall))")

// 2. Cached: the full verifier with a warm token cache.
let verifier = EntraTokenVerifier(
    configuration: configuration,
    fetcher: StaticFetcher(document: jwk),
    time: time,
    logger: .disabled,
    metrics: MetricsRegistry()
)
// The keys are loaded first (async). The script itself stays synchronous: an async top-level
// parks the main thread in dispatch_main, and valgrind cannot follow the thread that then starts.
// Skipped when another case runs alone, so `callgrind` of the uncached case starts no thread at all.
if onlyCase == nil || onlyCase == "cached" {
    let loaded = DispatchSemaphore(value: 0)
    Task.detached {
        // Keys load in the background; a token arriving before them is refused at once.
        _ = await verifier.keys.refresh()
        do { _ = try await verifier.verify(token) } catch { fatalError("first verification failed: \(error)") }
        loaded.signal()
    }
    loaded.wait()
}
let cached = measure("cached", seconds: seconds) {
    guard case .verified = verifier.verifyImmediately(token) else { fatalError("cache miss") }
}
print("token_cached_ns \(whole(cached.nsPerCall))")

// 3. Session cookie read (header parse, MAC, claims, identity).
let settings = try SessionCookieSettings(secrets: [SecretBytes(utf8: "benchmark-secret-benchmark-secret-0123")], audience: "appnative:benchmark")
let codec = SessionCookieCodec(settings: settings, tenantID: tenant, time: time)
let cookie = codec.value(for: UserIdentity(objectID: "0a0a0a0a-0000-4000-8000-000000000001", email: "ada@example.com", tenantID: tenant, name: "Ada Lovelace"))
let cookieHeader = ["theme=dark; bms_session=\(cookie); lang=en"]
let cookieRead = measure("cookie", seconds: seconds) {
    guard codec.identity(fromCookieHeaders: cookieHeader) != nil else { fatalError("cookie rejected") }
}
print("cookie_verify_ns \(whole(cookieRead.nsPerCall))")

// 3b. The same without the verified-cookie cache: header scan, HMAC, JSON, claims every time.
let uncachedCodec = SessionCookieCodec(settings: settings, tenantID: tenant, time: time, cacheCapacity: 0)
let cookieUncached = measure("cookie-uncached", seconds: seconds) {
    guard uncachedCodec.identity(fromCookieHeaders: cookieHeader) != nil else { fatalError("cookie rejected") }
}
print("cookie_uncached_ns \(whole(cookieUncached.nsPerCall))")

// 4. Raw RSA verify alone (what `openssl speed` measures), for the overhead split.
let signingInput = Array(token.split(separator: ".").prefix(2).joined(separator: ".").utf8)
let signature = Base64URL.decode(token.split(separator: ".")[2])!
let raw = measure("raw", seconds: seconds) {
    _ = rsaKey.isValidPKCS1v15SHA256Signature(signature, for: signingInput)
}
print("rsa_raw_verify_per_s \(whole(1e9 / raw.nsPerCall))")

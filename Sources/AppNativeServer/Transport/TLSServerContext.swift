import AppNativeCore
internal import CAppNativeOpenSSL
import Foundation

/// TLS termination settings: a certificate chain and key from PEM files, TLS 1.2 or newer.
///
/// `reload()` (SIGHUP) builds a fresh OpenSSL context from the files and swaps it in; connections
/// already open keep the context they started with, new ones get the new certificate. A reload
/// that fails keeps the old context and reports why.
public final class TLSServerContext: Sendable {
    public let certificateFile: String
    public let keyFile: String
    /// Whether ALPN offers `h2` before `http/1.1` (set with `ServerConfiguration.http2`).
    public let offersHTTP2: Bool
    private let current: Locked<SSLContext>

    public struct LoadError: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// - Parameters:
    ///   - certificateFile: PEM certificate chain.
    ///   - keyFile: PEM private key matching it.
    ///   - offersHTTP2: ALPN offers `h2` before `http/1.1` (RFC 7301, RFC 9113 §3.2).
    /// - Throws: `LoadError` naming the file that could not be used.
        public init(certificateFile: String, keyFile: String, offersHTTP2: Bool = false) throws(LoadError) {
        self.certificateFile = certificateFile
        self.keyFile = keyFile
        self.offersHTTP2 = offersHTTP2
        current = Locked(try SSLContext(certificateFile: certificateFile, keyFile: keyFile, offersHTTP2: offersHTTP2))
    }

    /// Re-reads the certificate and key files.
    public func reload() throws(LoadError) {
        let fresh = try SSLContext(certificateFile: certificateFile, keyFile: keyFile, offersHTTP2: offersHTTP2)
        current.withLock { $0 = fresh }
    }

    /// When the certificate in use expires (its `notAfter`, seconds since the epoch): the
    /// gateway publishes it as a metric so an alert fires before clients start refusing it.
    public var certificateNotAfter: Int? { current.withLock { $0.certificateNotAfter } }

    func makeTransport(fd: Int32) -> TLSTransport? {
        let context = current.withLock { $0 }
        return TLSTransport(context: context, fd: fd)
    }
}

/// One OpenSSL `SSL_CTX`, freed in `deinit`.
@safe
final class SSLContext: @unchecked Sendable {
    // @safe: the `SSL_CTX` is created in init and freed once in deinit, and every `unsafe` call passes
    // it while alive. Invariant: configured once in init; afterwards OpenSSL only reads it (SSL_new is thread-safe
    // on a shared SSL_CTX).
    let pointer: OpaquePointer
    /// The leaf certificate's `notAfter` (a server context only).
    private(set) var certificateNotAfter: Int?

    init(certificateFile: String, keyFile: String, offersHTTP2: Bool) throws(TLSServerContext.LoadError) {
        guard let context = unsafe SSL_CTX_new(TLS_server_method()) else {
            throw TLSServerContext.LoadError(description: "SSL_CTX_new failed")
        }
        unsafe pointer = unsafe context
        guard unsafe appnative_openssl_ssl_ctx_set_min_tls12(context) == 1 else {
            throw TLSServerContext.LoadError(description: "cannot require TLS 1.2")
        }
        _ = unsafe appnative_openssl_ssl_ctx_set_nonblocking_modes(context)
        _ = unsafe appnative_openssl_ssl_ctx_set_server_options(context)
        if offersHTTP2 { unsafe appnative_openssl_ssl_ctx_offer_h2(context) }
        guard unsafe SSL_CTX_use_certificate_chain_file(context, certificateFile) == 1 else {
            throw TLSServerContext.LoadError(description: "TLS_CERT_FILE: cannot load a PEM certificate chain from \(certificateFile)")
        }
        guard unsafe SSL_CTX_use_PrivateKey_file(context, keyFile, SSL_FILETYPE_PEM) == 1 else {
            throw TLSServerContext.LoadError(description: "TLS_KEY_FILE: cannot load a PEM private key from \(keyFile)")
        }
        guard unsafe SSL_CTX_check_private_key(context) == 1 else {
            throw TLSServerContext.LoadError(description: "TLS_KEY_FILE does not match the certificate in TLS_CERT_FILE")
        }
        certificateNotAfter = unsafe Self.notAfter(of: context)
        ERR_clear_error()
    }

    private static func notAfter(of context: OpaquePointer) -> Int? {
        guard let certificate = unsafe SSL_CTX_get0_certificate(context), let time = unsafe X509_get0_notAfter(certificate) else { return nil }
        var broken = unsafe tm()
        guard unsafe ASN1_TIME_to_tm(time, &broken) == 1 else { return nil }
        return unsafe Int(timegm(&broken))
    }

    /// A client context: TLS 1.2+, peer verification against `caFile` or the system store.
    init(clientCAFile caFile: String?) throws(TLSServerContext.LoadError) {
        guard let context = unsafe SSL_CTX_new(TLS_client_method()) else {
            throw TLSServerContext.LoadError(description: "SSL_CTX_new failed")
        }
        unsafe pointer = unsafe context
        guard unsafe appnative_openssl_ssl_ctx_set_min_tls12(context) == 1 else {
            throw TLSServerContext.LoadError(description: "cannot require TLS 1.2")
        }
        _ = unsafe appnative_openssl_ssl_ctx_set_nonblocking_modes(context)
        unsafe SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        let loaded = unsafe caFile.map { unsafe SSL_CTX_load_verify_locations(context, $0, nil) } ?? SSL_CTX_set_default_verify_paths(context)
        guard loaded == 1 else {
            throw TLSServerContext.LoadError(description: "UPSTREAM_CA_FILE: cannot load CA certificates from \(caFile ?? "the system store")")
        }
        ERR_clear_error()
    }

    deinit { unsafe SSL_CTX_free(pointer) }
}

/// Outbound TLS to an https upstream: certificate and host name verified, TLS 1.2+.
public final class TLSClientContext: Sendable {
    public let serverName: String
    private let context: SSLContext

    public init(serverName: String, caFile: String?) throws(TLSServerContext.LoadError) {
        self.serverName = serverName
        context = try SSLContext(clientCAFile: caFile)
    }

    package func makeTransport(fd: Int32) -> (any ConnectionTransport)? {
        TLSTransport(clientContext: context, fd: fd, serverName: serverName)
    }
}

/// A server-side TLS session over a non-blocking socket.
@safe
package final class TLSTransport: ConnectionTransport {
    // @safe: the `SSL` handle is created in init from a live `SSL_CTX` (held below), never leaves
    // this class, and is freed once in deinit; every `unsafe` call passes it with buffers borrowed,
    // with their lengths, for the duration of that call only.
    private let ssl: OpaquePointer
    // Keeps the context alive as long as the session.
    private let context: SSLContext

    init?(context: SSLContext, fd: Int32) {
        guard let ssl = unsafe SSL_new(context.pointer) else { return nil }
        unsafe self.ssl = unsafe ssl
        self.context = context
        unsafe SSL_set_fd(ssl, fd)
        unsafe SSL_set_accept_state(ssl)
    }

    /// A client session that verifies the server's certificate for `serverName` (SNI + host check).
    init?(clientContext context: SSLContext, fd: Int32, serverName: String) {
        guard let ssl = unsafe SSL_new(context.pointer) else { return nil }
        unsafe self.ssl = unsafe ssl
        self.context = context
        unsafe SSL_set_fd(ssl, fd)
        _ = unsafe appnative_openssl_ssl_set_host_name(ssl, serverName)
        guard unsafe SSL_set1_host(ssl, serverName) == 1 else { return nil }
        unsafe SSL_set_connect_state(ssl)
    }

    deinit { unsafe SSL_free(ssl) }

    package var shortReadDrainsSocket: Bool { false }

    package var selectedHTTP2: Bool { unsafe appnative_openssl_ssl_selected_h2(ssl) == 1 }

    package func receive(into buffer: UnsafeMutableRawBufferPointer) -> TransportResult {
        let result = unsafe SSL_read(ssl, buffer.baseAddress, Int32(min(buffer.count, Int(Int32.max))))
        if result > 0 { return .transferred(Int(result)) }
        return outcome(of: result)
    }

    package func send(_ bytes: UnsafeRawBufferPointer) -> TransportResult {
        guard unsafe !bytes.isEmpty else { return .transferred(0) }
        let result = unsafe SSL_write(ssl, bytes.baseAddress, Int32(min(bytes.count, 1 << 20)))
        if result > 0 { return .transferred(Int(result)) }
        return outcome(of: result)
    }

    private func outcome(of result: Int32) -> TransportResult {
        let error = unsafe SSL_get_error(ssl, result)
        defer { ERR_clear_error() }
        switch error {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE: return .wouldBlock
        case SSL_ERROR_ZERO_RETURN: return .closed
        default:
            hasFailed = true
            return .failed
        }
    }

    /// After a fatal error OpenSSL forbids SSL_shutdown (the session state is undefined).
    private var hasFailed = false

    package func shutdown() -> TransportResult {
        guard !hasFailed, unsafe SSL_is_init_finished(ssl) == 1 else { return .failed }
        let result = unsafe SSL_shutdown(ssl)
        // 0: our close_notify is sent, the peer's not yet read; 1: both done.
        if result >= 0 { return .transferred(0) }
        let error = unsafe SSL_get_error(ssl, result)
        ERR_clear_error()
        switch error {
        case SSL_ERROR_WANT_WRITE: return .wouldBlock
        // Only our close_notify matters: the peer's arrives, if at all, during the linger read.
        case SSL_ERROR_WANT_READ: return .transferred(0)
        default:
            hasFailed = true
            return .failed
        }
    }
}

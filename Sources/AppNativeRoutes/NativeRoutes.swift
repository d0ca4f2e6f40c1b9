public import AppNativeCore
public import AppNativeHTTP
import AppNativeJSON
import AppNativeModels

/// The ten native routes (contract/routes.md) as one async function, for any Swift server: a
/// request (method, target, headers, body as a sequence of byte chunks) in, the contract's answer
/// out. ``NativeRoutesHandler`` serves it on the project's own `HTTPServer`; a few lines adapt it
/// to Vapor or Hummingbird (docs/swift-backends.md).
///
/// Per request, in this order (contract/routes.md §0):
/// 1. the path picks the route: `{prefix}/<route>`; anything else under the prefix, or a route
///    whose callback is `nil`, is 404 `{"detail":"Not Found"}`; a wrong method is 405 with `Allow`;
/// 2. the authentication hook runs before a byte of the body is read (a refusal is sent as the
///    hook built it);
/// 3. the body is capped (413) and validated (422 listing every error), or, for documents,
///    judged while it streams by the rules the gateway applies too (`DocumentUploadCheck`);
/// 4. the callback runs; its value is shaped per contract/routes.md §3, a thrown
///    ``NativeHTTPError`` passes through as `{"detail": …}`, anything else is 500
///    `{"detail":"Internal Server Error"}` with the error only in the log.
///
/// A value type holding only `Sendable` configuration: build one and share it between every
/// request, thread and event loop.
public struct NativeRoutes<User: Sendable>: Sendable {
    /// The mount path: `""` or `/path` without a trailing slash.
    public let prefix: String
    let authentication: NativeAuthentication<User>
    let callbacks: NativeRouteCallbacks<User>
    let limits: NativeRouteLimits
    let logger: Logger

    /// Routes guarded by `authentication`.
    ///
    /// - Parameters:
    ///   - prefix: the mount path (`/api` by default, the app's default); `""` mounts at the root.
    ///     It starts with `/` and does not end with one.
    ///   - authentication: the mandatory hook, or the explicit
    ///     ``NativeAuthentication/insecureNoAuthentication``.
    ///   - callbacks: the host's callbacks; a `nil` callback leaves its route unmounted (404).
    ///   - limits: body caps.
    ///   - logger: where unexpected callback errors are logged (`native.route`, `error`).
    public init(
        prefix: String = "/api",
        authentication: NativeAuthentication<User>,
        callbacks: NativeRouteCallbacks<User>,
        limits: NativeRouteLimits = NativeRouteLimits(),
        logger: Logger = Logger()
    ) {
        precondition(prefix.isEmpty || (prefix.hasPrefix("/") && !prefix.hasSuffix("/")), "prefix: \"\" or \"/path\" without a trailing slash")
        self.prefix = prefix
        self.authentication = authentication
        self.callbacks = callbacks
        self.limits = limits
        self.logger = logger
    }

    /// Routes guarded by the hook `authenticate` (see ``init(prefix:authentication:callbacks:limits:logger:)``).
    public init(
        prefix: String = "/api",
        authenticate: @escaping @Sendable (HTTPRequestHead) async -> NativeAuthOutcome<User>,
        callbacks: NativeRouteCallbacks<User>,
        limits: NativeRouteLimits = NativeRouteLimits(),
        logger: Logger = Logger()
    ) {
        self.init(prefix: prefix, authentication: .hook(authenticate), callbacks: callbacks, limits: limits, logger: logger)
    }

    /// Whether `target` (a request target: path and optional query) lies below the prefix, where
    /// ``respond(to:)`` answers every request, 404 included. A server sends the other requests to
    /// its own routes.
    public func handles(target: String) -> Bool {
        routeSuffix(of: Self.path(of: target)) != nil
    }

    /// Answers one request.
    ///
    /// The body is read only after authentication, and only as far as needed: a refused body
    /// (413, or a malformed upload) is left partly unread, which the server deals with as with
    /// any answer sent before the body ended. For `HEAD` on a feed the answer is the `GET`
    /// answer; the server sends its head only (RFC 9110 §9.3.2).
    ///
    /// - Parameter request: the request, its body not yet read.
    /// - Returns: the answer, for every outcome of authentication, validation and the callback.
    /// - Throws: only what `request.body` throws (the client went away mid-body); there is then
    ///   no one to answer.
    public func respond<Body>(to request: NativeRouteRequest<Body>) async throws -> CompleteResponse {
        let head = request.head
        guard !request.hasInvalidFieldName else { return .badRequest }
        guard let suffix = routeSuffix(of: Self.path(of: head.target)),
            let route = NativeRoute(rawValue: String(suffix)), let mounted = callbacks.mounted(route)
        else {
            return .notFound
        }
        guard route.accepts(head.method) else { return .methodNotAllowed(allow: route.method) }
        let user: User?
        switch authentication.mode {
        case .insecure:
            user = nil
        case .hook(let authenticate):
            switch await authenticate(head) {
            case .authenticated(let authenticated): user = authenticated
            case .rejected(let rejection): return .json(rejection.status, rejection.body, headers: rejection.headers)
            }
        }
        switch mounted {
        case .feed(let feed):
            return await serveFeed(route, feed, head: head, user: user)
        case .document(let receive):
            switch try await readDocument(head: head, body: request.body) {
            case .failure(let refusal): return refusal
            case .success(let upload): return await self.receive(upload, receive, head: head, user: user)
            }
        case .json(let bind):
            switch try await readJSON(head: head, body: request.body) {
            case .failure(let refusal): return refusal
            case .success(let body): return await decodeAndCall(route, bind, head: head, user: user, body: body)
            }
        }
    }

    /// The path of a request target: everything before `?`.
    private static func path(of target: String) -> Substring {
        target.firstIndex(of: "?").map { target[..<$0] } ?? target[...]
    }

    /// The part after `{prefix}/`, or `nil` when `path` is outside the prefix.
    private func routeSuffix(of path: Substring) -> Substring? {
        guard path.hasPrefix(prefix) else { return nil }
        let rest = path.dropFirst(prefix.count)
        guard rest.first == "/" else { return nil }
        return rest.dropFirst()
    }

    private func serveFeed(
        _ route: NativeRoute, _ feed: @Sendable (NativeRequestContext<User>) async throws -> JSONValue, head: HTTPRequestHead, user: User?
    ) async -> CompleteResponse {
        let target = head.target
        let query = target.firstIndex(of: "?").map { target[target.index(after: $0)...] } ?? ""
        let context = NativeRequestContext(deviceID: QueryParameters.value(of: "device_id", in: query), user: user, request: head)
        return await call(route, head) { .json(200, try await feed(context)) }
    }

    /// The JSON body, read under the cap: a declared length past it is refused before reading.
    private func readJSON<Body: AsyncSequence>(head: HTTPRequestHead, body: Body) async throws -> Result<[UInt8], CompleteResponse>
where Body.Element: Collection<UInt8> {
        let maxBytes = limits.maxJSONBodyBytes
        if let declared = head.headers.firstContentLength, declared > maxBytes {
            return .failure(.bodyTooLarge)
        }
        var bytes: [UInt8] = []
        for try await chunk in body {
            guard chunk.count <= maxBytes - bytes.count else { return .failure(.bodyTooLarge) }
            bytes.append(contentsOf: chunk)
        }
        return .success(bytes)
    }

    /// The upload, judged while it streams by ``DocumentUploadCheck``; the file is kept for the
    /// callback (the check refuses it past `maxDocumentBytes`, so memory stays bounded by the cap).
    private func readDocument<Body: AsyncSequence>(head: HTTPRequestHead, body: Body) async throws -> Result<DocumentUpload, CompleteResponse>
where Body.Element: Collection<UInt8> {
        var chunks = body.makeAsyncIterator()
        // The first piece says whether there is a body at all, which the check judges first.
        var next = try await Self.nextNonEmpty(&chunks)
        var check: DocumentUploadCheck
        switch DocumentUploadCheck.start(
            contentType: head.headers.first("Content-Type"), hasBody: next != nil, maxFileBytes: limits.maxDocumentBytes)
        {
        case .success(let started): check = started
        case .failure(let refusal): return .failure(refusal)
        }
        var content: [UInt8] = []
        let keep = { (event: DocumentUploadCheck.Event) in
            if case .fileContent(let bytes) = event { unsafe content.append(contentsOf: bytes) }
        }
        while let chunk = next {
            do throws(CompleteResponse) {
                try check.consume(slice(of: chunk), keep)
            } catch {
                return .failure(error)
            }
            next = try await Self.nextNonEmpty(&chunks)
        }
        do throws(CompleteResponse) {
            let metadata = try check.finish(keep)
            return .success(DocumentUpload(metadata: metadata, content: content))
        } catch {
            return .failure(error)
        }
    }

    private static func nextNonEmpty<Chunks: AsyncIteratorProtocol>(_ chunks: inout Chunks) async throws -> Chunks.Element?
where Chunks.Element: Collection<UInt8> {
        while let chunk = try await chunks.next() {
            if !chunk.isEmpty { return chunk }
        }
        return nil
    }

    private func receive(
        _ upload: DocumentUpload, _ callback: @Sendable (DocumentUpload, NativeRequestContext<User>) async throws -> JSONValue?,
        head: HTTPRequestHead, user: User?
    ) async -> CompleteResponse {
        let context = NativeRequestContext(deviceID: upload.metadata.deviceID, user: user, request: head)
        return await call(.documents, head) {
            .document(reference: try await callback(upload, context))
        }
    }

    private func decodeAndCall(
        _ route: NativeRoute, _ bind: @Sendable ([UInt8], ModelDecoder) throws(ModelError) -> MountedRoute<User>.BoundCall,
        head: HTTPRequestHead, user: User?, body: [UInt8]
    ) async -> CompleteResponse {
        let bound: MountedRoute<User>.BoundCall
        do throws(ModelError) {
            bound = try bind(body, ModelDecoder(maxBodyBytes: limits.maxJSONBodyBytes))
        } catch {
            return .refusal(error)
        }
        let context = NativeRequestContext(deviceID: bound.deviceID, user: user, request: head)
        return await call(route, head) { try await bound.call(context) }
    }

    /// Runs `work` (the callback and the shaping of its value) and maps what it throws.
    private func call(_ route: NativeRoute, _ head: HTTPRequestHead, _ work: () async throws -> CompleteResponse) async -> CompleteResponse {
        do {
            return try await work()
        } catch let error as NativeHTTPError {
            return .detail(error.status, error.detail, headers: error.headers)
        } catch {
            logger.error(
                "native route callback failed",
                ["native.route": route.rawValue, "http.method": head.method, "error": String(describing: error)])
            return .internalError
        }
    }
}

/// The chunk as the slice the check reads; an array's storage is shared, not copied.
private func slice<Chunk: Collection<UInt8>>(of chunk: Chunk) -> ArraySlice<UInt8> {
    if let array = chunk as? [UInt8] { return array[...] }
    if let slice = chunk as? ArraySlice<UInt8> { return slice }
    return ArraySlice(chunk)
}

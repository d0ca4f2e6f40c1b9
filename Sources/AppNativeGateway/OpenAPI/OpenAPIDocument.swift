import AppNativeJSON
import AppNativeRoutes

/// The OpenAPI 3.0 description of every endpoint the gateway answers itself on its public
/// listener: the `/.auth/` endpoints, the native routes, and the apple-app-site-association file.
/// Served at `<AUTH_PATH_PREFIX>openapi.json`; `docs/openapi.json` is its output for the default
/// prefixes, and a test fails when the two differ.
enum OpenAPIDocument {
    static func document(
        authPrefix: String, nativePrefix: String, nativeRoutesEnabled: Bool, servesAppSiteAssociation: Bool, version: String
    ) -> JSONValue {
        var paths: [(String, JSONValue)] = [
            (authPrefix + "me", ["get": me]),
            (authPrefix + "session", ["get": session, "post": session]),
            (authPrefix + "logout", ["post": logout]),
            (authPrefix + "verify", ["get": verify, "post": verify, "put": verify, "patch": verify, "delete": verify]),
            (authPrefix + "jwks.json", ["get": jwks]),
            (authPrefix + "openapi.json", ["get": openapi]),
        ]
        if servesAppSiteAssociation { paths.append((AppleAppSiteAssociation.path, ["get": appSiteAssociation])) }
        if nativeRoutesEnabled {
            for route in NativeRoute.allCases {
                paths.append((nativePrefix + route.pathSuffix, .object(JSONObject([(route.method.lowercased(), operation(route))]))))
            }
        }
        return [
            "openapi": "3.0.3",
            "info": [
                "title": "App Native Gateway",
                "version": .string(version),
                "description": "Endpoints the gateway answers itself. Every other path is proxied to the upstream with the verified identity.",
            ],
            "paths": .object(JSONObject(paths)),
            "components": ["securitySchemes": securitySchemes, "schemas": schemas],
        ]
    }

    // MARK: Building blocks

    private static let authenticated: JSONValue = [["bearerAuth": []], ["sessionCookie": []]]

    private static let securitySchemes: JSONValue = [
        "bearerAuth": ["type": "http", "scheme": "bearer", "bearerFormat": "JWT", "description": "Microsoft Entra ID token (RS256)."],
        "sessionCookie": ["type": "apiKey", "in": "cookie", "name": "bms_session", "description": "The gateway's session cookie (SESSION_COOKIE_NAME)."],
    ]

    private static func ref(_ name: String) -> JSONValue { ["$ref": .string("#/components/schemas/" + name)] }

    private static func json(_ schema: JSONValue, _ description: String) -> JSONValue {
        ["description": .string(description), "content": ["application/json": ["schema": schema]]]
    }

    private static func detail(_ description: String) -> JSONValue { json(ref("ErrorDetail"), description) }

    /// The answers every authenticated endpoint can give before it does anything (contract/auth.md §7).
    private static let authResponses: [(String, JSONValue)] = [
        ("401", detail("No credential, or an invalid one (`WWW-Authenticate` says which).")),
        ("403", detail("Missing scope, not allowed by the access policy or hook, or Origin not allowed.")),
        ("503", detail("Sign-in or authorization temporarily unavailable (`Retry-After`).")),
    ]

    private static func responses(_ own: [(String, JSONValue)], authenticated: Bool = true) -> JSONValue {
        .object(JSONObject(own + (authenticated ? authResponses : [])))
    }

    // MARK: /.auth/ endpoints

    private static let me: JSONValue = [
        "summary": "The caller's verified identity (the app's \"check backend\" call).",
        "security": authenticated,
        "responses": responses([("200", json(ref("Identity"), "The identity."))]),
    ]

    private static let session: JSONValue = [
        "summary": "Exchanges a Bearer token for the session cookie (before a WebView navigates).",
        "security": [["bearerAuth": []]],
        "responses": responses([
            ("204", ["description": "The cookie is in `Set-Cookie`."]),
            ("404", detail("Sessions are not configured (no SESSION_SECRET).")),
        ]),
    ]

    private static let logout: JSONValue = [
        "summary": "Clears the session cookie (POST only; an Origin, when sent, must pass the Origin rule).",
        "responses": [
            "204": ["description": "`Set-Cookie` expires the cookie."],
            "403": ["description": "Another site's Origin.", "content": ["application/json": ["schema": ref("ErrorDetail")]]],
        ],
    ]

    private static let verify: JSONValue = [
        "summary": "Forward-auth (nginx auth_request, Traefik, Caddy): judges the original request by the rules of the proxy path; 200 with the identity headers where the gateway would forward, else its answer.",
        "security": authenticated,
        "parameters": .array(
            [
                ("X-Original-URI", "The original request's target (nginx)."),
                ("X-Original-Method", "The original request's method (nginx)."),
                ("X-Forwarded-Uri", "The original request's target (Caddy, Traefik)."),
                ("X-Forwarded-Method", "The original request's method (Caddy, Traefik)."),
            ].map { name, description in
                ["name": .string(name), "in": "header", "required": false, "schema": ["type": "string"], "description": .string(description)]
            }),
        "responses": responses([
            ("200", ["description": "The original request may pass; identity (and the hook's X-Authz-* fields) in the response headers, all empty for a public path."]),
            ("400", detail("No original request (target and method), two that disagree, an unknown method, or a target the gateway refuses.")),
            ("404", detail("The original target is an unknown gateway endpoint.")),
            ("405", detail("The original method is not the native route's.")),
        ]),
    ]

    private static let jwks: JSONValue = [
        "summary": "Public keys verifying the X-AppNative-Identity assertion.",
        "responses": ["200": json(ref("JWKS"), "The key set.")],
    ]

    private static let openapi: JSONValue = [
        "summary": "This document.",
        "responses": ["200": json(["type": "object"], "OpenAPI 3.0 document.")],
    ]

    private static let appSiteAssociation: JSONValue = [
        "summary": "Universal links (APPLE_APP_IDS); unauthenticated, never redirected.",
        "responses": ["200": json(["type": "object", "required": ["applinks"]], "The association file.")],
    ]

    // MARK: Native routes

    private static let validation: (String, JSONValue) = ("422", json(ref("ValidationError"), "The body breaks the contract; every error with its path."))
    private static let upstreamFailures: [(String, JSONValue)] = [
        ("502", detail("The upstream failed or answered something the contract does not allow.")),
        ("504", detail("The upstream did not answer in time.")),
    ]

    private static func operation(_ route: NativeRoute) -> JSONValue {
        let contract = route.contract
        var object: [(String, JSONValue)] = [("summary", .string(contract.summary)), ("security", authenticated)]
        var own: [(String, JSONValue)] = []
        switch contract.answer {
        case .ok: own.append(("200", json(ref("Ok"), "Recorded.")))
        case .noContent: own.append(("204", ["description": "Recorded."]))
        case .feed(let schema, _): own.append(("200", json(ref(schema), "The feed (invalid entries dropped).")))
        case .result(let schema, let description, _, _): own.append(("200", json(ref(schema), description)))
        case .documentReceipt: own.append(("200", json(ref("DocumentAccepted"), "Stored; `id` when the upstream returned a reference.")))
        }
        switch contract.request {
        case .feed:
            object.append(("parameters", [["name": "device_id", "in": "query", "required": false, "schema": ["type": "string"]]]))
        case .document:
            object.append(("requestBody", ["required": true, "content": ["multipart/form-data": ["schema": ref("DocumentUpload")]]]))
            own.append(("400", detail("The multipart body is malformed.")))
            own.append(("413", detail("Larger than DOCUMENT_MAX_BYTES.")))
            own.append(validation)
        case .json(_, let schema):
            object.append(("requestBody", ["required": true, "content": ["application/json": ["schema": ref(schema)]]]))
            own.append(("413", detail("Larger than NATIVE_MAX_JSON_BYTES.")))
            own.append(validation)
        }
        own.append(("405", detail("Wrong method for this path.")))
        object.append(("responses", responses(own + upstreamFailures)))
        return .object(JSONObject(object))
    }

    // MARK: Schemas

    private static let string: JSONValue = ["type": "string"]
    private static let nullableString: JSONValue = ["type": "string", "nullable": true]
    private static let nullableObject: JSONValue = ["type": "object", "nullable": true]

    private static let schemas: JSONValue = [
        "ErrorDetail": ["type": "object", "required": ["detail"], "properties": ["detail": [:]]],
        "ValidationError": [
            "type": "object", "required": ["detail"],
            "properties": ["detail": ["oneOf": [
                ["type": "array", "items": ["type": "object", "required": ["type", "loc", "msg"]]],
                ["type": "string"],
            ]]],
        ],
        "Ok": ["type": "object", "required": ["ok"], "properties": ["ok": ["type": "boolean", "enum": [true]]]],
        "Identity": [
            "type": "object", "required": ["oid", "tenant_id", "caller_type", "auth_method", "expires_at"],
            "properties": [
                "oid": string, "email": ["type": "string", "description": "Every user has one; an application (caller_type app) has none."],
                "tenant_id": string, "name": string, "upn": string,
                "caller_type": ["type": "string", "enum": ["user", "app"]],
                "auth_method": ["type": "string", "enum": ["token", "cookie"]], "expires_at": ["type": "integer"],
                "roles": ["type": "array", "items": string], "client_id": string, "groups": ["type": "array", "items": string],
                "groups_overage": ["type": "boolean", "enum": [true]],
            ],
        ],
        "JWKS": ["type": "object", "required": ["keys"], "properties": ["keys": ["type": "array", "items": ["type": "object"]]]],
        "DeviceRegistration": [
            "type": "object", "required": ["device_id"],
            "properties": [
                "device_id": string, "push_token": nullableString,
                "platform": ["type": "string", "enum": ["ios"], "nullable": true], "user_email": nullableString,
            ],
        ],
        "LocationUpdate": [
            "type": "object", "required": ["device_id", "latitude", "longitude"],
            "properties": [
                "device_id": string, "user_email": nullableString,
                "latitude": ["type": "number", "minimum": -90, "maximum": 90],
                "longitude": ["type": "number", "minimum": -180, "maximum": 180],
                "accuracy": ["type": "number", "nullable": true],
                "recorded_at": ["type": "string", "format": "date-time", "nullable": true],
            ],
        ],
        "NotificationActionReceived": [
            "type": "object", "required": ["device_id", "action"],
            "properties": ["device_id": string, "action": string, "data": nullableObject],
        ],
        "WidgetActionReceived": [
            "type": "object", "required": ["device_id", "widget_id", "action_id"],
            "properties": [
                "device_id": string, "widget_id": string, "action_id": string, "item_id": nullableString,
                "values": ["type": "object"], "user_email": nullableString,
                "source": ["type": "string", "enum": ["homeScreen"], "nullable": true],
            ],
        ],
        "WidgetOptionsRequest": [
            "type": "object", "required": ["device_id", "field_id"],
            "description": "Exactly one of widget_id and form_id is non-null.",
            "properties": [
                "device_id": string, "widget_id": nullableString, "form_id": nullableString, "field_id": string,
                "query": string, "values": ["type": "object"], "context": nullableObject, "user_email": nullableString,
            ],
        ],
        "ApprovalDecisionReceived": [
            "type": "object", "required": ["device_id", "approval_id", "decision"],
            "properties": [
                "device_id": string, "approval_id": string, "decision": ["type": "string", "enum": ["approve", "reject"]],
                "comment": nullableString, "user_email": nullableString,
            ],
        ],
        "LiveActivityTokenReceived": [
            "type": "object", "required": ["device_id", "event"],
            "properties": [
                "device_id": string, "event": ["type": "string", "enum": ["token", "push_to_start_token", "ended"]],
                "activity_id": nullableString, "push_token": nullableString, "user_email": nullableString,
            ],
        ],
        "DocumentUpload": [
            "type": "object", "required": ["file", "device_id"],
            "properties": [
                "file": ["type": "string", "format": "binary"], "device_id": ["type": "string", "minLength": 1], "user_email": string,
                "kind": string, "upload_id": string, "form_id": string, "field_id": string,
                "context": ["type": "string", "description": "A JSON object, as text."],
            ],
        ],
        "DocumentAccepted": [
            "type": "object", "required": ["ok"],
            "properties": ["ok": ["type": "boolean", "enum": [true]], "id": ["oneOf": [["type": "string", "minLength": 1], ["type": "integer"]]]],
        ],
        "Widget": [
            "type": "object", "required": ["id", "kind", "data"],
            "properties": [
                "id": ["type": "string", "minLength": 1],
                "kind": ["type": "string", "enum": ["kpi", "stats", "list", "chart", "progress", "text", "action", "news", "web"]],
                "title": string, "required": ["type": "boolean"], "defaultEnabled": ["type": "boolean"], "data": ["type": "object"],
            ],
        ],
        "WidgetFeed": [
            "type": "object", "required": ["schema", "widgets"],
            "properties": ["schema": ["type": "integer"], "widgets": ["type": "array", "items": ref("Widget")]],
        ],
        "Approval": [
            "type": "object", "required": ["id", "title"],
            "properties": ["id": ["type": "string", "minLength": 1], "title": ["type": "string", "minLength": 1]],
        ],
        "ApprovalFeed": [
            "type": "object", "required": ["approvals"],
            "properties": ["approvals": ["type": "array", "items": ref("Approval")]],
        ],
        "ResultStyle": ["type": "string", "enum": ["info", "success", "warning", "error"]],
        "WidgetActionResult": [
            "type": "object", "required": ["ok"],
            "properties": [
                "ok": ["type": "boolean"], "message": string, "style": ref("ResultStyle"),
                "widgets": ["type": "array", "items": ref("Widget")], "widget": ref("Widget"), "openPath": string,
            ],
        ],
        "WidgetOptionsResult": [
            "type": "object", "required": ["options"],
            "properties": [
                "options": ["type": "array", "items": ["type": "object", "required": ["value"]]], "emptyText": string,
            ],
        ],
        "ApprovalDecisionResult": [
            "type": "object", "required": ["ok"],
            "properties": [
                "ok": ["type": "boolean"], "message": string, "style": ref("ResultStyle"),
                "approvals": ["type": "array", "items": ref("Approval")],
            ],
        ],
    ]
}

import AppNativeJSON
import AppNativeProxy
import AppNativeServer

/// The fixed answers of the native routes (contract/routes.md §1, §3.6).
enum NativeAnswers {
    static let ok = MediatedAnswer.json(status: 200, Array(#"{"ok":true}"#.utf8))
    static let noContent = MediatedAnswer(status: 204)

    /// `{"detail": message}` with `status` (contract/routes.md §0, HTTPException shape).
    static func detail(_ status: Int, _ message: String) -> MediatedAnswer {
        .json(status: status, Array(JSONErrorBody.detail(message).utf8))
    }

    /// An upstream 4xx reaches the app as the upstream sent it (its body and content type).
    static func passThrough(status: Int, headers: HTTPHeaders, body: [UInt8]) -> MediatedAnswer {
        var answer = MediatedAnswer(status: status, body: body)
        answer.headers.add(name: "Content-Type", value: headers.first("Content-Type") ?? "application/json")
        return answer
    }

    /// Anything but 2xx or 4xx from the upstream: the app gets 502 and the log says why.
    static let upstreamFailed = detail(502, "Upstream error")
}

import AppNativeHTTP

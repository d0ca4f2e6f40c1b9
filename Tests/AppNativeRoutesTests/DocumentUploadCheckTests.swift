import AppNativeHTTP
import AppNativeJSON
import AppNativeModels
@testable import AppNativeRoutes
import Testing

/// The one upload check of both servers of the routes (`NativeRoutes` and the gateway's
/// `DocumentUploadFilter`), driven directly with every split of the body.
@Suite struct DocumentUploadCheckTests {
    static let type = "multipart/form-data; boundary=\(MultipartBody.boundary)"

    /// What the check handed over, with the metadata or the refusal it ended with.
    struct Outcome: Equatable {
        var events: [String] = []
        var file: [UInt8] = []
        var metadata: DocumentMetadata?
        var refusal: CompleteResponse?
    }

    /// Runs `body` through a check in pieces of `size` bytes (0: whole).
    static func run(_ body: [UInt8], size: Int, contentType: String = type, maxFileBytes: Int = 1 << 20) -> Outcome {
        var outcome = Outcome()
        var check: DocumentUploadCheck
        switch DocumentUploadCheck.start(contentType: contentType, hasBody: !body.isEmpty, maxFileBytes: maxFileBytes) {
        case .success(let started): check = started
        case .failure(let refusal):
            outcome.refusal = refusal
            return outcome
        }
        var events: [String] = []
        var file: [UInt8] = []
        let record = { (event: DocumentUploadCheck.Event) in
            switch event {
            case .field(let name, let value): events.append(unsafe "field \(name)=\(String(decoding: value, as: UTF8.self))")
            case .fileBegan(let filename, let contentType): events.append("file \(filename) \(contentType ?? "-")")
            case .fileContent(let bytes): unsafe file.append(contentsOf: bytes)
            }
        }
        do throws(CompleteResponse) {
            var offset = 0
            let step = size == 0 ? max(body.count, 1) : size
            while offset < body.count {
                try check.consume(body[offset..<min(offset + step, body.count)], record)
                offset += step
            }
            outcome.metadata = try check.finish(record)
        } catch {
            outcome.refusal = error
        }
        outcome.events = events
        outcome.file = file
        return outcome
    }

    static func every(_ body: [UInt8], contentType: String = type, maxFileBytes: Int = 1 << 20) -> [Outcome] {
        [0, 1, 2, 3, 7, 64].map { run(body, size: $0, contentType: contentType, maxFileBytes: maxFileBytes) }
    }

    @Test func everySplitHandsOverTheSameUpload() throws {
        var body = MultipartBody()
        body.field("device_id", "")
        body.field("device_id", "d1")
        body.field("user_email", "")
        body.field("context", "  ")
        body.field("kind", "scan")
        body.file(filename: "../../etc/passwd", contentType: "application/pdf", content: Array("%PDF-1.7".utf8))
        let outcomes = Self.every(body.finished())
        let first = try #require(outcomes.first)
        #expect(first.refusal == nil)
        // Empty device_id and user_email and a blank context count as absent: not handed over.
        #expect(first.events == ["field device_id=d1", "field kind=scan", "file passwd application/pdf"])
        #expect(first.file == Array("%PDF-1.7".utf8))
        #expect(first.metadata?.deviceID == "d1")
        #expect(first.metadata?.filename == "passwd")
        for outcome in outcomes { #expect(outcome == first) }
    }

    @Test func aBadContextBeforeTheFileRefusesItBeforeAnyOfItIsHandedOver() {
        var body = MultipartBody()
        body.field("device_id", "d1")
        body.field("context", "[1]")
        body.file(filename: "a.pdf", content: [1, 2, 3])
        for outcome in Self.every(body.finished()) {
            #expect(outcome.refusal?.status == 422)
            #expect(outcome.refusal?.body == Array(#"{"detail":"`context` must be a JSON object"}"#.utf8))
            #expect(outcome.events == ["field device_id=d1"])
            #expect(outcome.file.isEmpty)
        }
    }

    @Test func aLaterContextReplacesTheVerdict() {
        var body = MultipartBody()
        body.field("device_id", "d1")
        body.field("context", "[1]")
        body.field("context", #"{"a":1}"#)
        body.file(filename: "a.pdf", content: [1])
        for outcome in Self.every(body.finished()) {
            #expect(outcome.refusal == nil)
            #expect(outcome.metadata?.context?["a"] == 1)
        }
    }

    @Test func theFileIsRefusedAsSoonAsItPassesTheCap() {
        let exact = MultipartBody.upload(content: [UInt8](repeating: 0x41, count: 10))
        for outcome in Self.every(exact, maxFileBytes: 10) { #expect(outcome.refusal == nil) }
        let over = MultipartBody.upload(content: [UInt8](repeating: 0x41, count: 11))
        for outcome in Self.every(over, maxFileBytes: 10) {
            #expect(outcome.refusal == .documentTooLarge)
            #expect(outcome.file.count <= 10)
        }
    }

    @Test func theHeadAloneDecides() {
        let form = MultipartBody.upload()
        #expect(Self.run([], size: 0).refusal == DocumentUploadCheck.notMultipart)
        #expect(Self.run(form, size: 0, contentType: "application/json").refusal == DocumentUploadCheck.notMultipart)
        #expect(Self.run(form, size: 0, contentType: "multipart/form-data").refusal == .detail(400, "Missing boundary in multipart."))
        #expect(Self.run(form, size: 0, contentType: "multipart/form-data; boundary=").refusal == .detail(400, "Invalid multipart data."))
        #expect(Self.run(form, size: 0, contentType: " Multipart/Form-Data ; boundary=\(MultipartBody.boundary)").refusal == nil)
    }

    @Test func onlyCRAndLFMayComeBeforeTheFirstDelimiter() {
        let form = MultipartBody.upload()
        for outcome in Self.every(Array("\r\n\r\n".utf8) + form) { #expect(outcome.refusal == nil) }
        for outcome in Self.every(Array("x".utf8) + form) { #expect(outcome.refusal == .detail(400, "Invalid multipart data.")) }
        let padded = Array("--\(MultipartBody.boundary) \r\n".utf8) + form.dropFirst("--\(MultipartBody.boundary)\r\n".utf8.count)
        for outcome in Self.every(padded) { #expect(outcome.refusal == .detail(400, "Invalid multipart data.")) }
    }

    @Test func partsPastTheLimitAre413() {
        let fields = [(String, String)](repeating: ("kind", "scan"), count: DocumentUploadCheck.maxParts - 2)
        #expect(Self.run(MultipartBody.upload(fields: fields), size: 5).refusal == nil)
        #expect(Self.run(MultipartBody.upload(fields: fields + [("kind", "scan")]), size: 5).refusal == .documentTooLarge)
    }
}

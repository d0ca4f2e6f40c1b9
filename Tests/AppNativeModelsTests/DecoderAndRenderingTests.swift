import AppNativeJSON
import AppNativeModels
import Testing

/// Bytes in, 413 vs 422 out, and the FastAPI `detail` shape of `contract/routes.md` §0.
@Suite struct DecoderAndRenderingTests {
    static let body = Array(#"{"device_id":"d1"}"#.utf8)

    @Test func bodyAtTheCapDecodesAndOneByteMoreIs413() throws {
        let exact = ModelDecoder(maxBodyBytes: Self.body.count)
        #expect(try exact.decode(DeviceRegistration.self, from: Self.body).deviceID == "d1")
        let tight = ModelDecoder(maxBodyBytes: Self.body.count - 1)
        do {
            _ = try tight.decode(DeviceRegistration.self, from: Self.body)
            Issue.record("one byte over the cap must fail")
        } catch {
            #expect(error.code == .bodyTooLarge)
            #expect(error.httpStatus == 413)
            #expect(error.issues.isEmpty)
        }
    }

    @Test(arguments: [
        ("truncated", #"{"device_id":"#), ("duplicate key", #"{"device_id":"a","device_id":"b"}"#),
        ("trailing data", #"{"device_id":"a"} x"#), ("blank", " "),
    ])
    func malformedJSONIs422(_ name: String, _ text: String) {
        do {
            _ = try ModelDecoder().decode(DeviceRegistration.self, from: Array(text.utf8))
            Issue.record("\(name): must not decode")
        } catch {
            #expect(error.code == .invalid, "\(name)")
            #expect(error.httpStatus == 422, "\(name)")
            #expect(error.issues.map(\.type) == ["json_invalid"], "\(name): \(error.issues)")
            let loc = error.detailBody()["detail"]?.arrayValue?.first?["loc"]?.arrayValue
            #expect(loc?.first == "body", "\(name): loc starts with body")
        }
    }

    @Test func detailBodyHasFastAPIShape() throws {
        let error = try #require(modelError(LocationUpdate.self, json(#"{"device_id":"d","latitude":91,"longitude":0}"#)))
        let body = error.detailBody()
        let detail = try #require(body["detail"]?.arrayValue)
        #expect(detail.count == 1)
        let element = try #require(detail.first)
        #expect(element["loc"] == ["body", "latitude"])
        #expect(element["type"] == "less_than_equal")
        #expect(element["msg"] == "Input should be less than or equal to 90")
        #expect(element["input"] == 91)
        #expect(error.httpStatus == 422)
        let parsed = try JSONParser().parse(error.responseBytes())
        #expect(parsed == body, "responseBytes is the serialized detail body")
    }

    @Test func missingMemberAndNestedPathsRenderIndexesAsNumbers() throws {
        let error = try #require(modelError(Widget.self, json(#"{"id":"w","kind":"stats","data":{"items":[{"label":"a"}]}}"#)))
        let loc = error.detailBody(root: nil)["detail"]?.arrayValue?.first?["loc"]
        #expect(loc == ["data", "items", 0, "value"])
        #expect(error.issues.first?.type == "missing")
        #expect(error.issues.first?.message == "Field required")
    }

    @Test func unionOfTooLargeAndInvalidReportsTooLarge() throws {
        // Pinned: a definition breaking a limit and a shape rule is reported tooLarge.
        let text = #"{"blocks":[{"type":"buttons","items":"# + repeated(#"{"id":"a","label":"A"}"#, 7) + #"},{"type":"heading"}]}"#
        let error = try #require(modelError(NativeContent.self, json(text)))
        #expect(error.issues.contains { $0.kind == .tooLarge })
        #expect(error.issues.contains { $0.kind == .invalid })
        #expect(error.isTooLarge)
    }
}

/// Paths in logs and one-pass reporting on a deep definition.
@Suite struct IssueReportingTests {
    @Test func pathDescriptionCannotBreakALogLine() {
        let key = "a\nb" + String(repeating: "k", count: 100)
        let issue = ValidationIssue(path: ["rows", 0, .key(key)], message: "m", type: "t", input: nil)
        #expect(!issue.pathDescription.contains("\n"))
        #expect(issue.pathDescription == "rows[0].a?b" + String(repeating: "k", count: 61))
        #expect(ValidationIssue(path: [], message: "m", type: "t", input: nil).pathDescription == "(root)")
    }

    @Test func everyBrokenBlockOfAContentIsReportedInOnePass() {
        let text = #"{"tint":"red","blocks":[{"type":"heading"},{"type":"image","url":"http://x"},{"type":"card","blocks":[{"type":"map","latitude":100,"longitude":0},{"type":"row","blocks":[{"type":"divider"}]}]}],"actions":[{"id":"","label":"L","then":[{"openUrl":"ftp://x"},{"close":false}]}]}"#
        let found = issues(NativeContent.self, json(text)).map(\.pathDescription)
        let expected = [
            "tint", "blocks[0].text", "blocks[1].url", "blocks[2].blocks[0].latitude", "blocks[2].blocks[1].blocks",
            "actions[0].id", "actions[0].then[0].openUrl", "actions[0].then[1].close",
        ]
        #expect(found == expected, "got \(found)")
    }
}

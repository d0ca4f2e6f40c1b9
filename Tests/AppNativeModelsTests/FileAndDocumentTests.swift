import AppNativeJSON
import AppNativeModels
import Testing

/// Native form file references (`contract/routes.md` §5) and document upload metadata (§2.8).
@Suite struct FileAndDocumentTests {
    @Test func resolverLooksUpEachDistinctRefOnceAndKeepsOrder() throws {
        var lookups: [String] = []
        let resolved = try FileRefResolver.resolve(["b", "a", "b", "c"]) { ref -> String? in
            lookups.append(ref)
            return ref.uppercased()
        }
        #expect(resolved == ["B", "A", "B", "C"])
        #expect(lookups == ["b", "a", "c"])
    }

    @Test func unknownRefsGive422WithDistinctRefsInFirstSeenOrder() throws {
        do {
            _ = try FileRefResolver.resolve(["x", "ok", "y", "x", "z"]) { $0 == "ok" ? 1 : nil }
            Issue.record("unknown refs must fail")
        } catch let error as ModelError {
            #expect(error.code == .unknownUploadReference)
            #expect(error.httpStatus == 422)
            #expect(error.unknownReferences == ["x", "y", "z"])
            #expect(error.detailBody() == json(#"{"detail":{"message":"Unknown or expired upload reference","refs":["x","y","z"]}}"#))
        }
    }

    @Test func lookupErrorsPropagate() {
        struct StorageDown: Error {}
        #expect(throws: StorageDown.self) { try FileRefResolver.resolve(["a"]) { _ -> Int? in throw StorageDown() } }
    }

    @Test func postedListTakesObjectsAndBareStrings() throws {
        let list = try PostedFileRef.decodeList(json(#"[{"name":"a.jpg","mime":"image/jpeg","size":0,"ref":"r1"},"r2"]"#))
        #expect(list.map(\.ref) == ["r1", "r2"])
        #expect(list.first == .file(NativeFileRef(name: "a.jpg", mime: "image/jpeg", size: 0, ref: "r1")))
    }

    @Test(arguments: [
        ("negative size", #"[{"name":"a","mime":"m","size":-1,"ref":"r"}]"#, "[0].size"),
        ("fractional size", #"[{"name":"a","mime":"m","size":1.5,"ref":"r"}]"#, "[0].size"),
        ("empty ref", #"[{"name":"a","mime":"m","size":1,"ref":""}]"#, "[0].ref"),
        ("empty bare ref", #"["ok",""]"#, "[1]"),
        ("number", #"[1]"#, "[0]"),
        ("not a list", #"{"ref":"r"}"#, "(root)"),
    ])
    func postedListRules(_ name: String, _ text: String, _ path: String) {
        do {
            _ = try PostedFileRef.decodeList(json(text))
            Issue.record("\(name): must fail")
        } catch {
            #expect(error.issues.map(\.pathDescription).contains(path), "\(name): \(error.issues)")
        }
    }

    @Test(arguments: [
        ("../../etc/passwd", "passwd"), (#"C:\temp\scan.jpg"#, "scan.jpg"), ("..", "upload"), ("a/..", "upload"),
        ("", "upload"), (".", "upload"), ("dir/", "dir"), ("a/b/", "b"), ("plain.pdf", "plain.pdf"), ("///", "upload"),
    ])
    func filenameSanitising(_ input: String, _ expected: String) {
        #expect(DocumentMetadata.sanitizedFilename(input) == expected, "filename \(input)")
    }

    @Test func documentMetadataRules() throws {
        let meta = try DocumentMetadata(
            textParts: ["device_id": "d", "user_email": "", "kind": "form", "upload_id": "u", "context": #" {"k":1} "#],
            fileName: "../x.jpg", fileContentType: nil)
        #expect(meta.userEmail == nil, "empty user_email reads as absent")
        #expect(meta.kind == "form")
        #expect(meta.context == ["k": 1])
        #expect(meta.filename == "x.jpg")
        #expect(meta.contentType == "application/octet-stream")
        let blank = try DocumentMetadata(textParts: ["device_id": "d", "context": "  "], fileName: "a", fileContentType: "image/png")
        #expect(blank.context == nil, "blank context is absent")
        #expect(blank.contentType == "image/png")
    }

    @Test(arguments: [#"[1]"#, #""x""#, "null", "42", "{broken"])
    func contextMustBeAnObject(_ context: String) throws {
        do {
            _ = try DocumentMetadata(textParts: ["device_id": "d", "context": context], fileName: "a", fileContentType: nil)
            Issue.record("context \(context) must fail")
        } catch {
            #expect(error.code == .contextNotObject, "context \(context)")
            #expect(error.httpStatus == 422)
            #expect(error.detailBody() == json(#"{"detail":"`context` must be a JSON object"}"#))
        }
    }

    @Test func missingFileAndEmptyDeviceIDAreBothReported() {
        do {
            _ = try DocumentMetadata(textParts: ["device_id": "", "context": "[1]"], fileName: nil, fileContentType: nil)
            Issue.record("must fail")
        } catch {
            #expect(error.code == .invalid, "missing parts are checked before context")
            #expect(Set(error.issues.map(\.pathDescription)) == ["file", "device_id"])
            #expect(error.issues.allSatisfy { $0.type == "missing" })
        }
    }

    @Test func aFilePartWithoutFilenameIsATextFieldAndAnsweredAsFastAPIDoes() {
        do {
            _ = try DocumentMetadata(textParts: ["device_id": "d", "file": "just text"], fileName: nil, fileContentType: nil)
            Issue.record("must fail")
        } catch {
            #expect(error.issues.map(\.pathDescription) == ["file"])
            #expect(error.issues.first?.type == "value_error")
            #expect(error.issues.first?.message == "Value error, Expected UploadFile, received: <class 'str'>")
            #expect(error.issues.first?.input == .string("just text"))
        }
    }
}

/// The documents response of `contract/routes.md` §2.8 for each kind of callback result.
@Suite struct DocumentReceiptTests {
    @Test(arguments: [
        ("nil", nil, #"{"ok":true}"#),
        ("string", #""r-1""#, #"{"ok":true,"id":"r-1"}"#),
        ("empty string", #""""#, #"{"ok":true}"#),
        ("zero", "0", #"{"ok":true,"id":0}"#),
        ("negative", "-7", #"{"ok":true,"id":-7}"#),
        ("true", "true", #"{"ok":true}"#),
        ("false", "false", #"{"ok":true}"#),
        ("float", "1.5", #"{"ok":true}"#),
        ("list", #"["x"]"#, #"{"ok":true}"#),
        ("object with string id", #"{"id":"x"}"#, #"{"ok":true,"id":"x"}"#),
        ("object with bool id", #"{"id":true}"#, #"{"ok":true}"#),
        ("object with int id", #"{"id":3,"other":1}"#, #"{"ok":true,"id":3}"#),
        ("object without id", #"{"ref":"x"}"#, #"{"ok":true}"#),
        ("null", "null", #"{"ok":true}"#),
    ] as [(String, String?, String)])
    func receipt(_ name: String, _ returned: String?, _ expected: String) {
        #expect(DocumentReceipt.body(for: returned.map { json($0) }) == json(expected), "\(name)")
    }
}

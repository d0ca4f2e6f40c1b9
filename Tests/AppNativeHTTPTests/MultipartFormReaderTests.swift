import AppNativeHTTP
import Testing

// Unsafe (test code): buffers are borrowed with their counts from `withUnsafeBytes` and its
// kin for the call that reads them, and copied before anything outlives it.

/// The form-upload rules shared by the documents routes (gateway and Swift backends).
@Suite("Multipart form reader")
struct MultipartFormReaderTests {
    static let boundary = "XyZ"
    static let body = Array((
        "--XyZ\r\nContent-Disposition: form-data; name=\"device_id\"\r\n\r\nd-1\r\n"
            + "--XyZ\r\nContent-Disposition: form-data; name=\"other\"; filename=\"o.txt\"\r\n\r\nnot kept\r\n"
            + "--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.pdf\"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1\r\n"
            + "--XyZ\r\nContent-Disposition: form-data; name=\"device_id\"\r\n\r\nd-2\r\n"
            + "--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"b.pdf\"\r\n\r\nsecond\r\n"
            + "--XyZ--\r\n"
    ).utf8)

    struct Seen: Equatable {
        var fields: [String] = []
        var fileHeads: [String] = []
        var file: [UInt8] = []
    }

    private func read(splitAt split: Int, stopAtField stop: String? = nil) throws -> (Seen, MultipartFormReader, Bool) {
        var reader = try #require(
            MultipartFormReader(contentType: "multipart/form-data; boundary=\(Self.boundary)", limits: MultipartLimits(), fileFieldName: "file"))
        var seen = Seen()
        let handle = { (event: MultipartFormReader.Event) -> Bool in
            switch event {
            case .field(let name, let value, let isFirst):
                seen.fields.append(unsafe "\(name)=\(String(decoding: value, as: UTF8.self))\(isFirst ? "" : " (again)")")
                return name != stop
            case .fileBegan(let head):
                seen.fileHeads.append(head.preferredFilename ?? "")
            case .fileContent(let bytes):
                unsafe seen.file += bytes
            }
            return true
        }
        var going = unsafe try Self.body[..<split].withUnsafeBytes { unsafe try reader.consume($0, handle) }
        if going { going = unsafe try Self.body[split...].withUnsafeBytes { unsafe try reader.consume($0, handle) } }
        if going { going = try reader.finish(handle) }
        return (seen, reader, going)
    }

    @Test("the first `file` part is the file, other file parts are skipped, the last of a field is kept, at every split")
    func partsAtEverySplit() throws {
        for split in 0...Self.body.count {
            let (seen, reader, going) = try read(splitAt: split)
            #expect(going)
            #expect(seen == Seen(fields: ["device_id=d-1", "device_id=d-2 (again)"], fileHeads: ["a.pdf"], file: Array("%PDF-1".utf8)), "split \(split)")
            #expect(reader.fields == ["device_id": "d-2"])
            #expect(reader.file?.contentType == "application/pdf")
            #expect(reader.isFinished)
        }
    }

    @Test("a handler that answers false stops the reading where it is")
    func handlerStops() throws {
        let (seen, reader, going) = try read(splitAt: Self.body.count, stopAtField: "device_id")
        #expect(!going)
        #expect(seen.fields == ["device_id=d-1"])
        #expect(seen.fileHeads.isEmpty && !reader.isFinished)
    }

    @Test("not multipart/form-data with a boundary: no reader")
    func notMultipart() {
        #expect(MultipartFormReader(contentType: nil, limits: MultipartLimits(), fileFieldName: "file") == nil)
        #expect(MultipartFormReader(contentType: "application/json", limits: MultipartLimits(), fileFieldName: "file") == nil)
    }
}

// Unsafe: a JSONReader is made only inside the document's `withUnsafeBufferPointer` and dropped
// before it returns; member offsets it records are read back through the document's own storage.

/// A JSON object that has been fully validated but is kept as its document bytes: each member's
/// name and value are located, and a Swift value is built only for the member asked for.
///
/// For small objects of which a reader wants a few members, read once: the claims of a JWT.
/// ``JSONParser`` builds a `String` for every name and string value and an array of members; this
/// view costs one byte buffer and one member table, and a lookup compares bytes in place.
///
/// Acceptance is exactly ``JSONParser``'s with the same options (the same strict grammar, duplicate
/// names after unescaping, UTF-8, depth and size limits), restricted to documents whose top-level
/// value is an object. ``object`` gives the same `JSONObject` the parser would.
public struct JSONObjectView: Sendable {
    /// One member: where its name and value lie in `bytes`.
    struct Member: Sendable {
        /// The decoded name's print (length and first and last bytes) for quick comparison.
        let print: NamePrint
        /// The decoded name: in the document when unescaped, after the document when not.
        let nameStart: Int
        /// A string's content between its quotes; a number or container's whole text.
        let valueStart: Int
        let valueEnd: Int
        let kind: Kind
    }

    enum Kind: UInt8, Sendable {
        case plainString, escapedString, number, trueLiteral, falseLiteral, null, container
    }

    /// The document, then the decoded names of members whose names had escapes.
    private let bytes: [UInt8]
    private let members: [Member]
    /// Name → position, only for objects too large for linear search.
    private let index: [[UInt8]: Int]?
    /// The parser options the document was read with; containers are re-read with them.
    private let options: JSONParser.Options

    /// Reads `document`, which the view keeps (no copy).
    ///
    /// - Returns: `nil` when the document is valid JSON whose top-level value is not an object.
    /// - Throws: ``JSONError`` for every document ``JSONParser`` refuses with the same options.
    public static func parse(_ document: [UInt8], options: JSONParser.Options = .init()) throws(JSONError) -> JSONObjectView? {
        guard document.count <= options.maxBytes else {
            throw JSONError(.tooLarge, "the input is longer than maxBytes", offset: options.maxBytes)
        }
        guard !document.isEmpty else { throw JSONError(.empty, "the input is empty", offset: 0) }
        let scanned = unsafe document.withUnsafeBufferPointer { buffer in
            Result { () throws(JSONError) -> Scan? in
                var reader = unsafe JSONReader(
                    base: buffer.baseAddress!, end: buffer.count, maxDepth: options.maxDepth,
                    allowsLoneSurrogates: options.allowsLoneSurrogates)
                do throws(JSONError) {
                    return try reader.readObjectMembers()
                } catch {
                    throw reader.preferringEncodingError(over: error)
                }
            }
        }
        guard let scan = try scanned.get() else { return nil }
        var bytes = document
        if !scan.escapedNames.isEmpty { bytes.append(contentsOf: scan.escapedNames) }
        var index: [[UInt8]: Int]?
        if scan.members.count > JSONObject.indexThreshold {
            var names = [[UInt8]: Int](minimumCapacity: scan.members.count)
            for (position, member) in scan.members.enumerated() {
                names[Array(bytes[member.nameStart..<(member.nameStart + member.print.count)])] = position
            }
            index = names
        }
        return JSONObjectView(bytes: bytes, members: scan.members, index: index, options: options)
    }

    /// Reads `document` (copied).
    public static func parse(_ document: UnsafeRawBufferPointer, options: JSONParser.Options = .init()) throws(JSONError)
        -> JSONObjectView?
    {
        unsafe try parse(Array(document), options: options)
    }

    private init(bytes: [UInt8], members: [Member], index: [[UInt8]: Int]?, options: JSONParser.Options) {
        self.bytes = bytes
        self.members = members
        self.index = index
        self.options = options
    }

    /// The number of members.
    public var count: Int { members.count }

    /// Whether a member is named `name` (compared by Unicode scalars, as `JSONObject` does).
    public func contains(_ name: String) -> Bool { position(of: name) != nil }

    /// The value of the member named `name`, or `nil`.
    public subscript(name: String) -> JSONValue? {
        guard let position = position(of: name) else { return nil }
        return value(of: members[position])
    }

    /// The member's value when it is a string.
    public func string(_ name: String) -> String? {
        guard let position = position(of: name) else { return nil }
        let member = members[position]
        switch member.kind {
        case .plainString:
            return unsafe bytes.withUnsafeBufferPointer {
                unsafe JSONReader.makeString(UnsafeBufferPointer(rebasing: $0[member.valueStart..<member.valueEnd]))
            }
        case .escapedString: return value(of: member).stringValue
        default: return nil
        }
    }

    /// The member's value when it is a number.
    public func number(_ name: String) -> JSONNumber? {
        guard let position = position(of: name), members[position].kind == .number else { return nil }
        return value(of: members[position]).numberValue
    }

    /// The member's value as a `Double` when it is a number, as ``JSONNumber/double`` reads it;
    /// `nil` when absent, not a number, or overflowing. Small integers are read in place.
    public func double(_ name: String) -> Double? {
        guard let position = position(of: name), members[position].kind == .number else { return nil }
        let member = members[position]
        let exact = unsafe bytes.withUnsafeBufferPointer {
            unsafe JSONNumber.exactSmallInteger(UnsafeBufferPointer(rebasing: $0[member.valueStart..<member.valueEnd]))
        }
        return exact ?? value(of: member).numberValue?.double
    }

    /// Whether the member is present and a string.
    public func isString(_ name: String) -> Bool {
        guard let position = position(of: name) else { return false }
        return members[position].kind == .plainString || members[position].kind == .escapedString
    }

    /// `body` applied to the UTF-8 of the member's string value (escapes decoded), or `nil` when
    /// the member is absent or not a string. Reads an unescaped string in place, without building
    /// a `String`: for comparisons against expected values.
    public func withStringBytes<Result>(_ name: String, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result? {
        guard let position = position(of: name) else { return nil }
        let member = members[position]
        switch member.kind {
        case .plainString:
            return unsafe bytes.withUnsafeBufferPointer { unsafe body(UnsafeBufferPointer(rebasing: $0[member.valueStart..<member.valueEnd])) }
        case .escapedString:
            guard var text = value(of: member).stringValue else { return nil }
            return text.withUTF8(body)
        default: return nil
        }
    }

    /// The whole object, as ``JSONParser`` would have returned it.
    public var object: JSONObject {
        var object = JSONObject()
        for member in members {
            let name = unsafe bytes.withUnsafeBufferPointer {
                unsafe JSONReader.makeString(UnsafeBufferPointer(rebasing: $0[member.nameStart..<(member.nameStart + member.print.count)]))
            }
            object[name] = value(of: member)
        }
        return object
    }

    private func position(of name: String) -> Int? {
        var name = name
        return name.withUTF8 { wanted -> Int? in
            if let index { return unsafe index[Array(wanted)] }
            let print = unsafe NamePrint(wanted)
            return unsafe bytes.withUnsafeBufferPointer { bytes -> Int? in
                for (position, member) in members.enumerated() where member.print == print {
                    if print.isWholeName { return position }
                    var same = true
                    for offset in 0..<print.count where unsafe bytes[member.nameStart + offset] != wanted[offset] {
                        same = false
                        break
                    }
                    if same { return position }
                }
                return nil
            }
        }
    }

    private func value(of member: Member) -> JSONValue {
        switch member.kind {
        case .trueLiteral: return .bool(true)
        case .falseLiteral: return .bool(false)
        case .null: return .null
        case .plainString, .number:
            let text = unsafe bytes.withUnsafeBufferPointer {
                unsafe JSONReader.makeString(UnsafeBufferPointer(rebasing: $0[member.valueStart..<member.valueEnd]))
            }
            return member.kind == .number ? .number(JSONNumber(uncheckedText: text)) : .string(text)
        case .escapedString, .container:
            // Read again from the document: it was validated as exactly this value, so this
            // cannot fail. A string is re-read from its opening quote.
            let start = member.kind == .container ? member.valueStart : member.valueStart - 1
            let end = member.kind == .container ? member.valueEnd : member.valueEnd + 1
            return unsafe bytes.withUnsafeBufferPointer { buffer in
                var reader = unsafe JSONReader(
                    base: buffer.baseAddress!, end: end, maxDepth: max(options.maxDepth - 1, 0),
                    allowsLoneSurrogates: options.allowsLoneSurrogates)
                reader.index = start
                do {
                    return try reader.readValue()
                } catch {
                    preconditionFailure("JSONObjectView: a validated member no longer reads: \(error)")
                }
            }
        }
    }

    /// What the reader found: the members and the decoded names that had escapes.
    struct Scan {
        var members: [Member] = []
        var escapedNames: [UInt8] = []
    }
}

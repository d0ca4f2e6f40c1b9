// Unsafe (JSON scanning): every read of `base[i]` is preceded by a check `i < end`, and a reader
// exists only inside the call that lent `base` (see JSONReader).

/// The byte-level state machine behind ``JSONParser``: one document, read once, front to back.
///
/// Containers are tracked on an explicit stack instead of by recursion, so depth costs heap, not
/// call stack. Elements and members of all open containers share two scratch stacks; closing a
/// container copies its slice out once, so each array and object costs one exact allocation
/// rather than a series of regrowths.
@safe
struct JSONReader {
    // @safe: made only by JSONParser inside the scope in which `base..<base+end` is valid, and never
    // kept past that call; every read is checked against `end` first.
    let base: UnsafePointer<UInt8>
    let end: Int
    let maxDepth: Int
    let allowsLoneSurrogates: Bool
    var index = 0
    /// Escaped strings are decoded here; reused so a document allocates it at most once.
    var scratch: [UInt8] = []

    init(base: UnsafePointer<UInt8>, end: Int, maxDepth: Int, allowsLoneSurrogates: Bool) {
        unsafe self.base = base
        self.end = end
        self.maxDepth = maxDepth
        self.allowsLoneSurrogates = allowsLoneSurrogates
    }

    /// An open array or object.
    private struct Frame {
        var isObject = false
        /// Where this container's first element or member sits in the shared scratch stack.
        var start = 0
        /// Where this object's first name print sits in the shared print stack.
        var printStart = 0
        /// Name → position, for duplicate checks once the object outgrows linear search.
        var names: [BytewiseString: Int]?
        /// The name of the member whose value is being read.
        var pendingName = ""
    }

    // RFC 8259 §2: ws = *( %x20 / %x09 / %x0A / %x0D )
    @inline(__always)
    mutating func skipWhitespace() {
        while index < end {
            let byte = unsafe base[index]
            guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return }
            index += 1
        }
    }

    /// RFC 8259 §2: `JSON-text = ws value ws`.
    mutating func readDocument() throws(JSONError) -> JSONValue {
        try readDocumentStart()
        let value = try readValue()
        try readDocumentEnd()
        return value
    }

    /// The leading part of a JSON text: no byte order mark, optional whitespace, then something.
    mutating func readDocumentStart() throws(JSONError) {
        if end >= 3, unsafe base[0] == 0xEF, unsafe base[1] == 0xBB, unsafe base[2] == 0xBF {
            // RFC 8259 §8.1: implementations MUST NOT add a byte order mark; a reader that skips
            // it and one that refuses it would disagree on the same bytes.
            throw JSONError(.syntax, "a byte order mark is not allowed", offset: 0)
        }
        skipWhitespace()
        guard index < end else { throw JSONError(.empty, "the input holds only whitespace", offset: index) }
    }

    /// The trailing part of a JSON text: only whitespace after the value.
    mutating func readDocumentEnd() throws(JSONError) {
        skipWhitespace()
        guard index == end else { throw unexpectedByte(.trailingData, "only whitespace may follow the value") }
    }

    /// Reads one value at `index` (after optional whitespace), nested at most `maxDepth` deep.
    mutating func readValue() throws(JSONError) -> JSONValue {
        // The innermost open container lives in `current`; only the ones around it go on the
        // heap stack, so a flat object or array (every JWT header and claim set) never allocates it.
        var current = Frame()
        var enclosing: [Frame] = []
        var depth = 0
        var elements: [JSONValue] = []
        var members: [JSONObject.Member] = []
        var prints: [NamePrint] = []
        var value: JSONValue

        readValue: while true {
            skipWhitespace()
            guard index < end else {
                throw JSONError(.syntax, "the input ends where a value is expected", offset: index)
            }
            switch unsafe base[index] {
            case UInt8(ascii: "{"):
                guard depth < maxDepth else {
                    throw JSONError(.tooDeep, "nesting is deeper than maxDepth", offset: index)
                }
                index += 1
                skipWhitespace()
                if index < end, unsafe base[index] == UInt8(ascii: "}") {
                    index += 1
                    value = .object(JSONObject())
                } else {
                    if depth > 0 { enclosing.append(current) }
                    depth += 1
                    if members.capacity == 0 {
                        members.reserveCapacity(JSONObject.indexThreshold)
                        prints.reserveCapacity(JSONObject.indexThreshold)
                    }
                    current = Frame(isObject: true, start: members.count, printStart: prints.count)
                    try readMemberName(of: &current, members: members, prints: &prints, isFirst: true)
                    continue readValue
                }
            case UInt8(ascii: "["):
                guard depth < maxDepth else {
                    throw JSONError(.tooDeep, "nesting is deeper than maxDepth", offset: index)
                }
                index += 1
                skipWhitespace()
                if index < end, unsafe base[index] == UInt8(ascii: "]") {
                    index += 1
                    value = .array([])
                } else {
                    if depth > 0 { enclosing.append(current) }
                    depth += 1
                    if elements.capacity == 0 { elements.reserveCapacity(16) }
                    current = Frame(isObject: false, start: elements.count)
                    continue readValue
                }
            case UInt8(ascii: "\""):
                value = .string(try readString())
            case UInt8(ascii: "t"):
                try readLiteral(0x74_72_75_65, length: 4, "expected 'true'")
                value = .bool(true)
            case UInt8(ascii: "f"):
                try readLiteral(0x66_61_6C_73_65, length: 5, "expected 'false'")
                value = .bool(false)
            case UInt8(ascii: "n"):
                try readLiteral(0x6E_75_6C_6C, length: 4, "expected 'null'")
                value = .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                let start = index
                index = unsafe try JSONNumber.scan(base, from: start, end: end)
                let text = unsafe Self.makeString(UnsafeBufferPointer(start: base + start, count: index - start))
                value = .number(JSONNumber(uncheckedText: text))
            case UInt8(ascii: "+"), UInt8(ascii: "."):
                throw JSONError(.invalidNumber, "a number must start with a digit or '-'", offset: index)
            default:
                throw unexpectedByte(.syntax, "expected a value")
            }

            // A value is complete: hand it to the enclosing container, closing every container
            // that ends right after it.
            while depth > 0 {
                skipWhitespace()
                guard index < end else {
                    throw JSONError(.syntax, "the input ends inside an array or object", offset: index)
                }
                let byte = unsafe base[index]
                if current.isObject {
                    members.append(JSONObject.Member(key: current.pendingName, value: value))
                    if byte == UInt8(ascii: ",") {
                        index += 1
                        skipWhitespace()
                        try readMemberName(of: &current, members: members, prints: &prints, isFirst: false)
                        continue readValue
                    }
                    guard byte == UInt8(ascii: "}") else {
                        throw unexpectedByte(.syntax, "expected ',' or '}' after a member")
                    }
                    index += 1
                    prints.removeSubrange(current.printStart...)
                    value = .object(
                        JSONObject(uncheckedMembers: Self.take(&members, from: current.start), index: current.names))
                } else {
                    elements.append(value)
                    if byte == UInt8(ascii: ",") {
                        index += 1
                        continue readValue
                    }
                    guard byte == UInt8(ascii: "]") else {
                        throw unexpectedByte(.syntax, "expected ',' or ']' after an element")
                    }
                    index += 1
                    value = .array(Self.take(&elements, from: current.start))
                }
                depth -= 1
                if depth > 0 { current = enclosing.removeLast() }
            }
            break
        }
        return value
    }

    /// Moves `stack[start...]` out of a scratch stack.
    @inline(__always)
    private static func take<Element>(_ stack: inout [Element], from start: Int) -> [Element] {
        if start == 0 {
            // The whole stack is this container's: hand over the buffer instead of copying it.
            var taken: [Element] = []
            swap(&taken, &stack)
            return taken
        }
        let taken = Array(stack[start...])
        stack.removeSubrange(start...)
        return taken
    }

    /// RFC 8259 §4: `member = string name-separator value`. Reads the name and the `:` into
    /// `frame.pendingName`, refusing a name the object already has.
    ///
    /// `members` holds the object's finished members from `frame.start`, `prints` their name
    /// prints from `frame.printStart` while the object is small enough for linear search.
    private mutating func readMemberName(
        of frame: inout Frame,
        members: [JSONObject.Member],
        prints: inout [NamePrint],
        isFirst: Bool
    ) throws(JSONError) {
        guard index < end, unsafe base[index] == UInt8(ascii: "\"") else {
            throw unexpectedByte(
                .syntax, isFirst ? "expected a member name or '}'" : "expected a member name after ','")
        }
        let nameOffset = index
        let (name, print) = unsafe try readString { bytes in unsafe (Self.makeString(bytes), NamePrint(bytes)) }
        let position = members.count - frame.start
        if _fastPath(frame.names == nil) {
            let isDuplicate = unsafe prints.withUnsafeBufferPointer { prints in
                for candidate in frame.printStart..<prints.count where unsafe prints[candidate] == print {
                    if print.isWholeName
                        || BytewiseString.same(members[frame.start + candidate - frame.printStart].key, name)
                    {
                        return true
                    }
                }
                return false
            }
            guard !isDuplicate else { throw Self.duplicate(at: nameOffset) }
            if position < JSONObject.indexThreshold {
                prints.append(print)
            } else {
                var names = [BytewiseString: Int](minimumCapacity: position * 2)
                for existing in frame.start..<members.count {
                    names[BytewiseString(members[existing].key)] = existing - frame.start
                }
                names[BytewiseString(name)] = position
                frame.names = names
            }
        } else {
            let key = BytewiseString(name)
            guard frame.names![key] == nil else { throw Self.duplicate(at: nameOffset) }
            frame.names![key] = position
        }
        frame.pendingName = name
        skipWhitespace()
        guard index < end, unsafe base[index] == UInt8(ascii: ":") else {
            throw unexpectedByte(.syntax, "expected ':' after a member name")
        }
        index += 1
    }

    static func duplicate(at offset: Int) -> JSONError {
        // RFC 8259 §4 leaves duplicate names to the implementation; JOSE (RFC 7515 §5.2,
        // RFC 8725 §3.11) needs them refused, or two readers could see different claims.
        JSONError(.duplicateKey, "an object repeats a member name", offset: offset)
    }

    /// Reads `true`, `false` or `null`, given as big-endian ASCII packed into `expected`.
    @inline(__always)
    mutating func readLiteral(_ expected: UInt64, length: Int, _ reason: String) throws(JSONError) {
        guard end - index >= length else { throw JSONError(.syntax, reason, offset: index) }
        var actual: UInt64 = 0
        for offset in 0..<length {
            actual = unsafe actual << 8 | UInt64(base[index + offset])
        }
        guard actual == expected else { throw JSONError(.syntax, reason, offset: index) }
        index += length
    }

    /// The error for the byte at `index`.
    func unexpectedByte(_ code: JSONError.Code, _ reason: String) -> JSONError {
        JSONError(code, reason, offset: index)
    }

    /// `error`, unless the input holds ill-formed UTF-8 anywhere: then that, at its offset.
    ///
    /// Only failures pay for this scan. A document that parses has been fully validated on the
    /// way (string contents are checked, and everything outside strings must be ASCII), so
    /// together this makes ``JSONError/Code/invalidUTF8`` the verdict for every ill-formed input,
    /// whatever else is wrong with it.
    func preferringEncodingError(over error: JSONError) -> JSONError {
        guard error.code != .invalidUTF8 else { return error }
        var position = 0
        while position < end {
            if end - position >= 8,
                unsafe UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0
            {
                position += 8
                continue
            }
            let length = utf8SequenceLength(at: position)
            guard length > 0 else { return JSONError(.invalidUTF8, "ill-formed UTF-8", offset: position) }
            position += length
        }
        return error
    }
}

// Unsafe (the header store's reads and writes): `storage` is always `bytes` borrowed for the
// closure, and every entry's offsets lie inside it (they are set by `append` and the parser only);
// `write(into:)` writes `serializedCount` bytes into a buffer of at least that size. See
// docs/memory-safety.md.

/// An ordered list of field lines (RFC 9110 §5), as received or to be sent.
///
/// Names keep the case they were received or added with and compare ASCII-case-insensitively
/// (RFC 9110 §5.1). Values are stored without surrounding whitespace. Duplicates are kept as
/// separate fields in their original order; nothing is combined.
///
/// Strings are ISO-8859-1: each Unicode scalar U+0000–U+00FF stands for one byte, so obs-text
/// bytes (0x80–0xFF) survive a parse and a serialisation unchanged.
///
/// The fields live as bytes in one buffer, exactly as they go on the wire: a parsed section is
/// one copy, lookups compare bytes without allocating, and `Field` strings are only built when
/// a field is read. Because the bytes are what will be sent, every insertion is checked:
/// - a name must be a token (RFC 9110 §5.6.2); anything else is a programming error and stops
///   the process (names come from code, configuration checked at start-up, or a parser);
/// - a value has CR, LF, NUL and every other control except HTAB replaced by SP (RFC 9110 §5.5
///   allows exactly this), and leading and trailing whitespace removed, so no value can end a
///   line or inject a field. Scalars above U+00FF have no Latin-1 byte and are stored as their
///   UTF-8 bytes, which are all obs-text.
public struct HTTPHeaders: Sendable, Hashable, RandomAccessCollection, ExpressibleByDictionaryLiteral,
    CustomStringConvertible
{
    /// One field line.
    public struct Field: Sendable, Hashable {
        /// The field name, a token (RFC 9110 §5.1), in the case it was received or added with.
        public var name: String
        /// The field value without leading or trailing whitespace.
        public var value: String

        /// - Parameters:
        ///   - name: a token.
        ///   - value: the value.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// Where one field's name and value sit in `bytes`.
    struct Entry: Sendable {
        var nameStart: UInt32
        var nameEnd: UInt32
        var valueStart: UInt32
        var valueEnd: UInt32
        /// Whether the value holds bytes ≥ 0x80, which need Latin-1 decoding.
        var hasHighBytes: Bool
    }

    /// Names and values back to back; bytes of removed or replaced fields may stay behind.
    private(set) var bytes: [UInt8]
    private(set) var entries: [Entry]

    /// An empty list.
    public init() {
        bytes = []
        entries = []
    }

    /// The given fields in order.
    public init(_ fields: [Field]) {
        self.init()
        for field in fields { add(name: field.name, value: field.value) }
    }

    /// Fields from `(name, value)` pairs in order; duplicate names are kept.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init()
        for (name, value) in elements { add(name: name, value: value) }
    }

    /// The fields a scanner found in `head`: one copy of the bytes they span.
    init(scanned head: UnsafePointer<UInt8>, _ fields: FieldList) {
        var entries: [Entry] = []
        guard let first = fields.first, let last = fields.last else {
            self.bytes = []
            self.entries = entries
            return
        }
        let base = first.nameStart
        entries.reserveCapacity(fields.count)
        for field in fields {
            entries.append(
                Entry(
                    nameStart: UInt32(truncatingIfNeeded: field.nameStart - base),
                    nameEnd: UInt32(truncatingIfNeeded: field.nameEnd - base),
                    valueStart: UInt32(truncatingIfNeeded: field.valueStart - base),
                    valueEnd: UInt32(truncatingIfNeeded: field.valueEnd - base),
                    hasHighBytes: field.hasHighBytes
                )
            )
        }
        self.bytes = unsafe Array(UnsafeBufferPointer(start: head + base, count: last.valueEnd - base))
        self.entries = entries
    }

    // MARK: Collection

    /// The position of the first field (0).
    public var startIndex: Int { entries.startIndex }
    /// One past the position of the last field.
    public var endIndex: Int { entries.endIndex }

    /// The field at `position`; its strings are built on each access.
    public subscript(position: Int) -> Field {
        let entry = entries[position]
        return unsafe bytes.withUnsafeBufferPointer { storage in
            unsafe Field(name: Self.name(storage, entry), value: Self.value(storage, entry))
        }
    }

    // MARK: Lookup

    /// The value of the first field named `name`, or nil.
    public func first(_ name: String) -> String? {
        unsafe withMatches(of: name) { storage, entry in
            unsafe Self.value(storage, entry)
        }.first
    }

    /// The values of every field named `name`, in order.
    public func values(_ name: String) -> [String] {
        unsafe withMatches(of: name, all: true) { storage, entry in unsafe Self.value(storage, entry) }
    }

    /// Lends the value bytes of the first field named `name` to `body`, without building a
    /// `String` (a 1.5 KB token is read on every request), with whether they are all ASCII (known
    /// since the field was parsed or added: no second scan). Returns whether there was such a
    /// field. The bytes are as stored: obs-text (0x80–0xFF) is Latin-1, one byte per character.
    /// Not generic on purpose: across modules a generic version runs unspecialised, slower than
    /// the string it saves.
    public func withFirstValueBytes(_ name: String, _ body: (_ value: UnsafeBufferPointer<UInt8>, _ isASCII: Bool) -> Void) -> Bool {
        unsafe Self.withBytes(of: name) { query in
            unsafe bytes.withUnsafeBufferPointer { storage in
                guard let entry = entries.first(where: { unsafe Self.nameMatches(storage, $0, query) }) else { return false }
                unsafe body(Self.valueBytes(storage, entry), !entry.hasHighBytes)
                return true
            }
        }
    }

    /// `withFirstValueBytes` for every field named `name`, in order, while `body` returns true
    /// (the `Cookie` fields of a request: looked up in place on every request that carries one).
    public func forEachValueBytes(_ name: String, _ body: (_ value: UnsafeBufferPointer<UInt8>, _ isASCII: Bool) -> Bool) {
        unsafe Self.withBytes(of: name) { query in
            unsafe bytes.withUnsafeBufferPointer { storage in
                for entry in entries where unsafe Self.nameMatches(storage, entry, query) {
                    guard unsafe body(Self.valueBytes(storage, entry), !entry.hasHighBytes) else { return }
                }
            }
        }
    }

    /// The first `Content-Length` as a decimal number, read from the field bytes (no `String` per
    /// response); nil when absent, empty, not all digits, or over 18 digits. Received heads were
    /// already checked by the parser; this reads heads the server itself is about to send.
    public var firstContentLength: Int? {
        var length: Int?
        _ = unsafe withFirstValueBytes("Content-Length") { digits, _ in
            guard digits.count <= 18 else { return }
            length = unsafe ByteClass.decimalValue(digits).map { Int($0) }
        }
        return length
    }

    /// Whether a field named `name` is present.
    public func contains(_ name: String) -> Bool {
        firstIndex(of: name) != nil
    }

    /// How many fields are named `name`.
    public func count(of name: String) -> Int {
        unsafe withMatches(of: name, all: true) { _, _ in () }.count
    }

    /// The position of the first field named `name`.
    public func firstIndex(of name: String) -> Int? {
        unsafe Self.withBytes(of: name) { query in
            unsafe bytes.withUnsafeBufferPointer { storage in
                entries.firstIndex { unsafe Self.nameMatches(storage, $0, query) }
            }
        }
    }

    /// Whether any field named `name` lists `token` as one of its comma-separated elements,
    /// compared case-insensitively (RFC 9110 §5.6.1 lists; used for Connection, RFC 9110 §7.6.1).
    public func containsToken(_ token: String, inField name: String) -> Bool {
        unsafe containsListElement(inField: name) { unsafe ListElements.equalsIgnoringCase($0, token) }
    }

    /// Whether any field named `name` (`Accept`, for one) lists an element whose media type,
    /// before its `;` parameters, is `mediaType`, compared case-insensitively (RFC 9110 §8.3.1,
    /// §12.5.1): `text/event-stream` is in `Text/Event-Stream;q=0.9, */*`. Read in place.
    public func containsMediaType(_ mediaType: String, inField name: String) -> Bool {
        unsafe containsListElement(inField: name) { element in
            var end = unsafe element.firstIndex(of: ASCII.semicolon) ?? element.count
            while unsafe end > 0 && ByteClass.isWhitespace(element[end - 1]) { end -= 1 }
            return unsafe ListElements.equalsIgnoringCase(UnsafeBufferPointer(rebasing: element[..<end]), mediaType)
        }
    }

    /// Whether `matches` holds for any comma-separated element of any field named `name`, read
    /// in place and stopping at the first that does.
    private func containsListElement(inField name: String, _ matches: (UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
        var found = false
        unsafe forEachValueBytes(name) { value, _ in
            unsafe ListElements.forEach(in: value) { element in
                found = unsafe matches(element)
                return !found
            }
            return !found
        }
        return found
    }

    // MARK: Mutation

    /// Appends a field; existing fields with the same name stay.
    /// - Parameters:
    ///   - name: a token; anything else stops the process.
    ///   - value: the value, normalised as the type documentation describes.
    public mutating func add(name: String, value: String) {
        entries.append(makeEntry(name: name, value: value))
    }

    /// Appends a field whose value is given as Latin-1 bytes (one byte per character), normalised
    /// like `add(name:value:)`: for values composed on the request path without a `String`.
    public mutating func add(name: String, valueBytes: UnsafeBufferPointer<UInt8>) {
        unsafe entries.append(makeEntry(name: name, valueBytes: valueBytes))
    }

    /// Inserts a field at `index`.
    public mutating func insert(name: String, value: String, at index: Int) {
        entries.insert(makeEntry(name: name, value: value), at: index)
    }

    /// Sets the value of the first field named `name` and removes the others, or appends the
    /// field when there is none.
    public mutating func replaceOrAdd(name: String, value: String) {
        guard let index = firstIndex(of: name) else {
            add(name: name, value: value)
            return
        }
        let replacement = makeEntry(name: name, value: value)
        entries[index].valueStart = replacement.valueStart
        entries[index].valueEnd = replacement.valueEnd
        entries[index].hasHighBytes = replacement.hasHighBytes
        var position = 0
        unsafe Self.withBytes(of: name) { query in
            let storage = bytes
            unsafe storage.withUnsafeBufferPointer { storage in
                entries.removeAll { entry in
                    defer { position += 1 }
                    return unsafe position != index && Self.nameMatches(storage, entry, query)
                }
            }
        }
    }

    /// Removes every field named `name`.
    public mutating func remove(_ name: String) {
        unsafe Self.withBytes(of: name) { query in
            unsafe removeEntries { storage, entry in unsafe Self.nameMatches(storage, entry, query) }
        }
    }

    /// Removes every field for which `shouldRemove` is true.
    public mutating func removeAll(where shouldRemove: (Field) throws -> Bool) rethrows {
        let storage = bytes
        unsafe try storage.withUnsafeBufferPointer { storage in
            try entries.removeAll { entry in
                unsafe try shouldRemove(Field(name: Self.name(storage, entry), value: Self.value(storage, entry)))
            }
        }
    }

    /// Removes every field whose name bytes satisfy `shouldRemove`: no `String` is built, for
    /// checks that run on every field of every request.
    public mutating func removeAll(whereName shouldRemove: (UnsafeBufferPointer<UInt8>) -> Bool) {
        unsafe removeEntries { storage, entry in unsafe shouldRemove(Self.nameBytes(storage, entry)) }
    }

    /// Removes every field named like one of `names` (ASCII case-insensitive), in one pass.
    public mutating func remove(anyOf names: [[UInt8]]) {
        unsafe removeEntries { storage, entry in
            let name = unsafe Self.nameBytes(storage, entry)
            for query in names where query.count == name.count {
                if unsafe query.withUnsafeBufferPointer({ unsafe Self.equalsIgnoringCase(name, $0) }) { return true }
            }
            return false
        }
    }

    /// Appends every field of `other` in order. Its names and values were validated and
    /// normalised when they were added, so they are copied as bytes.
    public mutating func append(contentsOf other: HTTPHeaders) {
        guard !other.entries.isEmpty else { return }
        let offset = bytes.count
        precondition(offset + other.bytes.count <= Int(UInt32.max), "HTTP field section larger than 4 GiB")
        let shift = UInt32(offset)
        bytes.append(contentsOf: other.bytes)
        entries.reserveCapacity(entries.count + other.entries.count)
        for entry in other.entries {
            entries.append(
                Entry(
                    nameStart: entry.nameStart + shift, nameEnd: entry.nameEnd + shift,
                    valueStart: entry.valueStart + shift, valueEnd: entry.valueEnd + shift,
                    hasHighBytes: entry.hasHighBytes))
        }
    }

    /// Reserves room for `count` fields.
    public mutating func reserveCapacity(_ count: Int) {
        entries.reserveCapacity(count)
    }

    /// Reserves room for `fields` more fields holding `bytes` more name and value bytes: a list
    /// about to grow by several fields (a request on its way upstream) is copied or grown once.
    public mutating func reserveAdditionalCapacity(fields: Int, bytes byteCount: Int) {
        entries.reserveCapacity(entries.count + fields)
        bytes.reserveCapacity(bytes.count + byteCount)
    }

    /// The name and value bytes stored (with any left behind by removals): a size hint for
    /// `reserveAdditionalCapacity`.
    public var storedByteCount: Int { bytes.count }

    /// One `Name: value` per line.
    public var description: String {
        map { "\($0.name): \($0.value)" }.joined(separator: "\n")
    }

    // MARK: Equality

    /// Same fields in the same order, names compared exactly.
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        guard lhs.entries.count == rhs.entries.count else { return false }
        return unsafe lhs.bytes.withUnsafeBufferPointer { left in
            unsafe rhs.bytes.withUnsafeBufferPointer { right in
                zip(lhs.entries, rhs.entries).allSatisfy { a, b in
                    unsafe nameBytes(left, a).elementsEqual(nameBytes(right, b))
                        && valueBytes(left, a).elementsEqual(valueBytes(right, b))
                }
            }
        }
    }

    /// Hashes what `==` compares: names and values in order.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(entries.count)
        unsafe bytes.withUnsafeBufferPointer { storage in
            for entry in entries {
                unsafe hasher.combine(bytes: UnsafeRawBufferPointer(Self.nameBytes(storage, entry)))
                hasher.combine(0x3A as UInt8)
                unsafe hasher.combine(bytes: UnsafeRawBufferPointer(Self.valueBytes(storage, entry)))
            }
        }
    }

    // MARK: Names

    /// Whether two field names are equal ignoring ASCII case (RFC 9110 §5.1). Does not allocate.
    public static func nameEquals(_ lhs: String, _ rhs: String) -> Bool {
        // utf8.count is O(1) for native strings and settles most mismatches.
        guard lhs.utf8.count == rhs.utf8.count else { return false }
        return unsafe withBytes(of: lhs) { left in unsafe withBytes(of: rhs) { right in unsafe equalsIgnoringCase(left, right) } }
    }

    /// Whether `name` is a field name: a non-empty token (RFC 9110 §5.1, §5.6.2:
    /// `token = 1*tchar`, `tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." /
    /// "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA`). Only such names can be added: check a
    /// name a peer chose with this before `add(name:value:)`, which traps on any other.
    public static func isValidFieldName(_ name: String) -> Bool {
        unsafe withBytes(of: name) { unsafe !$0.isEmpty && $0.allSatisfy(ByteClass.isTchar) }
    }

    /// Whether `value` is a field value as RFC 9110 §5.5 allows it on the wire: visible
    /// characters, SP, HTAB and obs-text only (`field-vchar = VCHAR / obs-text`), so no CR, LF,
    /// NUL or other control. Scalars above U+00FF count as obs-text (stored as their UTF-8 bytes).
    public static func isValidFieldValue(_ value: String) -> Bool {
        value.unicodeScalars.allSatisfy { scalar in
            scalar.value > 0xFF || ByteClass.isFieldVchar(UInt8(scalar.value)) || scalar.value == 0x20 || scalar.value == 0x09
        }
    }

    // MARK: Module internals

    /// The fields for which `keep` returns true; the byte buffer is shared, not copied.
    func filtered(reservingFields extraFields: Int = 0, _ keep: (UnsafeBufferPointer<UInt8>, Entry) -> Bool) -> HTTPHeaders {
        var result = self
        result.entries = []
        // Two more for what callers put back (Host, a framing field, `Connection: upgrade`).
        result.entries.reserveCapacity(entries.count + 2 + extraFields)
        unsafe bytes.withUnsafeBufferPointer { storage in
            for entry in entries where unsafe keep(storage, entry) { result.entries.append(entry) }
        }
        return result
    }

    /// Moves the field at `index` to the front.
    mutating func moveToFront(_ index: Int) {
        guard index > 0 else { return }
        let entry = entries.remove(at: index)
        entries.insert(entry, at: 0)
    }

    /// Appends every field as `name: value CRLF` (no final CRLF).
    func appendWire(to buffer: inout [UInt8]) {
        // Sized first, then written with plain copies: one growth of `buffer` instead of six
        // appends (each with its capacity and uniqueness checks) per field.
        var total = 0
        for entry in entries {
            total += Int(entry.nameEnd - entry.nameStart) + Int(entry.valueEnd - entry.valueStart) + 4
        }
        let start = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: total))
        unsafe bytes.withUnsafeBufferPointer { storage in
            unsafe buffer.withUnsafeMutableBufferPointer { out in
                var position = start
                for entry in entries {
                    let name = unsafe Self.nameBytes(storage, entry)
                    let value = unsafe Self.valueBytes(storage, entry)
                    _ = unsafe UnsafeMutableBufferPointer(rebasing: out[position...]).update(fromContentsOf: name)
                    position += name.count
                    unsafe out[position] = ASCII.colon
                    unsafe out[position + 1] = ASCII.sp
                    position += 2
                    _ = unsafe UnsafeMutableBufferPointer(rebasing: out[position...]).update(fromContentsOf: value)
                    position += value.count
                    unsafe out[position] = ASCII.cr
                    unsafe out[position + 1] = ASCII.lf
                    position += 2
                }
            }
        }
    }

    static func nameBytes(_ storage: UnsafeBufferPointer<UInt8>, _ entry: Entry) -> UnsafeBufferPointer<UInt8> {
        unsafe UnsafeBufferPointer(rebasing: storage[Int(entry.nameStart)..<Int(entry.nameEnd)])
    }

    static func valueBytes(_ storage: UnsafeBufferPointer<UInt8>, _ entry: Entry) -> UnsafeBufferPointer<UInt8> {
        unsafe UnsafeBufferPointer(rebasing: storage[Int(entry.valueStart)..<Int(entry.valueEnd)])
    }

    /// Calls `body` with the UTF-8 bytes of `text` without copying native strings.
    static func withBytes<Result>(of text: String, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        if let result = unsafe text.utf8.withContiguousStorageIfAvailable(body) { return result }
        return unsafe Array(text.utf8).withUnsafeBufferPointer(body)
    }

    static func equalsIgnoringCase(_ lhs: UnsafeBufferPointer<UInt8>, _ rhs: UnsafeBufferPointer<UInt8>) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for index in 0..<lhs.count where unsafe lhs[index] != rhs[index] {
            if unsafe ByteClass.lowercased(lhs[index]) != ByteClass.lowercased(rhs[index]) { return false }
        }
        return true
    }

    // MARK: Private

    private static func name(_ storage: UnsafeBufferPointer<UInt8>, _ entry: Entry) -> String {
        unsafe String(decoding: nameBytes(storage, entry), as: UTF8.self)
    }

    private static func value(_ storage: UnsafeBufferPointer<UInt8>, _ entry: Entry) -> String {
        unsafe Latin1.string(valueBytes(storage, entry), containsHighBytes: entry.hasHighBytes)
    }

    private static func nameMatches(
        _ storage: UnsafeBufferPointer<UInt8>,
        _ entry: Entry,
        _ query: UnsafeBufferPointer<UInt8>
    ) -> Bool {
        unsafe Int(entry.nameEnd - entry.nameStart) == query.count && equalsIgnoringCase(nameBytes(storage, entry), query)
    }

    /// `transform` applied to the first (or every) field named `name`.
    private func withMatches<Result>(
        of name: String,
        all: Bool = false,
        _ transform: (UnsafeBufferPointer<UInt8>, Entry) -> Result
    ) -> [Result] {
        unsafe Self.withBytes(of: name) { query in
            unsafe bytes.withUnsafeBufferPointer { storage in
                var results: [Result] = []
                for entry in entries where unsafe Self.nameMatches(storage, entry, query) {
                    unsafe results.append(transform(storage, entry))
                    if !all { break }
                }
                return results
            }
        }
    }

    private mutating func removeEntries(_ shouldRemove: (UnsafeBufferPointer<UInt8>, Entry) -> Bool) {
        // A second reference to the buffer (not a copy) so the entries can change meanwhile.
        let storage = bytes
        unsafe storage.withUnsafeBufferPointer { storage in
            entries.removeAll { unsafe shouldRemove(storage, $0) }
        }
    }

    /// Appends the name and the normalised value to `bytes` and describes them.
    private mutating func makeEntry(name: String, value: String) -> Entry {
        let nameStart = appendName(name)
        let valueStart = bytes.count
        // Fast path, the common case (cookies, assertions, identity values): a contiguous ASCII
        // value with nothing to replace is checked in place and appended in one copy, instead of
        // being normalised byte by byte inside the growing buffer.
        let isCleanASCII = unsafe value.utf8.withContiguousStorageIfAvailable { utf8 -> Bool in
            guard unsafe ByteClass.isPrintableASCII(utf8) else { return false }
            unsafe bytes.append(contentsOf: utf8)
            return true
        } ?? false
        if !isCleanASCII { Latin1.append(value, to: &bytes) }
        return finishEntry(nameStart: nameStart, valueStart: valueStart, isCleanASCII: isCleanASCII)
    }

    /// `makeEntry(name:value:)` for a value given as Latin-1 bytes.
    private mutating func makeEntry(name: String, valueBytes: UnsafeBufferPointer<UInt8>) -> Entry {
        let nameStart = appendName(name)
        let valueStart = bytes.count
        let isCleanASCII = unsafe ByteClass.isPrintableASCII(valueBytes)
        unsafe bytes.append(contentsOf: valueBytes)
        return finishEntry(nameStart: nameStart, valueStart: valueStart, isCleanASCII: isCleanASCII)
    }

    private mutating func appendName(_ name: String) -> Int {
        let nameStart = bytes.count
        unsafe Self.withBytes(of: name) { name in
            unsafe precondition(!name.isEmpty && name.allSatisfy(ByteClass.isTchar), "HTTP field name must be a token")
            unsafe bytes.append(contentsOf: name)
        }
        return nameStart
    }

    /// Normalises the value appended since `valueStart` (controls other than HTAB become SP unless
    /// it is known clean), trims it, and describes the field.
    private mutating func finishEntry(nameStart: Int, valueStart: Int, isCleanASCII: Bool) -> Entry {
        var high: UInt8 = 0
        if !isCleanASCII {
            for index in valueStart..<bytes.count {
                let byte = bytes[index]
                high |= byte
                if !ByteClass.isFieldVchar(byte) && byte != ASCII.htab { bytes[index] = ASCII.sp }
            }
        }
        var first = valueStart
        var end = bytes.count
        while first < end && ByteClass.isWhitespace(bytes[first]) { first += 1 }
        while end > first && ByteClass.isWhitespace(bytes[end - 1]) { end -= 1 }
        precondition(bytes.count <= Int(UInt32.max), "HTTP field section larger than 4 GiB")
        return Entry(
            nameStart: UInt32(truncatingIfNeeded: nameStart),
            nameEnd: UInt32(truncatingIfNeeded: valueStart),
            valueStart: UInt32(truncatingIfNeeded: first),
            valueEnd: UInt32(truncatingIfNeeded: end),
            hasHighBytes: high >= 0x80
        )
    }
}

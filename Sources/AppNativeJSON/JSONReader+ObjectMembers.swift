// The top level of a document read for `JSONObjectView`: members located, not built.

// Unsafe (JSON scanning): every read of `base[i]` is preceded by a check `i < end`, and a reader
// exists only inside the call that lent `base` (see JSONReader).

extension JSONReader {
    /// Reads a whole document whose top-level value should be an object, locating its members
    /// without building values; `nil` when the document is valid but not an object.
    ///
    /// Mirrors `readDocument` for the top level (the same grammar and checks, in the same order)
    /// and reads nested containers with it, so the two accept the same documents.
    mutating func readObjectMembers() throws(JSONError) -> JSONObjectView.Scan? {
        try readDocumentStart()
        guard unsafe base[index] == UInt8(ascii: "{") else {
            _ = try readValue()
            try readDocumentEnd()
            return nil
        }
        guard maxDepth > 0 else { throw JSONError(.tooDeep, "nesting is deeper than maxDepth", offset: index) }
        index += 1
        skipWhitespace()
        var scan = JSONObjectView.Scan()
        if index < end, unsafe base[index] == UInt8(ascii: "}") {
            index += 1
            try readDocumentEnd()
            return scan
        }
        scan.members.reserveCapacity(JSONObject.indexThreshold)
        var largeIndex: [[UInt8]: Int]?
        var seenNames = NameFilter()
        while true {
            guard index < end, unsafe base[index] == UInt8(ascii: "\"") else {
                throw unexpectedByte(
                    .syntax, scan.members.isEmpty ? "expected a member name or '}'" : "expected a member name after ','")
            }
            let nameOffset = index
            let nameContent = index + 1
            let documentEnd = end
            let inPlace = unsafe base + nameContent
            let (print, nameStart) = unsafe try readString { name -> (NamePrint, Int) in
                if unsafe name.baseAddress == inPlace { return unsafe (NamePrint(name), nameContent) }
                // Escaped: keep the decoded name after the document.
                let start = documentEnd + scan.escapedNames.count
                unsafe scan.escapedNames.append(contentsOf: name)
                return unsafe (NamePrint(name), start)
            }
            // In a small object a name whose filter bit was clear is new without comparing prints.
            let mayRepeat = seenNames.insert(print)
            let isSmall = largeIndex == nil && scan.members.count < JSONObject.indexThreshold
            if mayRepeat || !isSmall, isDuplicate(print, nameStart, in: scan, largeIndex: &largeIndex) {
                throw Self.duplicate(at: nameOffset)
            }
            skipWhitespace()
            guard index < end, unsafe base[index] == UInt8(ascii: ":") else {
                throw unexpectedByte(.syntax, "expected ':' after a member name")
            }
            index += 1
            skipWhitespace()
            guard index < end else { throw JSONError(.syntax, "the input ends where a value is expected", offset: index) }
            let valueStart = index
            let kind: JSONObjectView.Kind
            var contentStart = valueStart
            var contentEnd: Int
            switch unsafe base[index] {
            case UInt8(ascii: "\""):
                let decodedCount = unsafe try readString { $0.count }
                contentStart = valueStart + 1
                contentEnd = index - 1
                // Every escape is longer than what it decodes to.
                kind = decodedCount == contentEnd - contentStart ? .plainString : .escapedString
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                var nested = unsafe JSONReader(
                    base: base, end: end, maxDepth: maxDepth - 1, allowsLoneSurrogates: allowsLoneSurrogates)
                nested.index = index
                _ = try nested.readValue()
                index = nested.index
                contentEnd = index
                kind = .container
            case UInt8(ascii: "t"):
                try readLiteral(0x74_72_75_65, length: 4, "expected 'true'")
                contentEnd = index
                kind = .trueLiteral
            case UInt8(ascii: "f"):
                try readLiteral(0x66_61_6C_73_65, length: 5, "expected 'false'")
                contentEnd = index
                kind = .falseLiteral
            case UInt8(ascii: "n"):
                try readLiteral(0x6E_75_6C_6C, length: 4, "expected 'null'")
                contentEnd = index
                kind = .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                index = unsafe try JSONNumber.scan(base, from: index, end: end)
                contentEnd = index
                kind = .number
            case UInt8(ascii: "+"), UInt8(ascii: "."):
                throw JSONError(.invalidNumber, "a number must start with a digit or '-'", offset: index)
            default:
                throw unexpectedByte(.syntax, "expected a value")
            }
            scan.members.append(
                JSONObjectView.Member(
                    print: print, nameStart: nameStart, valueStart: contentStart, valueEnd: contentEnd, kind: kind))
            skipWhitespace()
            guard index < end else {
                throw JSONError(.syntax, "the input ends inside an array or object", offset: index)
            }
            if unsafe base[index] == UInt8(ascii: ",") {
                index += 1
                skipWhitespace()
                continue
            }
            guard unsafe base[index] == UInt8(ascii: "}") else {
                throw unexpectedByte(.syntax, "expected ',' or '}' after a member")
            }
            index += 1
            break
        }
        try readDocumentEnd()
        return scan
    }

    /// Whether the name just read (`print`, at `nameStart` in the document or the escaped-name
    /// buffer) repeats one of `scan`'s members. Linear while the object is small, hashed after.
    private func isDuplicate(
        _ print: NamePrint,
        _ nameStart: Int,
        in scan: JSONObjectView.Scan,
        largeIndex: inout [[UInt8]: Int]?
    ) -> Bool {
        func nameBytes(_ start: Int, _ count: Int) -> [UInt8] {
            if start < end { return unsafe Array(UnsafeBufferPointer(start: base + start, count: count)) }
            return Array(scan.escapedNames[(start - end)..<(start - end + count)])
        }
        if largeIndex == nil, scan.members.count < JSONObject.indexThreshold {
            for member in scan.members where member.print == print {
                if print.isWholeName || nameBytes(member.nameStart, print.count) == nameBytes(nameStart, print.count) {
                    return true
                }
            }
            return false
        }
        if largeIndex == nil {
            var names = [[UInt8]: Int](minimumCapacity: scan.members.count * 2)
            for (position, member) in scan.members.enumerated() {
                names[nameBytes(member.nameStart, member.print.count)] = position
            }
            largeIndex = names
        }
        let name = nameBytes(nameStart, print.count)
        guard largeIndex![name] == nil else { return true }
        largeIndex![name] = scan.members.count
        return false
    }
}

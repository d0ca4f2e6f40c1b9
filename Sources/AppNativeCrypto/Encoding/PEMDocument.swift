/// A strict reader for the PEM text of one key (RFC 7468).
///
/// Accepts exactly one block whose label is in the caller's list, surrounded only by whitespace,
/// with standard base64 (RFC 4648 §4) split into lines of any length. Blocks labelled
/// `EC PARAMETERS` (which `openssl ecparam -genkey` writes before `EC PRIVATE KEY`) are skipped.
/// Anything else (explanatory text, RFC 1421 headers such as `Proc-Type`, a second key, a
/// mismatched END line) is refused, so a file that is not what it seems never loads.
enum PEMDocument {
    /// One decoded block. `der` is wiped when released: private key DER is a secret.
    struct Block {
        let label: String
        let der: SecretBytes
    }

    private static let ignoredLabels: Set<String> = ["EC PARAMETERS"]

    /// Decodes the single key block in `text`.
    /// - Throws: `.invalidPEM` for malformed text; `.unsupportedKey` for a well-formed block whose
    ///   label is not accepted (an encrypted key, a certificate, the wrong key type).
    static func decodeBlock(_ text: String, acceptedLabels: Set<String>) throws(CryptoError) -> Block {
        var found: Block?
        var otherLabel: String?
        var lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
            .map { $0.trimmingWhitespace() }[...]
        while let line = lines.popFirst() {
            if line.isEmpty { continue }
            guard let label = boundaryLabel(line, kind: "BEGIN") else {
                throw CryptoError(.invalidPEM, "text outside a PEM block")
            }
            var body: [Substring] = []
            var closed = false
            while let inner = lines.popFirst() {
                if inner.hasPrefix("-----") {
                    guard boundaryLabel(inner, kind: "END") == label else {
                        throw CryptoError(.invalidPEM, "PEM block \(label) is not closed by a matching END line")
                    }
                    closed = true
                    break
                }
                body.append(inner)
            }
            guard closed else { throw CryptoError(.invalidPEM, "PEM block \(label) has no END line") }
            if ignoredLabels.contains(label) { continue }
            guard acceptedLabels.contains(label) else {
                otherLabel = otherLabel ?? label
                continue
            }
            guard found == nil else { throw CryptoError(.invalidPEM, "more than one \(label) block") }
            guard let der = Base64.decode(body) else {
                throw CryptoError(.invalidPEM, "PEM block \(label) is not valid base64")
            }
            found = Block(label: label, der: der)
        }
        if let found {
            guard otherLabel == nil else {
                throw CryptoError(.invalidPEM, "unexpected \(otherLabel ?? "") block next to the key")
            }
            return found
        }
        if let otherLabel {
            let expected = acceptedLabels.sorted().joined(separator: " or ")
            throw CryptoError(.unsupportedKey, "expected a \(expected) PEM block, found \(otherLabel)")
        }
        throw CryptoError(.invalidPEM, "no PEM block found")
    }

    /// The label of `-----BEGIN label-----` / `-----END label-----`, or nil.
    private static func boundaryLabel(_ line: Substring, kind: String) -> String? {
        let prefix = "-----\(kind) "
        guard line.hasPrefix(prefix), line.hasSuffix("-----"), line.count > prefix.count + 5 else { return nil }
        let label = line.dropFirst(prefix.count).dropLast(5)
        // RFC 7468 §3: label characters are printable ASCII other than '-', with single spaces.
        guard !label.isEmpty, label.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7f && $0 != UInt8(ascii: "-") }) else {
            return nil
        }
        return String(label)
    }
}

extension Substring {
    fileprivate func trimmingWhitespace() -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}

public import AppNativeJSON

/// One step an action runs after it is tapped: an object with exactly one key
/// (`contract/models.md` §3.3).
public indirect enum NativeStep: Sendable, Hashable, ModelEncodable {
    /// Open a path of the web app; non-empty.
    case openPath(String)
    /// Open a URL; must start (any case) with `https://`, `tel:` or `mailto:`.
    case openUrl(String)
    /// Put text on the clipboard.
    case copy(String)
    case share(ShareContent)
    /// Close the surface (written as the literal `true`).
    case close
    case device(DeviceStep)
    /// Chain a form; validated like any native form.
    case showForm(NativeForm)
    /// Chain content; validated like any native content.
    case showContent(NativeContent)

    static let keys = ["openPath", "openUrl", "copy", "share", "close", "device", "showForm", "showContent"]

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        let (key, value): (String, JSONValue) =
            switch self {
            case .openPath(let path): ("openPath", .string(path))
            case .openUrl(let url): ("openUrl", .string(url))
            case .copy(let text): ("copy", .string(text))
            case .share(let content): ("share", content.jsonValue(encoding))
            case .close: ("close", .bool(true))
            case .device(let step): ("device", step.jsonValue(encoding))
            case .showForm(let form): ("showForm", form.jsonValue(encoding))
            case .showContent(let content): ("showContent", content.jsonValue(encoding))
            }
        return .object(JSONObject([(key, value)]))
    }
}

extension Cursor {
    func nativeStep() -> NativeStep? {
        guard let reader = reader(.camelCase) else { return nil }
        guard reader.object.count == 1, let (name, member) = reader.object.first(where: { _ in true }) else {
            context.invalid(path, "a step must have exactly one key", input: value)
            return nil
        }
        guard let key = NativeStep.keys.first(where: { $0 == name || KeyStyle.snakeCase($0) == name }) else {
            context.invalid(path, "unknown step '\(name)'", input: value)
            return nil
        }
        let cursor = Cursor(value: member, path: path + [.key(name)], context: context)
        switch key {
        case "openPath":
            return cursor.nonEmptyString().map(NativeStep.openPath)
        case "openUrl":
            guard let url = cursor.string() else { return nil }
            let lower = url.lowercased()
            guard lower.hasPrefix("https://") || lower.hasPrefix("tel:") || lower.hasPrefix("mailto:") else {
                context.invalid(cursor.path, "openUrl must start with https://, tel: or mailto:", input: member)
                return nil
            }
            return .openUrl(url)
        case "copy":
            return cursor.string().map(NativeStep.copy)
        case "share":
            return cursor.model(ShareContent.self).map(NativeStep.share)
        case "close":
            guard member == .bool(true) else {
                context.invalid(cursor.path, "close must be true", input: member)
                return nil
            }
            return .close
        case "device":
            return cursor.model(DeviceStep.self).map(NativeStep.device)
        case "showForm":
            return cursor.model(NativeForm.self).map(NativeStep.showForm)
        default:
            return cursor.model(NativeContent.self).map(NativeStep.showContent)
        }
    }
}

/// How a model writes keys that hold a non-null default (`contract/models.md` §0).
public enum ModelEncoding: Sendable, Hashable {
    /// Feed, push and response encoding: defaults such as `"title":""` or `"required":false`
    /// are written; `null` keys are left out.
    case response
    /// Only keys the value was decoded or built with (pydantic `exclude_unset`): the lossless
    /// round trip the fixtures are checked with. `null` keys are still left out.
    case presentKeysOnly
}

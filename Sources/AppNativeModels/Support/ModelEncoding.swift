/// How a model writes keys that hold a non-null default (`contract/models.md` §0).
public enum ModelEncoding: Sendable, Hashable {
    /// Feed, push and response encoding: defaults such as `"title":""` or `"required":false`
    /// are written; `null` keys are left out.
    case response
    /// Only keys the value was decoded or built with (pydantic `exclude_unset`): the lossless
    /// round trip the fixtures are checked with. `null` keys are still left out.
    case presentKeysOnly
    /// A request body as the gateway forwards it to the backend: what the Python reference's
    /// callback model gives with `model_dump_json(exclude_unset=True)`. Exactly the members the
    /// app sent (`sentKeys`), in the model's order, with the decoded values: a sent `null` is
    /// written `null`, an absent member stays absent, unknown keys are never written, floats and
    /// the numbers of opaque objects are written as Python writes them (``PythonNumberText``).
    /// Applies to the top-level object; nested models are written `presentKeysOnly`.
    case forwarded(sentKeys: Set<String>)
}

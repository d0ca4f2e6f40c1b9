import AppNativeHTTP

/// Reads one parameter of a request's query string, as Starlette's `request.query_params.get`
/// does: the form-urlencoded pairs (`+` is a space, `%XX` a byte, a name without `=` has the
/// value `""`), the last occurrence winning.
enum QueryParameters {
    static func value(of name: String, in query: Substring) -> String? {
        FormURLEncoding.parse(query.utf8).last { $0.name == name }?.value
    }
}

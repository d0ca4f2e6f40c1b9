/// How a model's member names are spelled on input (`contract/models.md` §0).
enum KeyStyle {
    /// Request bodies the app POSTs: snake_case only.
    case snakeCase
    /// Definitions and responses: camelCase, with the snake_case spelling also accepted on input.
    case camelCase

    /// `imageUrl` → `image_url`, `webAppID` → `web_app_id`: an underscore before each upper-case
    /// letter that follows a lower-case letter or digit, then lower-cased.
    static func snakeCase(_ camel: String) -> String {
        var result = ""
        var previousIsLowerOrDigit = false
        for character in camel {
            if character.isUppercase, previousIsLowerOrDigit { result.append("_") }
            result += character.lowercased()
            previousIsLowerOrDigit = character.isLowercase || character.isNumber
        }
        return result
    }
}

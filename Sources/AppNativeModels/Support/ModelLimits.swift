/// The numeric limits of `contract/models.md`, named as the contract names them (`MAX_*`).
///
/// Public so hosts and the gateway can quote the same numbers in their own checks and messages.
public enum ModelLimits: Sendable {
    /// `WIDGET_SCHEMA_VERSION`: the feed `schema` this library writes.
    public static let widgetSchemaVersion = 1
    /// Widgets the app keeps per web app (§1.1).
    public static let maxWidgetsPerWebApp = 20
    /// Stat items per `stats` widget: 1…4 (§1.2).
    public static let maxStatItems = 4
    /// Approvals the app keeps per web app (§4).
    public static let maxApprovalsPerWebApp = 100
    /// `steps` of a Live Activity state (§5).
    public static let maxLiveActivitySteps = 5

    /// `MAX_PHOTOS_PER_FIELD` (§2.2).
    public static let maxPhotosPerField = 10
    /// `MIN_PHOTO_DIMENSION` (§2.2).
    public static let minPhotoDimension = 256
    /// `MAX_PHOTO_DIMENSION` (§2.2).
    public static let maxPhotoDimension = 4096
    /// `MAX_SCAN_PAGES` (§2.2).
    public static let maxScanPages = 20
    /// `MAX_REPEAT_ROWS` (§2.2).
    public static let maxRepeatRows = 50
    /// `MAX_REPEAT_FIELDS` (§2.2).
    public static let maxRepeatFields = 10

    /// `MAX_SURFACE_DEFINITION_BYTES` (§3), measured as Python's `json.dumps` writes the definition.
    public static let maxSurfaceDefinitionBytes = 262_144
    /// `MAX_FORM_PAGES` (§3).
    public static let maxFormPages = 10
    /// `MAX_FORM_FIELDS`: all pages, a repeat counting once (§3).
    public static let maxFormFields = 60
    /// `MAX_FIELD_OPTIONS`: inline options per field (§3).
    public static let maxFieldOptions = 200
    /// `MAX_CONTENT_BLOCKS`: nested blocks included (§3).
    public static let maxContentBlocks = 100
    /// `MAX_BLOCK_NESTING`: top level = 1 (§3).
    public static let maxBlockNesting = 3
    /// `MAX_FOOTER_ACTIONS` (§3).
    public static let maxFooterActions = 4
    /// `MAX_THEN_STEPS` (§3).
    public static let maxThenSteps = 6
    /// `MAX_BUTTONS_PER_BLOCK` (§3).
    public static let maxButtonsPerBlock = 6
    /// `MAX_TABLE_COLUMNS` (§3).
    public static let maxTableColumns = 20
    /// `MAX_TABLE_ROWS` (§3).
    public static let maxTableRows = 200
    /// `MAX_CONTENT_FIELDS`: all `fields` blocks together (§3).
    public static let maxContentFields = 60
    /// `MAX_INLINE_IMAGE_BYTES`: decoded, per image (§3).
    public static let maxInlineImageBytes = 1_048_576
    /// `MAX_INLINE_IMAGES_BYTES`: decoded, all images of one surface (§3).
    public static let maxInlineImagesBytes = 4_194_304
    /// `MAX_CHAIN_DEPTH`: chained surfaces after the first (§3).
    public static let maxChainDepth = 4
}

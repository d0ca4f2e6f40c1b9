/// A widget's size on the app's dashboard (`contract/models.md` §1.1).
public enum WidgetSize: String, Sendable, Hashable, CaseIterable, WireEnum {
    case small, medium, large, tall, xlarge
}

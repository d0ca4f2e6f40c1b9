public import AppNativeJSON

/// A widget's `data`, one case per `kind` (`contract/models.md` §1.2); the case is the discriminator.
public enum WidgetData: Sendable, Hashable, ModelEncodable {
    case kpi(KPIData)
    case stats(StatsData)
    case list(ListData)
    case chart(ChartData)
    case progress(ProgressData)
    case text(TextData)
    case action(ActionData)
    case news(NewsData)
    /// `[0.6]`, privileged feeds only.
    case web(WebData)

    /// The discriminator value written as the widget's `kind`.
    public var kind: Kind {
        switch self {
        case .kpi: .kpi
        case .stats: .stats
        case .list: .list
        case .chart: .chart
        case .progress: .progress
        case .text: .text
        case .action: .action
        case .news: .news
        case .web: .web
        }
    }

    /// The `kind` discriminator of widgets; unknown values are validation errors.
    public enum Kind: String, Sendable, Hashable, CaseIterable, WireEnum {
        case kpi, stats, list, chart, progress, text, action, news, web

        /// The size the app uses when a widget has none: kpi/progress small, news and web
        /// large, others medium.
        public var defaultSize: WidgetSize {
            switch self {
            case .kpi, .progress: .small
            case .news, .web: .large
            default: .medium
            }
        }
    }

    /// The data object alone.
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        switch self {
        case .kpi(let data): data.jsonValue(encoding)
        case .stats(let data): data.jsonValue(encoding)
        case .list(let data): data.jsonValue(encoding)
        case .chart(let data): data.jsonValue(encoding)
        case .progress(let data): data.jsonValue(encoding)
        case .text(let data): data.jsonValue(encoding)
        case .action(let data): data.jsonValue(encoding)
        case .news(let data): data.jsonValue(encoding)
        case .web(let data): data.jsonValue(encoding)
        }
    }
}

extension Cursor {
    /// The data of a widget (or content block) of `kind`.
    func widgetData(_ kind: WidgetData.Kind) -> WidgetData? {
        switch kind {
        case .kpi: model(KPIData.self).map(WidgetData.kpi)
        case .stats: model(StatsData.self).map(WidgetData.stats)
        case .list: model(ListData.self).map(WidgetData.list)
        case .chart: model(ChartData.self).map(WidgetData.chart)
        case .progress: model(ProgressData.self).map(WidgetData.progress)
        case .text: model(TextData.self).map(WidgetData.text)
        case .action: model(ActionData.self).map(WidgetData.action)
        case .news: model(NewsData.self).map(WidgetData.news)
        case .web: model(WebData.self).map(WidgetData.web)
        }
    }
}

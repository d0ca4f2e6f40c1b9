/// Barcode symbologies a `barcode` field may read; the app reads all when unset.
public enum BarcodeSymbology: String, Sendable, Hashable, CaseIterable, WireEnum {
    case aztec, codabar, code39, code93, code128, dataMatrix, ean8, ean13, i2of5, itf14, pdf417, qr, upce
}

internal import AppNativeJSON

extension Cursor {
    /// A `bool` field, read as pydantic's lax mode does (``LaxReading/bool(_:)``).
    func bool() -> Bool? {
        switch LaxReading.bool(value) {
        case .success(let flag): return flag
        case .failure(let failure):
            report(failure)
            return nil
        }
    }

    /// A `float` field, read as pydantic's lax mode does (``LaxReading/float(_:)``): `"47.0"`,
    /// `" 12 "` and `true` are numbers. The result is the literal Python writes for the float
    /// (`12` becomes `12.0`), so the backend and the app see the reference's serialisation.
    ///
    /// Bounds are checked first, in pydantic's order, so `"inf"` against `le=90` is
    /// `less_than_equal` as in the reference. A non-finite value within the bounds is refused
    /// with `finite_number`: JSON cannot carry it to the backend (`docs/migration.md`).
    func number(atLeast minimum: Double? = nil, atMost maximum: Double? = nil, greaterThan: Double? = nil)
        -> JSONNumber?
    {
        let double: Double
        switch LaxReading.float(value) {
        case .success(let read): double = read
        case .failure(let failure):
            report(failure)
            return nil
        }
        guard check(double, atLeast: minimum, atMost: maximum, greaterThan: greaterThan, boundsAreFloats: true) else {
            return nil
        }
        guard let number = JSONNumber(double) else {
            context.report(path, "finite_number", "Input should be a finite number", input: value)
            return nil
        }
        return number
    }

    /// An `int` field, read as pydantic's lax mode does (``LaxReading/int(_:)``), within the
    /// given inclusive bounds. An integer beyond `Int` is judged by its bounds and otherwise
    /// refused with `int_parsing_size` (the reference would keep it; no field of the contract
    /// has a use for one).
    func int(atLeast minimum: Int? = nil, atMost maximum: Int? = nil) -> Int? {
        let integer: LaxReading.Integer
        switch LaxReading.int(value) {
        case .success(let read): integer = read
        case .failure(let failure):
            report(failure)
            return nil
        }
        switch integer {
        case .exact(let int):
            guard check(Double(int), atLeast: minimum.map(Double.init), atMost: maximum.map(Double.init)) else {
                return nil
            }
            return int
        case .outOfRange(let approximate):
            guard check(approximate, atLeast: minimum.map(Double.init), atMost: maximum.map(Double.init)) else {
                return nil
            }
            report(.intParsingSize)
            return nil
        }
    }

    func report(_ failure: LaxReading.Failure) {
        context.report(path, failure.type, failure.message, input: value, context: failure.context)
    }
}

extension Cursor {
    /// The reference's `Number` (`int | float`, a smart union): a JSON number as written, a boolean
    /// as the integer 0 or 1, a string as an integer when it reads as one (`"12"`, `"1_000"`) and
    /// as a float otherwise (`"12.5"`).
    func intOrFloat() -> JSONNumber? {
        switch value {
        case .number(let number) where number.double != nil:
            return number
        case .bool(let flag):
            return JSONNumber(flag ? 1 : 0)
        case .string(let text):
            if case .exact(let int)? = LaxReading.intText(text) { return JSONNumber(int) }
            if let double = LaxReading.floatText(text), let number = JSONNumber(double) { return number }
            report(.floatParsing)
            return nil
        default:
            report(.floatType)
            return nil
        }
    }
}

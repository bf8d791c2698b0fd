extension Duration {
    package var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    package var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}

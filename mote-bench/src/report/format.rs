//! Number formatting shared by the console table and the HTML report.

/// A duration in ms with a unit suited to its size, benchee-style: `812.4 µs`, `12.31 ms`,
/// `1.03 s`.
pub fn duration_ms(ms: f64) -> String {
    if ms == 0.0 {
        "0".to_string()
    } else if ms >= 1000.0 {
        format!("{:.2} s", ms / 1000.0)
    } else if ms >= 1.0 {
        format!("{ms:.2} ms")
    } else {
        format!("{:.1} µs", ms * 1000.0)
    }
}

/// KiB as MiB with one decimal (`1088.0 MiB`); RSS is what `ru_maxrss` gives, in KiB.
pub fn rss_mib(kb: f64) -> String {
    format!("{:.1} MiB", kb / 1024.0)
}

/// A ratio as `1.23x`.
pub fn ratio(x: f64) -> String {
    format!("{x:.2}x")
}

/// A count with an SI suffix for axis labels: `500`, `10k`, `1M`, `2.5k`.
pub fn count(v: f64) -> String {
    let (scaled, suffix) = if v >= 1e6 {
        (v / 1e6, "M")
    } else if v >= 1e3 {
        (v / 1e3, "k")
    } else {
        (v, "")
    };
    if (scaled - scaled.round()).abs() < 1e-9 {
        format!("{}{suffix}", scaled.round())
    } else {
        format!("{scaled:.1}{suffix}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_pick_units() {
        assert_eq!(duration_ms(0.8124), "812.4 µs");
        assert_eq!(duration_ms(12.3149), "12.31 ms");
        assert_eq!(duration_ms(1030.0), "1.03 s");
        assert_eq!(duration_ms(0.0), "0");
    }

    #[test]
    fn sizes_and_counts() {
        assert_eq!(rss_mib(1_114_112.0), "1088.0 MiB");
        assert_eq!(ratio(0.756), "0.76x");
        assert_eq!(count(500.0), "500");
        assert_eq!(count(10_000.0), "10k");
        assert_eq!(count(2_500.0), "2.5k");
        assert_eq!(count(1_000_000.0), "1M");
    }
}

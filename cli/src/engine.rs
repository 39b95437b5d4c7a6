//! `--engine`: which implementation computes a command's results (`rocenic entropy`, `rss`).

/// Which implementation computes the results.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Engine {
    /// The reference model.
    Model,
    /// The command's RTL pipeline, co-simulated cycle by cycle.
    Rtl,
    /// A board's pipeline behind its UART bridge, e.g. `serial:/dev/ttyUSB1`.
    Serial(String),
}

/// `model`, `rtl` or `serial:PORT`.
pub fn parse_engine(s: &str) -> Result<Engine, String> {
    match s {
        "model" => Ok(Engine::Model),
        "rtl" => Ok(Engine::Rtl),
        _ => match s.strip_prefix("serial:") {
            Some(path) if !path.is_empty() => Ok(Engine::Serial(path.to_string())),
            _ => Err(format!(
                "unknown engine `{s}` (model, rtl, serial:PORT such as serial:/dev/ttyUSB1)"
            )),
        },
    }
}

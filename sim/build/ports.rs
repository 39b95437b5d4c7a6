//! The port list of a verilated model, read from its generated header.

/// One port of the top module.
#[derive(Debug, Clone)]
pub struct Port {
    pub name: String,
    pub output: bool,
    pub width: u32,
    /// C storage: 8, 16, 32, 64, or 0 for a wide port (array of 32-bit words).
    pub storage: u32,
    pub words: u32,
}

/// Reads `VL_IN8(&name,msb,lsb);`, `VL_OUT(&name,msb,lsb);`, `VL_INW(&name,msb,lsb,words);` …
pub fn parse(header: &str) -> Vec<Port> {
    header
        .lines()
        .filter_map(|line| {
            let line = line.trim();
            let rest = line.strip_prefix("VL_")?;
            let (kind, args) = rest.split_once("(&")?;
            let args = args.strip_suffix(");")?;
            let (output, size) = if let Some(s) = kind.strip_prefix("OUT") {
                (true, s)
            } else if let Some(s) = kind.strip_prefix("IN") {
                (false, s)
            } else {
                return None;
            };
            let fields: Vec<&str> = args.split(',').collect();
            let msb: u32 = fields.get(1)?.parse().ok()?;
            let lsb: u32 = fields.get(2)?.parse().ok()?;
            let (storage, words) = match size {
                "8" => (8, 1),
                "16" => (16, 1),
                "" => (32, 1),
                "64" => (64, 1),
                "W" => (0, fields.get(3)?.parse().ok()?),
                _ => return None,
            };
            Some(Port {
                name: fields[0].to_string(),
                output,
                width: msb - lsb + 1,
                storage,
                words,
            })
        })
        .collect()
}

/// Whether the DUT has one-bit `clk` and `rst` inputs (what the harness drives).
pub fn has_clock_and_reset(ports: &[Port]) -> bool {
    let has = |n: &str| {
        ports
            .iter()
            .any(|p| p.name == n && !p.output && p.width == 1)
    };
    has("clk") && has("rst")
}

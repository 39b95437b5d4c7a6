//! One trait per top module over its ports, implemented by every DUT built from that top, so a
//! test bench is written once for all of a module's parameterisations (`EntropyUnitPorts`,
//! `TsoSegmenterPorts`, …) instead of by a hand-written trait and macro.
//!
//! A port's type in the trait: `bool` for one bit; the wrapper's own type when every DUT of the
//! top stores it alike; `u64` when the width varies up to 64 bits; and little-endian bytes
//! (`read_<port>` / `write_<port>`) when any DUT's port is wider. `<PORT>_BITS` gives each DUT's
//! width. `clk` and `rst` stay with the harness (`Dut`).

use std::fmt::Write as _;

use crate::ports::{has_clock_and_reset, Port};
use crate::wrapper::{camel, rust_type};

/// How one port is seen through the trait.
enum Kind {
    Bool,
    /// Every DUT stores it in this type.
    Native(String),
    /// Widths differ but all fit 64 bits.
    Wide64,
    /// Some DUT's port is wider than 64 bits.
    Bytes,
}

fn kind(ports: &[&Port]) -> Kind {
    let first = ports[0];
    if ports.iter().all(|p| p.width == 1) {
        Kind::Bool
    } else if ports
        .iter()
        .all(|p| p.storage == first.storage && p.words == first.words)
    {
        Kind::Native(rust_type(first))
    } else if ports.iter().all(|p| p.width <= 64) {
        Kind::Wide64
    } else {
        Kind::Bytes
    }
}

/// The trait for top module `top` and its impls for `duts` (name and ports of each).
pub fn rust(top: &str, duts: &[(&str, Vec<Port>)]) -> String {
    let mut s = String::new();
    // Only ports every DUT of the top has, in the first DUT's order (they are all the same
    // module, so they agree; parameters change widths, not names).
    let names: Vec<&str> = duts[0]
        .1
        .iter()
        .map(|p| p.name.as_str())
        .filter(|n| *n != "clk" && *n != "rst")
        .filter(|n| duts.iter().all(|(_, ps)| ps.iter().any(|p| p.name == *n)))
        .collect();
    let port = |ps: &[Port], n: &str| ps.iter().find(|p| p.name == n).unwrap().clone();
    let tr = format!("{}Ports", camel(top));
    let clocked = duts.iter().all(|(_, ps)| has_clock_and_reset(ps));
    let sup = if clocked { ": crate::harness::Dut" } else { "" };
    let _ = writeln!(
        s,
        "/// The ports of top module `{top}`, implemented by every DUT built from it.\npub trait {tr}{sup} {{"
    );
    let mut bodies: Vec<String> = vec![String::new(); duts.len()];
    for n in &names {
        let ps: Vec<Port> = duts.iter().map(|(_, p)| port(p, n)).collect();
        let refs: Vec<&Port> = ps.iter().collect();
        let input = !ps[0].output;
        let _ = writeln!(
            s,
            "    /// Width of `{n}` in bits.\n    const {}_BITS: u32;",
            n.to_uppercase()
        );
        let k = kind(&refs);
        match &k {
            Kind::Bool => {
                let _ = writeln!(s, "    /// `{n}`.\n    fn {n}(&self) -> bool;");
                if input {
                    let _ = writeln!(
                        s,
                        "    /// Drives `{n}`.\n    fn set_{n}(&mut self, v: bool);"
                    );
                }
            }
            Kind::Native(t) => {
                let _ = writeln!(s, "    /// `{n}`.\n    fn {n}(&self) -> {t};");
                if input {
                    let _ = writeln!(s, "    /// Drives `{n}` (bits past its width are dropped).\n    fn set_{n}(&mut self, v: {t});");
                }
            }
            Kind::Wide64 => {
                let _ = writeln!(s, "    /// `{n}`.\n    fn {n}(&self) -> u64;");
                if input {
                    let _ = writeln!(s, "    /// Drives `{n}` (bits past its width are dropped).\n    fn set_{n}(&mut self, v: u64);");
                }
            }
            Kind::Bytes => {
                let _ = writeln!(s, "    /// Reads `{n}` into `out`, little-endian (bytes past its width read 0).\n    fn read_{n}(&self, out: &mut [u8]);");
                if input {
                    let _ = writeln!(s, "    /// Drives `{n}` from little-endian `bytes` (missing bytes are 0).\n    fn write_{n}(&mut self, bytes: &[u8]);");
                }
            }
        }
        for (body, p) in bodies.iter_mut().zip(&ps) {
            let _ = writeln!(
                body,
                "    const {}_BITS: u32 = {};",
                n.to_uppercase(),
                p.width
            );
            let t = rust_type(p);
            match &k {
                Kind::Bool => {
                    let _ = writeln!(
                        body,
                        "    #[inline] fn {n}(&self) -> bool {{ Self::{n}(self) != 0 }}"
                    );
                    if input {
                        let _ = writeln!(body, "    #[inline] fn set_{n}(&mut self, v: bool) {{ Self::set_{n}(self, v as {t}) }}");
                    }
                }
                Kind::Native(t) => {
                    let _ = writeln!(
                        body,
                        "    #[inline] fn {n}(&self) -> {t} {{ Self::{n}(self) }}"
                    );
                    if input {
                        let _ = writeln!(body, "    #[inline] fn set_{n}(&mut self, v: {t}) {{ Self::set_{n}(self, v) }}");
                    }
                }
                Kind::Wide64 => {
                    let _ = writeln!(
                        body,
                        "    #[inline] fn {n}(&self) -> u64 {{ Self::{n}(self) as u64 }}"
                    );
                    if input {
                        let _ = writeln!(body, "    #[inline] fn set_{n}(&mut self, v: u64) {{ Self::set_{n}(self, v as {t}) }}");
                    }
                }
                Kind::Bytes if p.storage == 0 => {
                    let _ = writeln!(body, "    #[inline] fn read_{n}(&self, out: &mut [u8]) {{ crate::axis::words_to_bytes(&Self::{n}(self), out) }}");
                    if input {
                        let _ = writeln!(body, "    #[inline] fn write_{n}(&mut self, bytes: &[u8]) {{ let mut w = [0u32; {}]; crate::axis::bytes_to_words(bytes, &mut w); Self::set_{n}(self, w) }}", p.words);
                    }
                }
                Kind::Bytes => {
                    let _ = writeln!(body, "    #[inline] fn read_{n}(&self, out: &mut [u8]) {{ crate::axis::u64_to_bytes(Self::{n}(self) as u64, out) }}");
                    if input {
                        let _ = writeln!(body, "    #[inline] fn write_{n}(&mut self, bytes: &[u8]) {{ Self::set_{n}(self, crate::axis::bytes_to_u64(bytes) as {t}) }}");
                    }
                }
            }
        }
    }
    s.push_str("}\n\n");
    for ((name, _), body) in duts.iter().zip(bodies) {
        let _ = writeln!(s, "impl {tr} for {} {{\n{body}}}\n", camel(name));
    }
    s
}

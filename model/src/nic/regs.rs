//! The full core's address map: one AXI4-Lite port in front of the register blocks, each in a
//! window of its own (docs/nic-registers.md, docs/top.md).
//!
//! A window is as large as its block's map reaches, rounded up to a power of two
//! ([`crate::regmap::addr_bits`]), and starts at a multiple of its size, so the RTL decodes it
//! from the address's upper bits alone and hands the block the lower ones unchanged: register
//! `r` of a block is at `window.base + r`. Windows follow each other in [`WINDOWS`]'s order.
//!
//! An address in no window reads 0 and a write there is ignored, both answered OKAY: the rule
//! every block's own map already has for its unmapped offsets, so software meets one rule over
//! the whole port (`rtl/top/nic_axil.sv` does this, [`decode`] says where an address goes).

use crate::regmap::{addr_bits, Register};
use crate::{rss, rx, wqe};

/// One block's window in the core's map.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// Upper-case name, the prefix of its constants in the SystemVerilog package.
    pub name: &'static str,
    /// First byte address.
    pub base: u32,
    /// log2 of its size in bytes: the block's address bits.
    pub addr_bits: u32,
    /// The block's own map, at offsets from `base`.
    pub map: &'static [Register],
    /// What it is.
    pub doc: &'static str,
}

impl Window {
    /// Its size in bytes.
    pub const fn size(&self) -> u32 {
        1 << self.addr_bits
    }

    /// The first byte after it.
    pub const fn end(&self) -> u32 {
        self.base + self.size()
    }

    /// Whether `addr` falls in it.
    pub const fn contains(&self, addr: u32) -> bool {
        addr >> self.addr_bits == self.base >> self.addr_bits
    }
}

/// A window for `map` at the first multiple of its size from `from` on.
const fn window(
    name: &'static str,
    from: u32,
    map: &'static [Register],
    doc: &'static str,
) -> Window {
    let addr_bits = addr_bits(map);
    let size = 1 << addr_bits;
    Window {
        name,
        base: from.div_ceil(size) * size,
        addr_bits,
        map,
        doc,
    }
}

/// The WQE engine, send side (`model::wqe::regs`, docs/wqe-registers.md).
pub const WQE: Window = window("WQE", 0, wqe::regs::MAP, "WQE engine (send side)");
/// The RSS pipeline (`model::rss::regs`, docs/rss-registers.md).
pub const RSS: Window = window("RSS", WQE.end(), rss::regs::MAP, "RSS pipeline");
/// The receive path (`model::rx::regs`, docs/rx-registers.md).
pub const RX: Window = window("RX", RSS.end(), rx::regs::MAP, "receive path");

/// Every window, in address order; a window's index here is its port on `nic_axil`.
pub const WINDOWS: [Window; 3] = [WQE, RSS, RX];

/// Address bits of the core's port: enough for the last window's last byte.
pub const ADDR_W: u32 = u32::BITS - (RX.end() - 1).leading_zeros();

/// What an unmapped address reads.
pub const UNMAPPED_READ: u32 = 0;

/// Where byte address `addr` of the core's port goes: the window's index in [`WINDOWS`] and the
/// offset in its block's map; `None` in no window (it reads [`UNMAPPED_READ`], writes are
/// ignored). Address bits past [`ADDR_W`] are not decoded: the port does not have them.
pub const fn decode(addr: u32) -> Option<(usize, u32)> {
    let addr = addr & ((1 << ADDR_W) - 1);
    let mut i = 0;
    while i < WINDOWS.len() {
        let w = &WINDOWS[i];
        if w.contains(addr) {
            return Some((i, addr - w.base));
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_hold_their_maps_apart_and_aligned() {
        for w in WINDOWS.windows(2) {
            assert!(
                w[0].end() <= w[1].base,
                "{} overlaps {}",
                w[0].name,
                w[1].name
            );
        }
        for w in WINDOWS {
            assert_eq!(
                w.base % w.size(),
                0,
                "{} is not aligned to its size",
                w.name
            );
            let reach = w.map.iter().map(|r| r.offset + 4 * r.words).max().unwrap();
            assert!(
                reach <= w.size() && reach > w.size() / 2,
                "{} is not its map's size",
                w.name
            );
        }
        assert!(RX.end() <= 1 << ADDR_W && RX.end() > 1 << (ADDR_W - 1));
        // The blocks' own address widths (rtl/*/..._regs_pkg.sv).
        assert_eq!((WQE.addr_bits, RSS.addr_bits, RX.addr_bits), (13, 9, 13));
        assert_eq!(
            (WQE.base, RSS.base, RX.base, ADDR_W),
            (0, 0x2000, 0x4000, 15)
        );
    }

    #[test]
    fn every_register_decodes_to_its_block() {
        for (i, w) in WINDOWS.iter().enumerate() {
            for r in w.map {
                for word in 0..r.words {
                    let off = r.offset + 4 * word;
                    assert_eq!(
                        decode(w.base + off),
                        Some((i, off)),
                        "{}.{}",
                        w.name,
                        r.name
                    );
                }
            }
        }
    }

    #[test]
    fn holes_decode_to_nothing() {
        assert_eq!(decode(RSS.end()), None);
        assert_eq!(decode(RX.base - 4), None);
        assert_eq!(decode((1 << ADDR_W) - 4), None);
        // Bits past the port's width are not decoded.
        assert_eq!(decode((1 << ADDR_W) + RX.base), Some((2, 0)));
        assert_eq!(decode(RSS.base + 0x1FC), Some((1, 0x1FC)));
    }
}

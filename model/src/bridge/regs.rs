//! The register map of the board core (`rtl/top/rocenic_core.sv`): 32-bit registers at word
//! addresses on the bridge's 16-bit bus.
//!
//! [`MAP`] is the source: `cargo xtask gen` renders `rtl/top/rocenic_core_regs_pkg.sv` and
//! `docs/core-registers.md` from it (`xtask/src/core.rs`). The registers are in pages of 16
//! words (common, entropy, RSS control, RSS key, RSS data), which the core decodes by the upper
//! 12 address bits.

use crate::regmap::{self, field, reg, Access, Field, Register};

/// Value of `ID`: "RNIC".
pub const ID_VALUE: u32 = 0x524E_4943;
/// The version of this map, in `CAPS.VERSION`.
pub const MAP_VERSION: u32 = 1;
/// Words in each of the `R_KEY` and `R_DATA` windows (one page each).
pub const WINDOW_WORDS: u32 = 16;

/// `CAPS` fields.
pub mod caps {
    use super::{field, Field};
    /// Map version.
    pub const VERSION: Field = field("VERSION", 0, 8, "register map version (1)");
    /// Entropy unit present.
    pub const ENTROPY: Field = field("ENTROPY", 8, 1, "the entropy unit is present");
    /// RSS hash unit present.
    pub const RSS: Field = field(
        "RSS",
        9,
        1,
        "the RSS hash unit (the R_ registers) is present",
    );
    /// RSS input bytes.
    pub const RSS_INPUT: Field = field(
        "RSS_INPUT",
        16,
        8,
        "the RSS hash unit's input bytes (0 without it)",
    );
    /// Registers per bridge request.
    pub const MAX_WORDS: Field = field(
        "MAX_WORDS",
        24,
        8,
        "most registers one bridge request carries",
    );
}

/// `E_CTRL` fields.
pub mod e_ctrl {
    use super::{field, Field};
    /// QP or CM request.
    pub const MODE: Field = field("MODE", 0, 1, "0: QP, 1: CM");
    /// `model::bridge::profile_code`.
    pub const PROFILE: Field = field(
        "PROFILE",
        1,
        2,
        "profile: 0 linux, 1 rfc-v2, 2 rfc-v1, 3 rxe",
    );
    /// QP type.
    pub const QP_TYPE: Field = field("QP_TYPE", 3, 1, "0: RC, 1: UD");
}

/// `E_PORTS` fields.
pub mod e_ports {
    use super::{field, Field};
    /// CM destination port.
    pub const DST_PORT: Field = field("DST_PORT", 0, 16, "CM destination port");
    /// CM source port.
    pub const SRC_PORT: Field = field("SRC_PORT", 16, 16, "CM source port");
}

/// `R_CTRL` fields.
pub mod r_ctrl {
    use super::{field, Field};
    /// Input bytes.
    pub const LEN: Field = field(
        "LEN",
        0,
        8,
        "input length in bytes (above CAPS.RSS_INPUT it acts as CAPS.RSS_INPUT)",
    );
    /// XOR instead of Toeplitz.
    pub const XOR: Field = field("XOR", 8, 1, "0: Toeplitz with the loaded key, 1: XOR hash");
}

/// Fields of `E_STATUS` and `R_STATUS`.
pub mod status {
    use super::{field, Field};
    /// The result registers hold the last submission's result.
    pub const DONE: Field = field(
        "DONE",
        0,
        1,
        "the result of the last submission is in place",
    );
    /// A submission waits for the unit.
    pub const BUSY: Field = field("BUSY", 1, 1, "a submission waits for the unit");
    /// A GO was ignored.
    pub const OVERRUN: Field = field(
        "OVERRUN",
        2,
        1,
        "a GO arrived while busy and was ignored (cleared by the next accepted GO)",
    );
    /// `R_STATUS` only: a key load waits for the unit.
    pub const KEY_PENDING: Field = field("KEY_PENDING", 3, 1, "a key load waits for the unit");
}

const STATUS: &[Field] = &[status::DONE, status::BUSY, status::OVERRUN];

/// Every register, in address order.
pub const MAP: &[Register] = &[
    reg(0x0000, "ID", 1, Access::Ro, "identifies the core: 0x524E4943 (\"RNIC\")", &[]),
    reg(
        0x0001,
        "CAPS",
        1,
        Access::Ro,
        "what the core was built with",
        &[
            caps::VERSION,
            caps::ENTROPY,
            caps::RSS,
            caps::RSS_INPUT,
            caps::MAX_WORDS,
        ],
    ),
    reg(0x0002, "SCRATCH", 1, Access::Rw, "read/write, no effect", &[]),
    reg(
        0x0100,
        "E_CTRL",
        1,
        Access::Rw,
        "entropy request: kind, profile, QP type",
        &[e_ctrl::MODE, e_ctrl::PROFILE, e_ctrl::QP_TYPE],
    ),
    reg(0x0101, "E_LQPN", 1, Access::Rw, "entropy request: local QPN (bits 23:0)", &[]),
    reg(0x0102, "E_RQPN", 1, Access::Rw, "entropy request: remote QPN (bits 23:0)", &[]),
    reg(
        0x0103,
        "E_FL",
        1,
        Access::Rw,
        "entropy request: flow label (QP) or sin6_flowinfo (CM)",
        &[],
    ),
    reg(
        0x0104,
        "E_PORTS",
        1,
        Access::Rw,
        "entropy request: CM ports",
        &[e_ports::DST_PORT, e_ports::SRC_PORT],
    ),
    reg(
        0x0105,
        "E_GO",
        1,
        Access::Wo,
        "any write submits the request held in E_CTRL..E_PORTS",
        &[],
    ),
    reg(0x0106, "E_STATUS", 1, Access::Ro, "entropy unit state", STATUS),
    reg(
        0x0107,
        "E_FLOW_LABEL",
        1,
        Access::Ro,
        "the last result: flow label (bits 19:0)",
        &[],
    ),
    reg(
        0x0108,
        "E_UDP_SPORT",
        1,
        Access::Ro,
        "the last result: UDP source port (bits 15:0)",
        &[],
    ),
    reg(
        0x0200,
        "R_CTRL",
        1,
        Access::Rw,
        "RSS request: length and function",
        &[r_ctrl::LEN, r_ctrl::XOR],
    ),
    reg(
        0x0201,
        "R_GO",
        1,
        Access::Wo,
        "any write submits the request held in R_CTRL and R_DATA",
        &[],
    ),
    reg(
        0x0202,
        "R_KEY_GO",
        1,
        Access::Wo,
        "any write loads R_KEY into the hash unit",
        &[],
    ),
    reg(
        0x0203,
        "R_STATUS",
        1,
        Access::Ro,
        "RSS hash unit state",
        &[status::DONE, status::BUSY, status::OVERRUN, status::KEY_PENDING],
    ),
    reg(0x0204, "R_HASH", 1, Access::Ro, "the last result", &[]),
    reg(
        0x0210,
        "R_KEY",
        WINDOW_WORDS,
        Access::Rw,
        "the key: the first (CAPS.RSS_INPUT + 4) / 4 words are held, the rest read 0; key byte 0 in bits 31:24 of word 0",
        &[],
    ),
    reg(
        0x0230,
        "R_DATA",
        WINDOW_WORDS,
        Access::Rw,
        "the input: the first CAPS.RSS_INPUT / 4 words are held, the rest read 0; input byte 0 in bits 31:24 of word 0",
        &[],
    ),
];

/// The offsets of the named constants below: a misspelt name, or an address past the bus's
/// 16 bits, fails the build.
const fn at(name: &str) -> u16 {
    let offset = regmap::const_offset(MAP, name);
    assert!(offset <= u16::MAX as u32, "register address past 16 bits");
    offset as u16
}

/// `ID`.
pub const ID: u16 = at("ID");
/// `CAPS`.
pub const CAPS: u16 = at("CAPS");
/// `SCRATCH`.
pub const SCRATCH: u16 = at("SCRATCH");
/// `E_CTRL`, the first of the six words of an entropy request (the last is `E_GO`).
pub const E_CTRL: u16 = at("E_CTRL");
/// `E_GO`.
pub const E_GO: u16 = at("E_GO");
/// `E_STATUS`, then the two result registers.
pub const E_STATUS: u16 = at("E_STATUS");
/// `R_CTRL`.
pub const R_CTRL: u16 = at("R_CTRL");
/// `R_GO`.
pub const R_GO: u16 = at("R_GO");
/// `R_KEY_GO`.
pub const R_KEY_GO: u16 = at("R_KEY_GO");
/// `R_STATUS`, then `R_HASH`.
pub const R_STATUS: u16 = at("R_STATUS");
/// First key word (key byte 0 in bits 31:24).
pub const R_KEY: u16 = at("R_KEY");
/// First data word (input byte 0 in bits 31:24).
pub const R_DATA: u16 = at("R_DATA");
/// Status bit: the last submission's result is in place.
pub const DONE: u32 = status::DONE.put(1);
/// Status bit: a submission waits for the unit.
pub const BUSY: u32 = status::BUSY.put(1);
/// Status bit: a GO arrived while busy and was ignored.
pub const OVERRUN: u32 = status::OVERRUN.put(1);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_is_ordered_paged_and_fields_fit() {
        for pair in MAP.windows(2) {
            assert!(
                pair[0].offset + pair[0].words <= pair[1].offset,
                "{} overlaps {}",
                pair[0].name,
                pair[1].name
            );
        }
        for r in MAP {
            // The core decodes a page by the upper 12 address bits.
            assert!(r.offset % 16 + r.words <= 16, "{} leaves its page", r.name);
            let mut used = 0u64;
            for f in r.fields {
                assert!(f.lsb + f.width <= 32, "{}.{} past bit 31", r.name, f.name);
                let bits = ((1u64 << f.width) - 1) << f.lsb;
                assert_eq!(used & bits, 0, "{}.{} overlaps", r.name, f.name);
                used |= bits;
            }
        }
        // One entropy request is one write from E_CTRL to E_GO.
        assert_eq!(E_GO - E_CTRL, 5);
    }
}

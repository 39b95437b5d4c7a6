//! The RSS pipeline's AXI4-Lite register map: the one definition that the RTL, the test benches,
//! the firmware and the host driver share.
//!
//! [`MAP`] is the source. `cargo xtask gen` renders `rtl/rss/rss_regs_pkg.sv` and
//! `docs/rss-registers.md` from it (`xtask/src/rss.rs`), and `cargo xtask gen --check` and the
//! xtask tests fail when either file differs from what it would render. The encoders ([`rule_writes`], [`context_writes`], [`table_select()`]) turn model
//! configuration into register writes.
//!
//! Updates are staged: software writes a rule or a context into the staging registers, then
//! writes `COMMIT`. The hardware holds new packets back at its parser, lets the packets already
//! in the pipeline finish with the old configuration, then copies the staging registers in one
//! clock, so every packet sees the whole old or the whole new rule or context. Writes wait (the
//! AXI4-Lite write is not accepted) while a commit is pending. Indirection tables are double
//! banked: write the bank a context does not use, then commit the context with that bank.

use super::steer::{Action, Rule};
use super::{Function, HashFields};
use crate::regmap::{field, reg};
pub use crate::regmap::{Access, Field, Register};

/// Value of `ID`: "RSS1".
pub const ID_VALUE: u32 = 0x5253_5331;
/// Key length the hardware stores per context (40-byte keys are stored with a zero tail).
pub const KEY_BYTES: usize = 52;

/// `CAPS` fields.
pub mod caps {
    use super::{field, Field};
    /// Steering rules.
    pub const RULES: Field = field("RULES", 0, 8, "number of steering rules");
    /// RSS contexts.
    pub const CONTEXTS: Field = field("CONTEXTS", 8, 8, "number of RSS contexts");
    /// Largest table.
    pub const TABLE_LOG2: Field = field(
        "TABLE_LOG2",
        16,
        5,
        "largest indirection table, log2 of its entries",
    );
    /// Queue number width.
    pub const QUEUE_W: Field = field("QUEUE_W", 24, 5, "width of a queue number in bits");
}

/// `STATUS` fields.
pub mod status {
    use super::{field, Field};
    /// A commit waits for the pipeline to drain.
    pub const BUSY: Field = field("BUSY", 0, 1, "a commit is pending");
}

/// `COMMIT` fields.
pub mod commit {
    use super::{field, Field};
    /// Rule or context index.
    pub const INDEX: Field = field("INDEX", 0, 8, "the rule or context to replace");
    /// 0 = rule, 1 = context.
    pub const CONTEXT: Field = field(
        "CONTEXT",
        31,
        1,
        "0: copy the staged rule, 1: copy the staged context",
    );
}

/// `CTX_CONTROL` fields.
pub mod ctx_control {
    use super::{field, Field};
    /// XOR instead of Toeplitz.
    pub const XOR: Field = field("XOR", 0, 1, "0: Toeplitz with the key, 1: XOR hash");
    /// log2 of the table entries in use.
    pub const TABLE_LOG2: Field = field(
        "TABLE_LOG2",
        8,
        5,
        "log2 of the table entries in use (values above CAPS.TABLE_LOG2 act as it)",
    );
    /// Which table bank the context reads.
    pub const BANK: Field = field("BANK", 16, 1, "the indirection table bank in use");
}

/// `CTX_FIELDS` fields.
pub mod ctx_fields {
    use super::{field, Field};
    /// `HashFields` bits.
    pub const FIELDS: Field = field(
        "FIELDS",
        0,
        13,
        "hash fields: verbs bits 0-7 (src/dst IPv4, IPv6, TCP, UDP) and bit 12 BTH QPN",
    );
}

/// `RULE_CONTROL` fields.
pub mod rule_control {
    use super::{field, Field};
    /// The rule takes part.
    pub const ENABLE: Field = field("ENABLE", 0, 1, "the rule takes part in matching");
    /// Action kind.
    pub const QUEUE: Field = field(
        "QUEUE",
        1,
        1,
        "0: TARGET is an RSS context, 1: TARGET is a queue",
    );
    /// Context or queue.
    pub const TARGET: Field = field("TARGET", 16, 16, "the RSS context or the queue");
}

/// Fields of the value/mask registers of 16-bit rule fields.
pub mod match16 {
    use super::{field, Field};
    /// Compared value.
    pub const VALUE: Field = field("VALUE", 0, 16, "compared value");
    /// Compared bits.
    pub const MASK: Field = field("MASK", 16, 16, "bits compared");
}

/// `RULE_L4` fields.
pub mod match8 {
    use super::{field, Field};
    /// Compared value.
    pub const VALUE: Field = field("VALUE", 0, 8, "compared value");
    /// Compared bits.
    pub const MASK: Field = field("MASK", 8, 8, "bits compared");
}

/// `TABLE_SELECT` fields.
pub mod table_select {
    use super::{field, Field};
    /// Entry index.
    pub const INDEX: Field = field(
        "INDEX",
        0,
        16,
        "next entry TABLE_DATA writes (advances by one per write)",
    );
    /// Context.
    pub const CONTEXT: Field = field("CONTEXT", 16, 8, "the context whose table is written");
    /// Bank.
    pub const BANK: Field = field("BANK", 24, 1, "the bank written");
}

const M16: &[Field] = &[match16::VALUE, match16::MASK];

/// Every register, in address order.
pub const MAP: &[Register] = &[
    reg(0x000, "ID", 1, Access::Ro, "identifies the block: 0x52535331 (\"RSS1\")", &[]),
    reg(
        0x004,
        "CAPS",
        1,
        Access::Ro,
        "the parameters the block was built with",
        &[caps::RULES, caps::CONTEXTS, caps::TABLE_LOG2, caps::QUEUE_W],
    ),
    reg(0x008, "STATUS", 1, Access::Ro, "state", &[status::BUSY]),
    reg(
        0x00C,
        "COMMIT",
        1,
        Access::Wo,
        "copies the staged rule or context into the live configuration, between two packets",
        &[commit::INDEX, commit::CONTEXT],
    ),
    reg(
        0x010,
        "PACKETS",
        1,
        Access::Ro,
        "packets parsed since reset (wraps)",
        &[],
    ),
    reg(
        0x020,
        "CTX_CONTROL",
        1,
        Access::Rw,
        "staged context: function, table size and bank",
        &[ctx_control::XOR, ctx_control::TABLE_LOG2, ctx_control::BANK],
    ),
    reg(
        0x024,
        "CTX_FIELDS",
        1,
        Access::Rw,
        "staged context: hashed fields",
        &[ctx_fields::FIELDS],
    ),
    reg(
        0x040,
        "CTX_KEY",
        13,
        Access::Rw,
        "staged context: the 52-byte Toeplitz key; word i holds bytes 4i..4i+3, byte 4i in bits 31:24",
        &[],
    ),
    reg(
        0x080,
        "RULE_CONTROL",
        1,
        Access::Rw,
        "staged rule: enable and action",
        &[rule_control::ENABLE, rule_control::QUEUE, rule_control::TARGET],
    ),
    reg(0x084, "RULE_ETHERTYPE", 1, Access::Rw, "staged rule: EtherType", M16),
    reg(
        0x088,
        "RULE_L4",
        1,
        Access::Rw,
        "staged rule: IP protocol / IPv6 next header",
        &[match8::VALUE, match8::MASK],
    ),
    reg(0x08C, "RULE_SRC_PORT", 1, Access::Rw, "staged rule: source port", M16),
    reg(0x090, "RULE_DST_PORT", 1, Access::Rw, "staged rule: destination port", M16),
    reg(
        0x094,
        "RULE_QPN",
        1,
        Access::Rw,
        "staged rule: BTH destination QP value (bits 23:0)",
        &[],
    ),
    reg(
        0x098,
        "RULE_QPN_MASK",
        1,
        Access::Rw,
        "staged rule: BTH destination QP mask (bits 23:0)",
        &[],
    ),
    reg(
        0x0A0,
        "RULE_SRC",
        4,
        Access::Rw,
        "staged rule: source address (IPv4 as ::ffff:a.b.c.d); word i holds bytes 4i..4i+3, byte 4i in bits 31:24",
        &[],
    ),
    reg(0x0B0, "RULE_SRC_MASK", 4, Access::Rw, "staged rule: source address mask", &[]),
    reg(0x0C0, "RULE_DST", 4, Access::Rw, "staged rule: destination address", &[]),
    reg(
        0x0D0,
        "RULE_DST_MASK",
        4,
        Access::Rw,
        "staged rule: destination address mask",
        &[],
    ),
    reg(
        0x100,
        "TABLE_SELECT",
        1,
        Access::Rw,
        "where the next TABLE_DATA write goes",
        &[table_select::INDEX, table_select::CONTEXT, table_select::BANK],
    ),
    reg(
        0x104,
        "TABLE_DATA",
        1,
        Access::Wo,
        "writes one indirection table entry (a queue number) at TABLE_SELECT, which then advances",
        &[],
    ),
];

/// The offset of a register by name, `None` for a name not in [`MAP`].
pub const fn offset(name: &str) -> Option<u32> {
    crate::regmap::offset(MAP, name)
}

/// The offsets of the named constants below: a misspelt name fails the build.
const fn at(name: &str) -> u32 {
    crate::regmap::const_offset(MAP, name)
}

/// `ID`.
pub const ID: u32 = at("ID");
/// `CAPS`.
pub const CAPS: u32 = at("CAPS");
/// `STATUS`.
pub const STATUS: u32 = at("STATUS");
/// `COMMIT`.
pub const COMMIT: u32 = at("COMMIT");
/// `PACKETS`.
pub const PACKETS: u32 = at("PACKETS");
/// `CTX_CONTROL`.
pub const CTX_CONTROL: u32 = at("CTX_CONTROL");
/// `CTX_FIELDS`.
pub const CTX_FIELDS: u32 = at("CTX_FIELDS");
/// `CTX_KEY` (13 words).
pub const CTX_KEY: u32 = at("CTX_KEY");
/// `RULE_CONTROL`.
pub const RULE_CONTROL: u32 = at("RULE_CONTROL");
/// `RULE_ETHERTYPE`.
pub const RULE_ETHERTYPE: u32 = at("RULE_ETHERTYPE");
/// `RULE_L4`.
pub const RULE_L4: u32 = at("RULE_L4");
/// `RULE_SRC_PORT`.
pub const RULE_SRC_PORT: u32 = at("RULE_SRC_PORT");
/// `RULE_DST_PORT`.
pub const RULE_DST_PORT: u32 = at("RULE_DST_PORT");
/// `RULE_QPN`.
pub const RULE_QPN: u32 = at("RULE_QPN");
/// `RULE_QPN_MASK`.
pub const RULE_QPN_MASK: u32 = at("RULE_QPN_MASK");
/// `RULE_SRC` (4 words).
pub const RULE_SRC: u32 = at("RULE_SRC");
/// `RULE_SRC_MASK` (4 words).
pub const RULE_SRC_MASK: u32 = at("RULE_SRC_MASK");
/// `RULE_DST` (4 words).
pub const RULE_DST: u32 = at("RULE_DST");
/// `RULE_DST_MASK` (4 words).
pub const RULE_DST_MASK: u32 = at("RULE_DST_MASK");
/// `TABLE_SELECT`.
pub const TABLE_SELECT: u32 = at("TABLE_SELECT");
/// `TABLE_DATA`.
pub const TABLE_DATA: u32 = at("TABLE_DATA");

/// A register write: (byte offset, value).
pub type Write32 = (u32, u32);

/// Writes that stage `rule` (in address order; follow them with [`commit_rule`]).
pub fn rule_writes(rule: &Rule) -> [Write32; 23] {
    let (queue, target) = match rule.action {
        Action::Queue(q) => (1, u32::from(q)),
        Action::Context(c) => (0, u32::from(c)),
    };
    let (v, m) = (&rule.value, &rule.mask);
    let mut w = [(0, 0); 23];
    w[0] = (
        RULE_CONTROL,
        rule_control::ENABLE.put(rule.enabled.into())
            | rule_control::QUEUE.put(queue)
            | rule_control::TARGET.put(target),
    );
    w[1] = (RULE_ETHERTYPE, pair16(v.ethertype, m.ethertype));
    w[2] = (
        RULE_L4,
        match8::VALUE.put(v.l4_protocol.into()) | match8::MASK.put(m.l4_protocol.into()),
    );
    w[3] = (RULE_SRC_PORT, pair16(v.src_port, m.src_port));
    w[4] = (RULE_DST_PORT, pair16(v.dst_port, m.dst_port));
    w[5] = (RULE_QPN, v.qpn & 0xFF_FFFF);
    w[6] = (RULE_QPN_MASK, m.qpn & 0xFF_FFFF);
    let addrs = [
        (RULE_SRC, &v.src),
        (RULE_SRC_MASK, &m.src),
        (RULE_DST, &v.dst),
        (RULE_DST_MASK, &m.dst),
    ];
    for (a, (base, bytes)) in addrs.iter().enumerate() {
        for (i, word) in bytes.chunks_exact(4).enumerate() {
            w[7 + 4 * a + i] = (
                base + 4 * i as u32,
                u32::from_be_bytes([word[0], word[1], word[2], word[3]]),
            );
        }
    }
    w
}

fn pair16(value: u16, mask: u16) -> u32 {
    match16::VALUE.put(value.into()) | match16::MASK.put(mask.into())
}

/// The commit of the staged rule into slot `index`.
pub fn commit_rule(index: u8) -> Write32 {
    (COMMIT, commit::INDEX.put(index.into()))
}

/// The commit of the staged context into context `index`.
pub fn commit_context(index: u8) -> Write32 {
    (
        COMMIT,
        commit::INDEX.put(index.into()) | commit::CONTEXT.put(1),
    )
}

/// An RSS context as the hardware stores it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ContextRegs {
    /// Hash function.
    pub function: Function,
    /// Hashed fields.
    pub fields: HashFields,
    /// The key; a 40-byte key is stored with 12 zero bytes after it (which no input of 36 bytes
    /// or less reaches).
    pub key: [u8; KEY_BYTES],
    /// log2 of the indirection table entries in use. The hardware uses at most
    /// `CAPS.TABLE_LOG2`, so a larger value is written as the field's largest, which it treats
    /// the same way.
    pub table_log2: u8,
    /// The table bank in use: 0 or 1 (only bit 0 is written).
    pub bank: u8,
}

/// Writes that stage `ctx` (follow them with [`commit_context`]).
pub fn context_writes(ctx: &ContextRegs) -> [Write32; 15] {
    let mut w = [(0, 0); 15];
    w[0] = (
        CTX_CONTROL,
        ctx_control::XOR.put(u32::from(ctx.function == Function::Xor))
            // Saturated rather than truncated: 32 must not become 0 (a one-entry table).
            | ctx_control::TABLE_LOG2.put(u32::from(ctx.table_log2).min(ctx_control::TABLE_LOG2.max_value()))
            | ctx_control::BANK.put(ctx.bank.into()),
    );
    w[1] = (CTX_FIELDS, ctx_fields::FIELDS.put(ctx.fields.0));
    for (i, word) in ctx.key.chunks_exact(4).enumerate() {
        w[2 + i] = (
            CTX_KEY + 4 * i as u32,
            u32::from_be_bytes([word[0], word[1], word[2], word[3]]),
        );
    }
    w
}

/// The `TABLE_SELECT` write that points the following `TABLE_DATA` writes at `index` of
/// `context`'s table `bank` (0 or 1; only bit 0 is written).
pub fn table_select(context: u8, bank: u8, index: u16) -> Write32 {
    (
        TABLE_SELECT,
        table_select::INDEX.put(index.into())
            | table_select::CONTEXT.put(context.into())
            | table_select::BANK.put(bank.into()),
    )
}

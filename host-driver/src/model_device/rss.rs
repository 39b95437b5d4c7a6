//! The RSS pipeline's registers (docs/rss-registers.md, `model::rss::regs`) over the model's
//! steering: rules and contexts staged and committed between two frames, each context's
//! indirection table in two banks.

use super::regfile::{Pending, RegFile};
use super::{Nic, COMMAND_CYCLES};
use rocenic_model::nic::{DEFAULT_CONTEXTS, DEFAULT_RULES, DEFAULT_TABLE};
use rocenic_model::regmap::Access;
use rocenic_model::rss::regs::{
    self, caps, commit, ctx_control, ctx_fields, match16, match8, rule_control, status,
    table_select, KEY_BYTES,
};
use rocenic_model::rss::{Action, Function, HashFields, Rule, SteeringKey};

/// log2 of the largest indirection table.
const TABLE_LOG2: u32 = DEFAULT_TABLE.trailing_zeros();
/// Bits of a queue number.
const QUEUE_W: u32 = 16;

/// The block's state beyond the model's steering.
pub(super) struct RssBlock {
    regs: RegFile,
    pending: Option<Pending>,
    /// Each context's two table banks.
    banks: Vec<[[u16; DEFAULT_TABLE]; 2]>,
    packets: u32,
}

impl RssBlock {
    /// The block out of reset: every context Toeplitz over no field with a zero key and a
    /// one-entry table in bank 0 (queue 0, unhashed), as the RTL's reset leaves it.
    pub(super) fn new(nic: &mut Nic) -> Self {
        for i in 0..DEFAULT_CONTEXTS {
            nic.steering
                .set_context(
                    i,
                    Function::Toeplitz,
                    HashFields::NONE,
                    &[0; KEY_BYTES],
                    &[0],
                )
                .expect("the reset context fits the model");
        }
        RssBlock {
            regs: RegFile::new(regs::MAP),
            pending: None,
            banks: vec![[[0; DEFAULT_TABLE]; 2]; DEFAULT_CONTEXTS],
            packets: 0,
        }
    }

    pub(super) fn busy(&self) -> bool {
        self.pending.is_some()
    }

    /// A frame went through the pipeline.
    pub(super) fn parsed(&mut self) {
        self.packets = self.packets.wrapping_add(1);
    }

    pub(super) fn read(&self, addr: u32) -> u32 {
        match addr {
            regs::ID => regs::ID_VALUE,
            regs::CAPS => {
                caps::RULES.put(DEFAULT_RULES as u32)
                    | caps::CONTEXTS.put(DEFAULT_CONTEXTS as u32)
                    | caps::TABLE_LOG2.put(TABLE_LOG2)
                    | caps::QUEUE_W.put(QUEUE_W)
            }
            regs::STATUS => status::BUSY.put(self.busy().into()),
            regs::PACKETS => self.packets,
            _ => match self.regs.access(addr) {
                Some(Access::Rw) => self.regs.get(addr),
                _ => 0,
            },
        }
    }

    pub(super) fn write(&mut self, addr: u32, value: u32, cycle: u64) {
        match addr {
            regs::COMMIT => {
                self.pending = Some(Pending {
                    word: value,
                    due: cycle + COMMAND_CYCLES,
                });
            }
            regs::TABLE_DATA => {
                let sel = self.regs.get(regs::TABLE_SELECT);
                let (i, c, b) = (
                    table_select::INDEX.get(sel) as usize,
                    table_select::CONTEXT.get(sel) as usize,
                    table_select::BANK.get(sel) as usize,
                );
                if let Some(e) = self.banks.get_mut(c).and_then(|t| t[b].get_mut(i)) {
                    *e = value as u16;
                }
                let next = table_select::INDEX.put(i as u32 + 1);
                let keep = sel & !table_select::INDEX.put(table_select::INDEX.max_value());
                self.regs.set(regs::TABLE_SELECT, keep | next);
            }
            _ if self.regs.access(addr) == Some(Access::Rw) => self.regs.set(addr, value),
            _ => {}
        }
    }

    /// Applies the pending commit once its time has come (between two frames).
    pub(super) fn complete(&mut self, nic: &mut Nic, cycle: u64) {
        let Some(p) = self.pending.filter(|p| p.due <= cycle) else {
            return;
        };
        self.pending = None;
        let index = commit::INDEX.get(p.word) as usize;
        // The pipeline ignores an index past its tables.
        if commit::CONTEXT.get(p.word) != 0 {
            if index < DEFAULT_CONTEXTS {
                let ctrl = self.regs.get(regs::CTX_CONTROL);
                let log2 = ctx_control::TABLE_LOG2.get(ctrl).min(TABLE_LOG2);
                let bank = ctx_control::BANK.get(ctrl) as usize;
                let function = if ctx_control::XOR.get(ctrl) != 0 {
                    Function::Xor
                } else {
                    Function::Toeplitz
                };
                let fields = HashFields(ctx_fields::FIELDS.get(self.regs.get(regs::CTX_FIELDS)));
                let key = self.regs.bytes::<KEY_BYTES>(regs::CTX_KEY);
                let table = &self.banks[index][bank][..1 << log2];
                nic.steering
                    .set_context(index, function, fields, &key, table)
                    .expect("contexts set from reset, tables within the model's");
            }
        } else if index < DEFAULT_RULES {
            nic.steering
                .set_rule(index, self.staged_rule())
                .expect("index checked");
        }
    }

    fn staged_rule(&self) -> Rule {
        let r = &self.regs;
        let ctrl = r.get(regs::RULE_CONTROL);
        let target = rule_control::TARGET.get(ctrl);
        let m16 = |a| {
            let w = r.get(a);
            (match16::VALUE.get(w) as u16, match16::MASK.get(w) as u16)
        };
        let (et, et_m) = m16(regs::RULE_ETHERTYPE);
        let (sp, sp_m) = m16(regs::RULE_SRC_PORT);
        let (dp, dp_m) = m16(regs::RULE_DST_PORT);
        let l4 = r.get(regs::RULE_L4);
        let key = |src, dst, qpn, l4: Field8, (et, sp, dp): (u16, u16, u16)| SteeringKey {
            ethertype: et,
            l4_protocol: l4.0,
            src: r.bytes::<16>(src),
            dst: r.bytes::<16>(dst),
            src_port: sp,
            dst_port: dp,
            qpn: r.get(qpn) & 0xFF_FFFF,
        };
        Rule {
            enabled: rule_control::ENABLE.get(ctrl) != 0,
            value: key(
                regs::RULE_SRC,
                regs::RULE_DST,
                regs::RULE_QPN,
                Field8(match8::VALUE.get(l4) as u8),
                (et, sp, dp),
            ),
            mask: key(
                regs::RULE_SRC_MASK,
                regs::RULE_DST_MASK,
                regs::RULE_QPN_MASK,
                Field8(match8::MASK.get(l4) as u8),
                (et_m, sp_m, dp_m),
            ),
            action: if rule_control::QUEUE.get(ctrl) != 0 {
                Action::Queue(target as u16)
            } else {
                Action::Context(target as u8)
            },
        }
    }
}

/// An 8-bit match field.
#[derive(Clone, Copy)]
struct Field8(u8);

//! Steering rules: value/mask matches whose first hit sends a packet to a queue or an RSS
//! context (`model::rss::steer`).

use super::RssPipeline;
use crate::{Bus, Error};
use rocenic_model::rss::regs;
use rocenic_model::rss::{Action, Rule};

/// The BTH QPN's bits.
const QPN_MASK: u32 = 0xFF_FFFF;

impl<B: Bus, const CONTEXTS: usize> RssPipeline<B, CONTEXTS> {
    /// Sets rule `index` (rules are tried in index order): its QPN value and mask must fit 24
    /// bits, its action name a context in use or a queue of `CAPS.QUEUE_W` bits.
    pub fn set_rule(&mut self, index: usize, rule: &Rule) -> Result<(), Error> {
        let rules = self.caps.rules as usize;
        if index >= rules {
            return Err(Error::RuleIndex { index, rules });
        }
        for qpn in [rule.value.qpn, rule.mask.qpn] {
            if qpn & !QPN_MASK != 0 {
                return Err(Error::QpnTooWide(qpn));
            }
        }
        match rule.action {
            Action::Queue(q) => self.check_queue(q)?,
            Action::Context(c) => self.check_context(c.into())?,
        }
        self.bus.write_all(&regs::rule_writes(rule))?;
        self.commit(regs::commit_rule(index as u8))
    }

    /// Disables rule `index` (it matches nothing).
    pub fn disable_rule(&mut self, index: usize) -> Result<(), Error> {
        self.set_rule(index, &Rule::default())
    }
}

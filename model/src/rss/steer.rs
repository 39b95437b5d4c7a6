//! Steering: "classify first, distribute after", as "User Space IPoIB Packet Processing" designs it
//! (docs/reference.md §2).
//!
//! A table of rules, each a value/mask match over the fields the parser extracts. The first
//! enabled rule that matches decides the packet's fate: a fixed queue, or an RSS context whose
//! hash and indirection table pick the queue. A packet no rule matches goes to RSS context 0.
//! This is the RTL's definition (`rtl/rss/rss_steering.sv`), bit for bit.

use super::parse::{ParseFlags, Parsed};
use super::{Context, FlowTuple, HashType, IpPair};
use core::convert::Infallible;

/// The fields a steering rule can match, as the hardware sees them.
///
/// Addresses are 16 bytes: IPv6 as is, IPv4 as an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`),
/// all zero when the packet has no IP header. Ports and the QPN are zero when the packet has no
/// TCP/UDP header or BTH (a fragment has no ports).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SteeringKey {
    /// The EtherType of the L3 payload (0 when none was reached).
    pub ethertype: u16,
    /// The IP protocol / final IPv6 next header.
    pub l4_protocol: u8,
    /// Source address.
    pub src: [u8; 16],
    /// Destination address.
    pub dst: [u8; 16],
    /// TCP/UDP source port.
    pub src_port: u16,
    /// TCP/UDP destination port.
    pub dst_port: u16,
    /// BTH destination QP (24 bits).
    pub qpn: u32,
}

impl SteeringKey {
    /// The key of a parsed packet.
    pub fn of(parsed: &Parsed) -> Self {
        let t = &parsed.tuple;
        let (src, dst) = match t.ip {
            IpPair::None => ([0; 16], [0; 16]),
            IpPair::V4 { src, dst } => (v4_mapped(src), v4_mapped(dst)),
            IpPair::V6 { src, dst } => (src, dst),
        };
        SteeringKey {
            ethertype: parsed.ethertype,
            l4_protocol: parsed.l4_protocol,
            src,
            dst,
            src_port: t.src_port,
            dst_port: t.dst_port,
            qpn: t.bth_dest_qpn.unwrap_or(0) & 0xFF_FFFF,
        }
    }

    /// Whether `self` equals `value` on every bit set in `mask`.
    pub fn matches(&self, value: &SteeringKey, mask: &SteeringKey) -> bool {
        let bytes_match = |x: &[u8; 16], v: &[u8; 16], m: &[u8; 16]| {
            x.iter().zip(v).zip(m).all(|((x, v), m)| (x ^ v) & m == 0)
        };
        (self.ethertype ^ value.ethertype) & mask.ethertype == 0
            && (self.l4_protocol ^ value.l4_protocol) & mask.l4_protocol == 0
            && bytes_match(&self.src, &value.src, &mask.src)
            && bytes_match(&self.dst, &value.dst, &mask.dst)
            && (self.src_port ^ value.src_port) & mask.src_port == 0
            && (self.dst_port ^ value.dst_port) & mask.dst_port == 0
            && (self.qpn ^ value.qpn) & mask.qpn & 0xFF_FFFF == 0
    }
}

/// `::ffff:a.b.c.d`.
pub fn v4_mapped(a: [u8; 4]) -> [u8; 16] {
    let mut m = [0; 16];
    m[10] = 0xFF;
    m[11] = 0xFF;
    m[12..].copy_from_slice(&a);
    m
}

/// What a matching rule does with a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// Deliver to this queue; no hash is computed.
    Queue(u16),
    /// Hash with this RSS context and take the queue from its indirection table.
    Context(u8),
}

impl Default for Action {
    fn default() -> Self {
        Action::Context(0)
    }
}

/// One steering rule. A disabled rule matches nothing; an enabled rule with an all-zero mask
/// matches everything.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Rule {
    /// Whether the rule takes part.
    pub enabled: bool,
    /// The values to compare with.
    pub value: SteeringKey,
    /// Which bits are compared.
    pub mask: SteeringKey,
    /// What a match does.
    pub action: Action,
}

/// The first enabled rule that matches, with its index.
pub fn steer(rules: &[Rule], key: &SteeringKey) -> Option<(usize, Action)> {
    rules
        .iter()
        .enumerate()
        .find(|(_, r)| r.enabled && key.matches(&r.value, &r.mask))
        .map(|(i, r)| (i, r.action))
}

/// An RSS context with the active part of its indirection table (2^k entries).
#[derive(Clone, Copy, Debug)]
pub struct ContextView<'a> {
    /// Function, fields and key.
    pub context: &'a Context,
    /// The indirection table entries in use.
    pub table: &'a [u16],
}

/// The per-packet metadata the RSS pipeline reports next to the packet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Meta {
    /// What the parser found.
    pub flags: ParseFlags,
    /// The RSS hash (0 when a rule sent the packet to a fixed queue).
    pub hash: u32,
    /// The fields the hash covered.
    pub hash_type: HashType,
    /// The index of the rule that matched, if any (the RTL's rule index is 8 bits wide; the
    /// model reports any index of the list it was given).
    pub rule: Option<usize>,
    /// The destination queue.
    pub queue: u16,
}

/// Steers and hashes a parsed packet: what the RTL pipeline reports for it.
///
/// A context index past the end of `contexts` wraps (the hardware's index field has
/// log2(contexts) bits; drivers reject such rules before they reach it). An empty `contexts`, or
/// a table whose length is not a power of two (an empty one included), sends the packet to
/// queue 0.
pub fn distribute(parsed: &Parsed, rules: &[Rule], contexts: &[ContextView<'_>]) -> Meta {
    let hashed = distribute_with(parsed, rules, contexts, |view, tuple| {
        // A 52-byte key covers every input (at most 39 bytes), so this cannot fail; a context
        // built with a shorter key reports hash 0 rather than panic.
        Ok::<_, Infallible>(view.context.hash(tuple).unwrap_or_default())
    });
    match hashed {
        Ok(meta) => meta,
        Err(never) => match never {},
    }
}

/// [`distribute`] with the hash taken from `hash(view, tuple)` (the hash and hash type of
/// `tuple` under the context `view` picked): steering and the indirection lookup stay here,
/// and the hash can come from elsewhere, such as a board's hash unit. `hash` is called only
/// when a context is picked; its error stops the packet and is returned.
pub fn distribute_with<E>(
    parsed: &Parsed,
    rules: &[Rule],
    contexts: &[ContextView<'_>],
    hash: impl FnOnce(&ContextView<'_>, &FlowTuple) -> Result<(u32, HashType), E>,
) -> Result<Meta, E> {
    distribute_by(parsed, rules, contexts, |view| view.table, hash)
}

/// [`distribute_with`] over any representation of the contexts: `table(c)` is context `c`'s
/// indirection table, `hash(c, tuple)` its hash. How a holder of contexts that are not
/// [`crate::rss::Context`]s (the NIC model keeps keys, not Toeplitz tables) steers with the same
/// rule.
pub fn distribute_by<C, E>(
    parsed: &Parsed,
    rules: &[Rule],
    contexts: &[C],
    table: impl for<'c> Fn(&'c C) -> &'c [u16],
    hash: impl FnOnce(&C, &FlowTuple) -> Result<(u32, HashType), E>,
) -> Result<Meta, E> {
    let found = steer(rules, &SteeringKey::of(parsed));
    let mut meta = Meta {
        flags: parsed.flags,
        rule: found.map(|(i, _)| i),
        ..Meta::default()
    };
    match found.map_or(Action::Context(0), |(_, a)| a) {
        Action::Queue(q) => meta.queue = q,
        Action::Context(c) => {
            if contexts.is_empty() {
                return Ok(meta);
            }
            let context = &contexts[usize::from(c) % contexts.len()];
            let (hash, hash_type) = hash(context, &parsed.tuple)?;
            meta.hash = hash;
            meta.hash_type = hash_type;
            let entries = table(context);
            let len = entries.len();
            if len.is_power_of_two() {
                meta.queue = entries[hash as usize & (len - 1)];
            }
        }
    }
    Ok(meta)
}

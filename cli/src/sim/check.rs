//! What a sim scenario means: each NIC's send tables checked as a send scenario's are
//! (`send/check.rs`, with the receive keys and TSO allowed), then the receive side (work queues,
//! the QPs' receive queues, RSS contexts, steering rules) and the two NICs against each other
//! (every RC QP's peer on the other NIC, addresses that are the other NIC's).
//!
//! As for `rocenic send`, a scenario error is a set-up that cannot be programmed or that cannot
//! mean what it says (an RC QP with no peer, a table naming no queue); what the NICs judge at
//! run time (a buffer too short, a region that does not cover a buffer) runs and completes with
//! its status. The first error is reported: both NICs' send tables (a, then b), then each NIC's
//! QP slots, then each NIC's receive tables (`[[wq]]`, the QPs' receive keys, `[[rss]]`,
//! `[[rule]]`), then the peers.

use super::scenario::{self, Scenario, Side, SIDES};
use crate::rss::rule::MatchKeys;
use crate::rss::{check_cover, choose_key};
use crate::send::check::{self as send_check, Flavor, Plan};
use crate::send::scenario::{At, OpName, Place, QpKind, ScenarioError};
use rocenic_model::nic::{DEFAULT_CONTEXTS, DEFAULT_RULES, DEFAULT_TABLE};
use rocenic_model::qp::{Psn, DEFAULT_QPS, QPN_MAX};
use rocenic_model::rss::{Action, Function, HashFields, Rule};
use rocenic_model::rx::engine::DEFAULT_WQS;
use rocenic_model::rx::{qp_slot, Target};
use std::net::IpAddr;

/// A work queue and the buffers the host keeps posted to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WqPlan {
    pub wq: u16,
    /// The QP its completions name.
    pub qpn: u32,
    pub pd: u32,
    pub buffers: u32,
    pub size: u32,
    pub addr: u64,
    pub lkey: u32,
    /// Takes frames that are not RoCEv2, whole.
    pub raw: bool,
}

/// A QP's receive side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Receiver {
    pub qpn: u32,
    pub target: Target,
    /// The first PSN it expects: its RC peer's first (0 for UD).
    pub epsn: Psn,
}

/// An RSS context.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContextPlan {
    pub function: Function,
    pub fields: HashFields,
    pub key: Vec<u8>,
    pub table: Vec<u16>,
}

/// One NIC, checked.
#[derive(Clone, Debug)]
pub struct SidePlan {
    pub send: Plan,
    pub wqs: Vec<WqPlan>,
    /// In file order.
    pub receivers: Vec<Receiver>,
    /// Context i is the i-th `[[rss]]`.
    pub contexts: Vec<ContextPlan>,
    /// Rule i is the i-th `[[rule]]`.
    pub rules: Vec<Rule>,
    /// At most this many frames leave the NIC (a bound for the run, not a count).
    pub frames: u64,
    /// Its requests, repeats counted.
    pub requests: u64,
}

/// A message about `at`'s table.
fn fail<T, U>(at: &At<U>, message: impl Into<String>) -> Result<T, ScenarioError> {
    Err(ScenarioError {
        line: at.line,
        place: Some(at.place),
        message: message.into(),
    })
}

/// How a work queue is used; a queue serves one purpose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Use {
    /// Nothing names it.
    Free,
    /// The own receive queue of the QP of this `[[qp]]` number.
    Own(usize),
    /// A shared receive queue, first named by this `[[qp]]`.
    Shared(usize),
    /// Named by an indirection table or a rule: an RSS QP's queue.
    Rss,
}

/// Checks `s` and builds each NIC's plan.
pub fn check(s: &Scenario) -> Result<[SidePlan; 2], ScenarioError> {
    let reliable = s.link.is_some();
    let sends = [
        send_check::plan(&s.sides[0].send, Flavor::Sim { reliable })?,
        send_check::plan(&s.sides[1].send, Flavor::Sim { reliable })?,
    ];
    for side in &s.sides {
        qp_slots(side)?;
    }
    let mut receive: Vec<Receive> = Vec::new();
    for side in &s.sides {
        receive.push(receive_side(side)?);
    }
    let mut out = Vec::new();
    for (k, (send, (mut wqs, mut receivers, contexts, rules))) in
        sends.into_iter().zip(receive).enumerate()
    {
        let (side, other) = (&s.sides[k], &s.sides[1 - k]);
        peers(side, other, &mut receivers)?;
        addresses(side, other)?;
        for (w, at) in wqs.iter_mut().zip(&side.wq) {
            w.qpn = completion_qpn(at, w, side, &receivers)?;
        }
        let (frames, requests) = bound(side, &send);
        out.push(SidePlan {
            send,
            wqs,
            receivers,
            contexts,
            rules,
            frames,
            requests,
        });
    }
    let [a, b]: [SidePlan; 2] = out.try_into().expect("two sides");
    Ok([a, b])
}

type Receive = (Vec<WqPlan>, Vec<Receiver>, Vec<ContextPlan>, Vec<Rule>);

/// Each QP of a NIC in a slot of its own: the NIC keeps a QP, send and receive side, in the
/// slot its QPN's low bits name, and serves the send queues in slot order.
fn qp_slots(side: &Side) -> Result<(), ScenarioError> {
    let mut slots: Vec<(usize, u32)> = Vec::new(); // (slot, qpn)
    for at in &side.send.qp {
        let qpn = at.item.qpn;
        let slot = qp_slot(qpn, DEFAULT_QPS);
        if let Some((_, holder)) = slots.iter().find(|(s, _)| *s == slot) {
            return fail(
                at,
                format!(
                    "key \"qpn\": 0x{qpn:x} and 0x{holder:x} share QP slot {slot} (QPN bits \
                     5:0); the NIC keeps each QP in the slot those bits name"
                ),
            );
        }
        slots.push((slot, qpn));
    }
    Ok(())
}

/// One NIC's receive tables, in the order `[[wq]]`, the QPs' keys, `[[rss]]`, `[[rule]]`.
fn receive_side(side: &Side) -> Result<Receive, ScenarioError> {
    let wqs = work_queues(&side.wq)?;
    let mut uses = vec![Use::Free; wqs.len()];
    let find = |w: u16| wqs.iter().position(|p| p.wq == w);
    let mut receivers: Vec<Receiver> = Vec::new();
    for (i, at) in side.send.qp.iter().enumerate() {
        let q = &at.item;
        let given: Vec<&str> = [
            ("rq", q.rq.is_some()),
            ("srq", q.srq.is_some()),
            ("rss", q.rss == Some(true)),
        ]
        .iter()
        .filter(|(_, on)| *on)
        .map(|(k, _)| *k)
        .collect();
        if given.len() > 1 {
            return fail(
                at,
                format!(
                    "keys \"{}\" and \"{}\" both given; a QP receives into one place",
                    given[0], given[1]
                ),
            );
        }
        if q.qp_type == QpKind::Raw && !given.is_empty() {
            return fail(
                at,
                format!(
                    "key \"{}\": a raw QP takes no RoCE packets; frames land on raw work queues \
                     ([[nic.{}.wq]] raw = true) that a rule or an RSS context names",
                    given[0],
                    side_name(at)
                ),
            );
        }
        let target = match (q.rq, q.srq, q.rss == Some(true)) {
            (Some(w), _, _) | (_, Some(w), _) => {
                let key = if q.rq.is_some() { "rq" } else { "srq" };
                let Some(k) = find(w) else {
                    return fail(
                        at,
                        format!("key \"{key}\": no [[nic.{}.wq]] has wq {w}", side_name(at)),
                    );
                };
                let own = key == "rq";
                match (own, uses[k]) {
                    (true, Use::Free) => uses[k] = Use::Own(i),
                    (false, Use::Free) => uses[k] = Use::Shared(i),
                    (false, Use::Shared(_)) => {}
                    (_, Use::Own(j)) => {
                        return fail(
                            at,
                            format!(
                                "key \"{key}\": wq {w} is the own receive queue of {}; an own \
                                 queue serves one QP (a shared one is named with \"srq\")",
                                side.send.qp[j].place
                            ),
                        )
                    }
                    (true, Use::Shared(j)) => {
                        return fail(
                            at,
                            format!(
                                "key \"rq\": wq {w} is a shared receive queue ({} names it with \
                                 \"srq\")",
                                side.send.qp[j].place
                            ),
                        )
                    }
                    (_, Use::Rss) => unreachable!("tables and rules are read after the QPs"),
                }
                if own {
                    Target::Own(w)
                } else {
                    Target::Shared(w)
                }
            }
            (None, None, true) => {
                if q.qp_type != QpKind::Ud {
                    return fail(
                        at,
                        "key \"rss\": only a UD QP spreads over RSS queues (an RC QP keeps its \
                         messages in order on one)",
                    );
                }
                Target::Rss
            }
            (None, None, false) => continue,
        };
        receivers.push(Receiver {
            qpn: q.qpn,
            target,
            epsn: Psn::new(0).expect("0 is a PSN"),
        });
    }
    let contexts = contexts(&side.rss, &wqs, &mut uses, side)?;
    let rules = rules(&side.rule, &wqs, &mut uses, contexts.len(), side)?;
    Ok((wqs, receivers, contexts, rules))
}

/// `a` or `b`, the NIC of a table.
fn side_name<U>(at: &At<U>) -> &'static str {
    at.place.side.unwrap_or("?")
}

fn work_queues(list: &[At<scenario::Wq>]) -> Result<Vec<WqPlan>, ScenarioError> {
    let mut out: Vec<WqPlan> = Vec::new();
    let mut places: Vec<Place> = Vec::new();
    for at in list {
        let w = &at.item;
        if usize::from(w.wq) >= DEFAULT_WQS {
            return fail(
                at,
                format!(
                    "key \"wq\": {} is out of range (0..={}, the NIC's work-queue table)",
                    w.wq,
                    DEFAULT_WQS - 1
                ),
            );
        }
        if let Some(i) = out.iter().position(|p| p.wq == w.wq) {
            return fail(at, format!("key \"wq\": {} is also {}'s", w.wq, places[i]));
        }
        if !(1..=1 << 16).contains(&w.buffers) {
            return fail(
                at,
                format!(
                    "key \"buffers\": {} is out of range (1..=65536, the largest ring)",
                    w.buffers
                ),
            );
        }
        if w.size == 0 {
            return fail(at, "key \"size\": 0; a buffer holds at least one byte");
        }
        if w.addr
            .checked_add(u64::from(w.buffers) * u64::from(w.size) - 1)
            .is_none()
        {
            return fail(
                at,
                "addr + buffers × size runs past the end of the 64-bit address space",
            );
        }
        if let Some(q) = w.qpn {
            if q > QPN_MAX {
                return fail(
                    at,
                    format!("key \"qpn\": {q:#x} is out of range (0..=0xFFFFFF)"),
                );
            }
        }
        out.push(WqPlan {
            wq: w.wq,
            qpn: w.qpn.unwrap_or(0),
            pd: w.pd,
            buffers: w.buffers,
            size: w.size,
            addr: w.addr,
            lkey: w.lkey,
            raw: w.raw.unwrap_or(false),
        });
        places.push(at.place);
    }
    Ok(out)
}

/// Marks `w` (named under `key` by `at`) as an RSS queue, refusing a queue of a QP.
fn rss_queue<U>(
    at: &At<U>,
    key: &str,
    w: u16,
    wqs: &[WqPlan],
    uses: &mut [Use],
    side: &Side,
) -> Result<(), ScenarioError> {
    let Some(k) = wqs.iter().position(|p| p.wq == w) else {
        return fail(
            at,
            format!("key \"{key}\": no [[nic.{}.wq]] has wq {w}", side_name(at)),
        );
    };
    match uses[k] {
        Use::Own(j) | Use::Shared(j) => fail(
            at,
            format!(
                "key \"{key}\": wq {w} is the receive queue of {}; RSS and rules pick queues of \
                 no QP",
                side.send.qp[j].place
            ),
        ),
        Use::Free | Use::Rss => {
            uses[k] = Use::Rss;
            Ok(())
        }
    }
}

fn contexts(
    list: &[At<scenario::Rss>],
    wqs: &[WqPlan],
    uses: &mut [Use],
    side: &Side,
) -> Result<Vec<ContextPlan>, ScenarioError> {
    let mut out = Vec::new();
    for at in list {
        let r = &at.item;
        if out.len() == DEFAULT_CONTEXTS {
            return fail(
                at,
                format!("more than {DEFAULT_CONTEXTS} RSS contexts, the NIC's"),
            );
        }
        let function = match r.function {
            None | Some(scenario::FunctionName::Toeplitz) => Function::Toeplitz,
            Some(scenario::FunctionName::Xor) => Function::Xor,
        };
        let mut fields = HashFields::NONE;
        for name in r.fields.iter().flatten() {
            match HashFields::from_name(name) {
                Some(f) => fields = fields.union(f),
                None => {
                    let known: Vec<&str> = HashFields::NAMES.iter().map(|(n, _)| *n).collect();
                    return fail(
                        at,
                        format!(
                            "key \"fields\": unknown field \"{name}\" (known: {})",
                            known.join(", ")
                        ),
                    );
                }
            }
        }
        if r.fields.is_none() {
            fields = HashFields::DEFAULT;
        }
        let symmetric = r.symmetric_key.unwrap_or(false);
        if r.key.is_some() && symmetric {
            return fail(
                at,
                "keys \"key\" and \"symmetric_key\" both given; a context has one key",
            );
        }
        if function == Function::Xor && (r.key.is_some() || symmetric) {
            let key = if symmetric { "symmetric_key" } else { "key" };
            return fail(at, format!("key \"{key}\": the xor function takes no key"));
        }
        let key = choose_key(fields, r.key.as_ref().map(|h| h.0.clone()), symmetric);
        if !(4..=rocenic_model::toeplitz::MAX_KEY_LEN).contains(&key.len()) {
            return fail(
                at,
                format!(
                    "key \"key\": {} bytes; a key has 4 to {} bytes",
                    key.len(),
                    rocenic_model::toeplitz::MAX_KEY_LEN
                ),
            );
        }
        if let Err(why) = check_cover(function, fields, &key) {
            return fail(at, format!("key \"key\": {why}"));
        }
        let n = r.table.len();
        if !n.is_power_of_two() || n > DEFAULT_TABLE {
            return fail(
                at,
                format!(
                    "key \"table\": {n} entries; an indirection table has a power of two of \
                     them, 1 to {DEFAULT_TABLE}"
                ),
            );
        }
        for &w in &r.table {
            rss_queue(at, "table", w, wqs, uses, side)?;
        }
        out.push(ContextPlan {
            function,
            fields,
            key,
            table: r.table.clone(),
        });
    }
    Ok(out)
}

fn rules(
    list: &[At<scenario::Rule>],
    wqs: &[WqPlan],
    uses: &mut [Use],
    contexts: usize,
    side: &Side,
) -> Result<Vec<Rule>, ScenarioError> {
    let mut out = Vec::new();
    for at in list {
        let r = &at.item;
        if out.len() == DEFAULT_RULES {
            return fail(
                at,
                format!("more than {DEFAULT_RULES} steering rules, the NIC's"),
            );
        }
        let action =
            match (r.wq, r.rss) {
                (Some(_), Some(_)) => return fail(
                    at,
                    "keys \"wq\" and \"rss\" both given; a rule sends a frame to a queue or to \
                     an RSS context",
                ),
                (None, None) => return fail(
                    at,
                    "missing key \"wq\" or \"rss\": a rule sends a frame to a queue or to an RSS \
                     context",
                ),
                (Some(w), None) => {
                    rss_queue(at, "wq", w, wqs, uses, side)?;
                    Action::Queue(w)
                }
                (None, Some(c)) => {
                    if usize::from(c) >= contexts {
                        return fail(
                            at,
                            format!(
                                "key \"rss\": context {c}, and [nic.{}] has {contexts} \
                             (one per [[nic.{}.rss]], from 0)",
                                side_name(at),
                                side_name(at)
                            ),
                        );
                    }
                    Action::Context(c)
                }
            };
        let keys = MatchKeys {
            qpn: r.qpn,
            src_ip: r.src_ip,
            dst_ip: r.dst_ip,
            src_port: r.src_port,
            dst_port: r.dst_port,
        };
        out.push(keys.rule(action).or_else(|why| fail(at, why))?);
    }
    Ok(out)
}

/// Every RC QP's peer is on the other NIC and names it back, with the same path MTU; its
/// receive side expects the peer's first PSN.
fn peers(side: &Side, other: &Side, receivers: &mut [Receiver]) -> Result<(), ScenarioError> {
    for at in &side.send.qp {
        let q = &at.item;
        if q.qp_type != QpKind::Rc {
            continue;
        }
        let dest = q.dest_qpn.expect("send_check requires it");
        let Some(peer) = other
            .send
            .qp
            .iter()
            .find(|p| p.item.qpn == dest && p.item.qp_type == QpKind::Rc)
        else {
            return fail(
                at,
                format!(
                    "key \"dest_qpn\": [nic.{}] has no RC QP 0x{dest:x}; an RC QP's peer is on \
                     the other NIC",
                    other_name(at)
                ),
            );
        };
        if peer.item.dest_qpn != Some(q.qpn) {
            return fail(
                at,
                format!(
                    "key \"dest_qpn\": its peer {} (0x{dest:x}) names 0x{:x}, not this QP \
                     (0x{:x})",
                    peer.place,
                    peer.item.dest_qpn.unwrap_or(0),
                    q.qpn
                ),
            );
        }
        let (mine, theirs) = (q.mtu.unwrap_or(1024), peer.item.mtu.unwrap_or(1024));
        if mine != theirs {
            return fail(
                at,
                format!(
                    "key \"mtu\": {mine}, and its peer {} has {theirs}; an RC pair has one path \
                     MTU",
                    peer.place
                ),
            );
        }
        if let Some(r) = receivers.iter_mut().find(|r| r.qpn == q.qpn) {
            r.epsn = Psn::new(peer.item.psn.unwrap_or(0)).expect("send_check bounds it");
        }
    }
    Ok(())
}

/// The other NIC's name, for a table of this one.
fn other_name<U>(at: &At<U>) -> &'static str {
    match at.place.side {
        Some(s) if s == SIDES[0] => SIDES[1],
        _ => SIDES[0],
    }
}

/// Every address vector names the other NIC: its MAC and one of its addresses.
fn addresses(side: &Side, other: &Side) -> Result<(), ScenarioError> {
    let nic = &other.send.nic.item;
    let check = |at_mac: [u8; 6], ip: IpAddr| -> Option<String> {
        if at_mac != nic.mac.0 {
            let m = |b: [u8; 6]| {
                b.iter()
                    .map(|x| format!("{x:02x}"))
                    .collect::<Vec<_>>()
                    .join(":")
            };
            return Some(format!(
                "key \"av.mac\": {} is not the MAC of [nic.{}] ({}), the NIC at the other end of \
                 the wire",
                m(at_mac),
                other.send.nic.place.side.unwrap_or("?"),
                m(nic.mac.0)
            ));
        }
        if !nic.ip.contains(&ip) {
            return Some(format!(
                "key \"av.ip\": {ip} is not an address of [nic.{}]",
                other.send.nic.place.side.unwrap_or("?")
            ));
        }
        None
    };
    for at in &side.send.qp {
        if let Some(av) = &at.item.av {
            if let Some(why) = check(av.mac.0, av.ip) {
                return fail(at, why);
            }
        }
    }
    for at in &side.send.wr {
        if let Some(av) = &at.item.av {
            if let Some(why) = check(av.mac.0, av.ip) {
                return fail(at, why);
            }
        }
    }
    Ok(())
}

/// The QP a work queue's completions name: its `qpn`, else the QP whose own or shared queue it
/// is, else the NIC's one RSS QP for an RSS queue.
fn completion_qpn(
    at: &At<scenario::Wq>,
    w: &WqPlan,
    side: &Side,
    receivers: &[Receiver],
) -> Result<u32, ScenarioError> {
    if let Some(q) = at.item.qpn {
        return Ok(q);
    }
    let named = receivers
        .iter()
        .find(|r| matches!(r.target, Target::Own(x) | Target::Shared(x) if x == w.wq));
    if let Some(r) = named {
        return Ok(r.qpn);
    }
    let rss: Vec<u32> = receivers
        .iter()
        .filter(|r| r.target == Target::Rss)
        .map(|r| r.qpn)
        .collect();
    let in_rss = side.rss.iter().any(|c| c.item.table.contains(&w.wq))
        || side.rule.iter().any(|r| r.item.wq == Some(w.wq));
    match (in_rss, rss.as_slice()) {
        (true, [q]) => Ok(*q),
        (true, _) => fail(
            at,
            format!(
                "missing key \"qpn\": wq {} is an RSS queue and [nic.{}] has {} RSS QPs; name \
                 the QP its completions carry",
                w.wq,
                side_name(at),
                rss.len()
            ),
        ),
        (false, _) => fail(
            at,
            format!(
                "missing key \"qpn\": no QP, indirection table or rule names wq {}; name the QP \
                 its completions carry",
                w.wq
            ),
        ),
    }
}

/// An upper bound on the frames the NIC sends, and its request count: each request's bytes
/// over its unit (path MTU, or MSS for TSO), plus one.
fn bound(side: &Side, plan: &Plan) -> (u64, u64) {
    let (mut frames, mut requests) = (0u64, 0u64);
    for at in &side.send.wr {
        let w = &at.item;
        let len: u64 = match (&w.sge, &w.inline) {
            (_, Some(bytes)) => bytes.0.len() as u64,
            (Some(sge), None) => sge.iter().map(|s| u64::from(s.length)).sum(),
            (None, None) => 0,
        };
        let mtu = plan
            .qps
            .iter()
            .find(|q| q.qpn == w.qpn)
            .map_or(256, |q| u64::from(q.config.mtu.bytes()));
        let unit = match (w.opcode, w.mss) {
            (OpName::Tso, Some(mss)) => u64::from(mss).max(1),
            _ => mtu,
        };
        let repeat = u64::from(w.repeat.unwrap_or(1));
        frames += repeat * (len / unit + 1);
        requests += repeat;
    }
    (frames, requests)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_plans() {
        let s = scenario::parse(super::super::DEFAULT).unwrap();
        let [a, b] = check(&s).unwrap();
        assert!(!a.receivers.is_empty() && !b.receivers.is_empty());
        assert_eq!(b.contexts[0].table.len(), 4);
        assert!(!b.rules.is_empty());
    }
}

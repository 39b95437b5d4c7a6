//! What a scenario means: every check made before anything runs, and the scenario turned into
//! the model's values with each work request already encoded as its WQE.
//!
//! A scenario error is a file the engine could not even be set up from (a value out of its
//! range, two regions at one address, a request naming no QP, a request that does not fit a
//! WQE). What the verbs engine itself judges (a bad lkey, a zero-length or misplaced gather
//! entry, too many entries, an RDMA WRITE on a UD QP, an address vector on the wrong QP type)
//! is not checked here: it runs and completes with its status, which is how a scenario
//! exercises the error paths. The first error is reported, table kind by table kind in the
//! order of the functions below, each in file order.
//!
//! `rocenic sim` checks each NIC's send tables here too ([`Flavor::Sim`]): it allows the keys a
//! send scenario may not have (a QP's receive queue) and checks their meaning in `sim/check.rs`.

use super::layout::{MAX_MEMORY, MAX_WRS, RESERVED_BASE, RESERVED_END};
use super::scenario::{self, At, FillName, OpName, Place, QpKind, Scenario, ScenarioError};
use rocenic_model::entropy::Profile;
use rocenic_model::qp::{
    self, Access, IpPair, MemoryRegion, PathMtu, Psn, QpConfig, DEFAULT_QPS, QPN_MAX, QPN_MIN,
};
use rocenic_model::rc::QpTransport;
use rocenic_model::wire::{EthernetAddress, Ipv4Address, Ipv6Address};
use rocenic_model::wqe::engine::DEFAULT_MRS;
use rocenic_model::wqe::regs::{mr_slot, MR_SLOT_LSB};
use rocenic_model::wqe::{
    self, DataSegment, Flags, Nic, Opcode, Payload, RemoteAddress, Tso, Vlan, WorkRequest, Wqe,
    MAX_WQE_BYTES,
};
use std::collections::HashMap;
use std::net::IpAddr;

/// The initial contents of a host-memory region.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RegionFill {
    Zero,
    Counter,
    Bytes(Vec<u8>),
}

/// One `[[memory]]` region.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    pub addr: u64,
    pub size: usize,
    pub fill: RegionFill,
}

/// A QP with its WQEs, encoded at indices 0.. of its send ring.
#[derive(Clone, Debug)]
pub struct PlannedQp {
    pub qpn: u32,
    pub config: QpConfig,
    /// Its own transport attributes (`rocenic sim` with a `[link]`; none otherwise).
    pub transport: QpTransport,
    pub wqes: Vec<Vec<u8>>,
}

/// A checked scenario in the model's terms.
#[derive(Clone, Debug)]
pub struct Plan {
    pub nic: Nic,
    pub profile: Profile,
    pub memory: Vec<Region>,
    pub mrs: Vec<MemoryRegion>,
    /// In file order, the order the engine serves them.
    pub qps: Vec<PlannedQp>,
}

/// A message about `at`'s table.
fn fail<T, U>(at: &At<U>, message: impl Into<String>) -> Result<T, ScenarioError> {
    Err(ScenarioError {
        line: at.line,
        place: Some(at.place),
        message: message.into(),
    })
}

/// `key "name": value out of range (range)` unless `ok`.
fn range<U>(at: &At<U>, ok: bool, key: &str, value: u64, range: &str) -> Result<(), ScenarioError> {
    if ok {
        Ok(())
    } else {
        fail(
            at,
            format!("key \"{key}\": {value:#x} is out of range ({range})"),
        )
    }
}

/// Which command reads the scenario, and so which keys it may have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    /// `rocenic send`: no receive side.
    Send,
    /// `rocenic sim`: a QP's receive queue (`rq`, `srq`, `rss`); with `reliable` (a `[link]`
    /// table) the reliable transport runs, and with it RDMA READ.
    Sim { reliable: bool },
}

/// Checks a send scenario and builds its plan.
pub fn check(s: &Scenario) -> Result<Plan, ScenarioError> {
    plan(s, Flavor::Send)
}

/// Checks `s` as `flavor` reads it and builds its plan.
pub fn plan(s: &Scenario, flavor: Flavor) -> Result<Plan, ScenarioError> {
    let (nic, profile, families) = nic(&s.nic)?;
    let memory = memory(&s.memory)?;
    let mrs = regions(&s.mr)?;
    let mut qps = queue_pairs(&s.qp, &nic, families, flavor)?;
    requests(&s.wr, &mut qps, families, flavor)?;
    Ok(Plan {
        nic,
        profile,
        memory,
        mrs,
        qps,
    })
}

/// Which families [nic] has an address for: (IPv4, IPv6).
type Families = (bool, bool);

fn nic(at: &At<scenario::Nic>) -> Result<(Nic, Profile, Families), ScenarioError> {
    let n = &at.item;
    let mut nic = Nic {
        mac: EthernetAddress(n.mac.0),
        ipv4: Ipv4Address([0; 4]),
        ipv6: Ipv6Address([0; 16]),
    };
    let mut families = (false, false);
    if n.ip.is_empty() {
        return fail(
            at,
            "key \"ip\": empty; give an IPv4 or an IPv6 address, or one of each",
        );
    }
    for ip in &n.ip {
        let (seen, name) = match ip {
            IpAddr::V4(a) => {
                nic.ipv4 = Ipv4Address(a.octets());
                (&mut families.0, "IPv4")
            }
            IpAddr::V6(a) => {
                nic.ipv6 = Ipv6Address(a.octets());
                (&mut families.1, "IPv6")
            }
        };
        if *seen {
            return fail(
                at,
                format!("key \"ip\": two {name} addresses; give one of each family"),
            );
        }
        *seen = true;
    }
    let profile = match &n.profile {
        None => Profile::Linux,
        Some(p) => match crate::entropy::parse_profile(p) {
            Ok(p) => p,
            Err(why) => return fail(at, format!("key \"profile\": {why}")),
        },
    };
    Ok((nic, profile, families))
}

fn memory(list: &[At<scenario::Memory>]) -> Result<Vec<Region>, ScenarioError> {
    let mut out: Vec<Region> = Vec::new();
    let mut total: u64 = 0;
    let mut placed: Vec<(u64, u64, Place)> = Vec::new(); // (first, last, table)
    for at in list {
        let m = &at.item;
        if m.size == 0 {
            return fail(at, "key \"size\": 0; a region holds at least one byte");
        }
        let Some(last) = m.addr.checked_add(m.size - 1) else {
            return fail(
                at,
                "addr + size runs past the end of the 64-bit address space",
            );
        };
        if m.addr <= RESERVED_END && last >= RESERVED_BASE {
            return fail(
                at,
                format!(
                    "0x{:x}..=0x{last:x} overlaps the area reserved for the send and completion \
                     rings (0x{RESERVED_BASE:x}..=0x{RESERVED_END:x})",
                    m.addr
                ),
            );
        }
        if let Some((a, b, p)) = placed.iter().find(|(a, b, _)| m.addr <= *b && last >= *a) {
            return fail(
                at,
                format!(
                    "0x{:x}..=0x{last:x} overlaps {} (0x{a:x}..=0x{b:x})",
                    m.addr, p
                ),
            );
        }
        total = total.saturating_add(m.size);
        if total > MAX_MEMORY {
            return fail(
                at,
                format!(
                    "key \"size\": the [[memory]] regions add up to more than {} MiB, the most \
                     a scenario may hold",
                    MAX_MEMORY >> 20
                ),
            );
        }
        let fill = match (&m.fill, &m.hex) {
            (Some(_), Some(_)) => {
                return fail(
                    at,
                    "keys \"fill\" and \"hex\" both given; a region has one fill",
                )
            }
            (None, Some(h)) if h.0.len() as u64 > m.size => {
                return fail(
                    at,
                    format!(
                        "key \"hex\": {} bytes for a region of {} bytes",
                        h.0.len(),
                        m.size
                    ),
                )
            }
            (None, Some(h)) => RegionFill::Bytes(h.0.clone()),
            (Some(FillName::Counter), None) => RegionFill::Counter,
            (Some(FillName::Zero), None) | (None, None) => RegionFill::Zero,
        };
        placed.push((m.addr, last, at.place));
        out.push(Region {
            addr: m.addr,
            size: m.size as usize,
            fill,
        });
    }
    Ok(out)
}

fn regions(list: &[At<scenario::Mr>]) -> Result<Vec<MemoryRegion>, ScenarioError> {
    let mut out: Vec<MemoryRegion> = Vec::new();
    let mut places: Vec<Place> = Vec::new();
    for at in list {
        let m = &at.item;
        if m.length == 0 {
            return fail(at, "key \"length\": 0; a region holds at least one byte");
        }
        if m.addr.checked_add(m.length - 1).is_none() {
            return fail(
                at,
                "addr + length runs past the end of the 64-bit address space",
            );
        }
        if let Some(i) = out.iter().position(|r| r.lkey == m.lkey) {
            return fail(
                at,
                format!("key \"lkey\": 0x{:x} is also {}'s", m.lkey, places[i]),
            );
        }
        let slots = DEFAULT_MRS as u32;
        let slot = mr_slot(m.lkey, slots);
        if let Some(i) = out.iter().position(|r| mr_slot(r.lkey, slots) == slot) {
            return fail(
                at,
                format!(
                    "key \"lkey\": 0x{:x} and {}'s 0x{:x} share memory-region slot {slot} (lkey \
                     bits {}:{MR_SLOT_LSB} of a {slots}-entry table); the engine holds one \
                     region per slot",
                    m.lkey,
                    places[i],
                    out[i].lkey,
                    MR_SLOT_LSB + slots.trailing_zeros() - 1,
                ),
            );
        }
        let access = m.access.iter().fold(Access::NONE, |a, n| {
            a.union(match n {
                scenario::AccessName::LocalWrite => Access::LOCAL_WRITE,
                scenario::AccessName::RemoteWrite => Access::REMOTE_WRITE,
                scenario::AccessName::RemoteRead => Access::REMOTE_READ,
                scenario::AccessName::RemoteAtomic => Access::REMOTE_ATOMIC,
            })
        });
        out.push(MemoryRegion {
            lkey: m.lkey,
            base: m.addr,
            length: m.length,
            pd: m.pd,
            access,
        });
        places.push(at.place);
    }
    Ok(out)
}

/// The keys an RC QP's and a UD request's address vector share.
struct AvKeys {
    ip: IpAddr,
    flow_label: Option<u32>,
    vlan: Option<u16>,
    pcp: Option<u8>,
    hop_limit: Option<u8>,
}

/// Checks the shared keys of the vector under `key` (`av`); returns (VLAN, PCP, hop limit,
/// flow label) with their defaults.
fn av_keys<U>(
    at: &At<U>,
    av: AvKeys,
    families: Families,
) -> Result<(Option<u16>, u8, u8, u32), ScenarioError> {
    let (v6, have) = match av.ip {
        IpAddr::V4(_) => (false, families.0),
        IpAddr::V6(_) => (true, families.1),
    };
    if !have {
        let family = if v6 { "IPv6" } else { "IPv4" };
        return fail(
            at,
            format!(
                "key \"av.ip\": {} is {family}, and [nic] has no {family} address to send from",
                av.ip
            ),
        );
    }
    let fl = av.flow_label.unwrap_or(0);
    range(
        at,
        fl <= 0xF_FFFF,
        "av.flow_label",
        fl.into(),
        "0..=0xFFFFF",
    )?;
    if let Some(v) = av.vlan {
        range(at, v < 0xFFF, "av.vlan", v.into(), "0..=0xFFE")?;
    }
    let pcp = av.pcp.unwrap_or(0);
    range(at, pcp <= 7, "av.pcp", pcp.into(), "0..=7")?;
    if av.pcp.is_some() && av.vlan.is_none() {
        return fail(
            at,
            "key \"av.pcp\": a priority needs a VLAN tag (\"av.vlan\")",
        );
    }
    let hop = av.hop_limit.unwrap_or(64);
    range(at, hop >= 1, "av.hop_limit", hop.into(), "1..=255")?;
    Ok((av.vlan, pcp, hop, fl))
}

fn queue_pairs(
    list: &[At<scenario::Qp>],
    nic: &Nic,
    families: Families,
    flavor: Flavor,
) -> Result<Vec<PlannedQp>, ScenarioError> {
    let mut out: Vec<PlannedQp> = Vec::new();
    let mut places: Vec<Place> = Vec::new();
    for at in list {
        let q = &at.item;
        if flavor == Flavor::Send {
            let receive = [
                ("rq", q.rq.is_some()),
                ("srq", q.srq.is_some()),
                ("rss", q.rss.is_some()),
            ];
            if let Some((key, _)) = receive.iter().find(|(_, given)| *given) {
                return fail(
                    at,
                    format!(
                        "key \"{key}\": a receive queue is for rocenic sim; rocenic send has no \
                         receive side"
                    ),
                );
            }
        }
        range(
            at,
            (QPN_MIN..=QPN_MAX).contains(&q.qpn),
            "qpn",
            q.qpn.into(),
            "2..=0xFFFFFF; 0 and 1 are the special QPs",
        )?;
        if let Some(i) = out.iter().position(|p| p.qpn == q.qpn) {
            return fail(
                at,
                format!("key \"qpn\": 0x{:x} is also {}'s", q.qpn, places[i]),
            );
        }
        if out.len() == DEFAULT_QPS {
            return fail(
                at,
                format!("more than {DEFAULT_QPS} QPs, the engine's QP table"),
            );
        }
        let bytes = q.mtu.unwrap_or(1024);
        let Some(mtu) = PathMtu::from_bytes(bytes) else {
            return fail(
                at,
                format!("key \"mtu\": {bytes} is not a path MTU (256, 512, 1024, 2048, 4096)"),
            );
        };
        let first = q.psn.unwrap_or(0);
        range(at, first <= Psn::MASK, "psn", first.into(), "0..=0xFFFFFF")?;
        let psn = Psn::new(first).expect("checked above");
        let (qp_type, dest_qpn, av) = match q.qp_type {
            QpKind::Rc => {
                if q.qkey.is_some() {
                    return fail(at, "key \"qkey\": a Q_Key is for UD QPs, not RC");
                }
                let Some(dest) = q.dest_qpn else {
                    return fail(at, "missing key \"dest_qpn\": an RC QP names its peer QP");
                };
                range(at, dest <= QPN_MAX, "dest_qpn", dest.into(), "0..=0xFFFFFF")?;
                let Some(a) = &q.av else {
                    return fail(
                        at,
                        "missing key \"av\": an RC QP needs its peer's address vector",
                    );
                };
                let keys = AvKeys {
                    ip: a.ip,
                    flow_label: a.flow_label,
                    vlan: a.vlan,
                    pcp: a.pcp,
                    hop_limit: a.hop_limit,
                };
                let (vlan, pcp, hop_limit, flow_label) = av_keys(at, keys, families)?;
                let ip = match a.ip {
                    IpAddr::V4(d) => IpPair::V4 {
                        src: nic.ipv4,
                        dst: Ipv4Address(d.octets()),
                    },
                    IpAddr::V6(d) => IpPair::V6 {
                        src: nic.ipv6,
                        dst: Ipv6Address(d.octets()),
                    },
                };
                let av = qp::AddressVector {
                    vlan,
                    pcp,
                    traffic_class: a.tclass.unwrap_or(0),
                    hop_limit,
                    flow_label,
                    ..qp::AddressVector::new(ip, nic.mac, EthernetAddress(a.mac.0))
                };
                (qp::QpKind::Rc, dest, Some(av))
            }
            QpKind::Ud => {
                if q.av.is_some() {
                    return fail(
                        at,
                        "key \"av\": a UD QP has no address vector of its own; each [[wr]] \
                         carries one",
                    );
                }
                if q.dest_qpn.is_some() {
                    return fail(
                        at,
                        "key \"dest_qpn\": a UD QP has no peer; each [[wr]]'s av names one \
                         (\"av.qpn\")",
                    );
                }
                (qp::QpKind::Ud, 0, None)
            }
            QpKind::Raw => {
                let keys = [
                    ("av", q.av.is_some()),
                    ("dest_qpn", q.dest_qpn.is_some()),
                    ("qkey", q.qkey.is_some()),
                    ("psn", q.psn.is_some()),
                    ("mtu", q.mtu.is_some()),
                ];
                if let Some((key, _)) = keys.iter().find(|(_, given)| *given) {
                    return fail(
                        at,
                        format!(
                            "key \"{key}\": a raw QP has none; its frames carry their own \
                             headers (no address vector, peer, Q_Key, PSN or path MTU)"
                        ),
                    );
                }
                (qp::QpKind::Raw, 0, None)
            }
        };
        let transport = transport(at, flavor)?;
        out.push(PlannedQp {
            qpn: q.qpn,
            transport,
            config: QpConfig {
                qp_type,
                pd: q.pd,
                mtu,
                psn,
                dest_qpn,
                q_key: q.qkey.unwrap_or(0),
                av,
            },
            wqes: Vec::new(),
        });
        places.push(at.place);
    }
    Ok(out)
}

/// A `[[qp]]`'s transport attributes: only an RC QP's, only with the reliable transport, each
/// in its verbs range.
fn transport(at: &At<scenario::Qp>, flavor: Flavor) -> Result<QpTransport, ScenarioError> {
    let q = &at.item;
    let t = QpTransport {
        timeout: q.timeout,
        retry_cnt: q.retry_cnt,
        rnr_retry: q.rnr_retry,
        min_rnr_timer: q.min_rnr_timer,
    };
    let given = [
        ("timeout", t.timeout, 1..=31u8),
        ("retry_cnt", t.retry_cnt, 0..=7),
        ("rnr_retry", t.rnr_retry, 0..=7),
        ("min_rnr_timer", t.min_rnr_timer, 0..=31),
    ];
    for (key, value, ok) in given {
        let Some(v) = value else { continue };
        if flavor != (Flavor::Sim { reliable: true }) {
            return fail(
                at,
                format!(
                    "key \"{key}\": a transport attribute needs the reliable transport: only \
                     `rocenic sim` with a [link] table runs it"
                ),
            );
        }
        if q.qp_type != QpKind::Rc {
            return fail(
                at,
                format!("key \"{key}\": only an RC QP has transport attributes"),
            );
        }
        if !ok.contains(&v) {
            return fail(
                at,
                format!("key \"{key}\": {v} is not {}..={}", ok.start(), ok.end()),
            );
        }
    }
    Ok(t)
}

/// The Q_Key value that tells the engine to take the QP's own (verbs: the top bit set).
const QKEY_OF_QP: u32 = 0x8000_0000;

fn requests(
    list: &[At<scenario::Wr>],
    qps: &mut [PlannedQp],
    families: Families,
    flavor: Flavor,
) -> Result<(), ScenarioError> {
    let index: HashMap<u32, usize> = qps.iter().enumerate().map(|(i, q)| (q.qpn, i)).collect();
    let mut buf = vec![0u8; MAX_WQE_BYTES];
    for at in list {
        let w = &at.item;
        let Some(&k) = index.get(&w.qpn) else {
            return fail(at, format!("key \"qpn\": no [[qp]] has qpn 0x{:x}", w.qpn));
        };
        let opcode = match w.opcode {
            OpName::Send => Opcode::Send,
            OpName::SendImm => Opcode::SendImm,
            OpName::RdmaWrite => Opcode::RdmaWrite,
            OpName::RdmaWriteImm => Opcode::RdmaWriteImm,
            OpName::RdmaRead => Opcode::RdmaRead,
            OpName::Tso => Opcode::Tso,
        };
        // Only the reliable transport takes a READ's responses (docs/rc.md); without it the
        // engine, as the RTL's, would refuse the opcode as unknown.
        if opcode == Opcode::RdmaRead && flavor != (Flavor::Sim { reliable: true }) {
            return fail(
                at,
                "opcode \"rdma_read\" needs the reliable transport: only `rocenic sim` with a \
                 [link] table runs it (on the model)",
            );
        }
        let tso = tso(at, opcode)?;
        if w.imm.is_some() && !opcode.has_imm() {
            return fail(
                at,
                format!("key \"imm\": {} carries no immediate", opcode.name()),
            );
        }
        let raddr = match (opcode.has_raddr(), w.remote_addr, w.rkey) {
            (true, Some(addr), Some(rkey)) => Some(RemoteAddress { addr, rkey }),
            (true, None, _) => {
                return fail(
                    at,
                    format!("missing key \"remote_addr\": {} needs it", opcode.name()),
                )
            }
            (true, _, None) => {
                return fail(
                    at,
                    format!("missing key \"rkey\": {} needs it", opcode.name()),
                )
            }
            (false, None, None) => None,
            (false, a, _) => {
                let key = if a.is_some() { "remote_addr" } else { "rkey" };
                return fail(
                    at,
                    format!("key \"{key}\": {} writes no remote memory", opcode.name()),
                );
            }
        };
        let av = match &w.av {
            None => None,
            Some(a) => {
                let keys = AvKeys {
                    ip: a.ip,
                    flow_label: a.flow_label,
                    vlan: a.vlan,
                    pcp: a.pcp,
                    hop_limit: a.hop_limit,
                };
                let (vlan, pcp, hop_limit, flow_label) = av_keys(at, keys, families)?;
                range(at, a.qpn <= QPN_MAX, "av.qpn", a.qpn.into(), "0..=0xFFFFFF")?;
                Some(wqe::AddressVector {
                    dqpn: a.qpn,
                    qkey: a.qkey.unwrap_or(QKEY_OF_QP),
                    dgid: match a.ip {
                        IpAddr::V4(d) => wqe::AddressVector::mapped(d.octets()),
                        IpAddr::V6(d) => d.octets(),
                    },
                    dmac: a.mac.0,
                    vlan: vlan.map(|vid| Vlan { vid, pcp }),
                    flow_label,
                    tclass: a.tclass.unwrap_or(0),
                    hop_limit,
                })
            }
        };
        let sges: Vec<DataSegment> = w
            .sge
            .iter()
            .flatten()
            .map(|s| DataSegment {
                addr: s.addr,
                length: s.length,
                lkey: s.lkey,
            })
            .collect();
        let payload = match (&w.sge, &w.inline) {
            (Some(_), Some(_)) => {
                return fail(
                    at,
                    "keys \"sge\" and \"inline\" both given; a request gathers or carries its \
                     data, not both",
                )
            }
            (_, Some(bytes)) => Payload::Inline(&bytes.0),
            _ => Payload::Gather(&sges),
        };
        let mut flags = Flags::default();
        if w.signaled.unwrap_or(true) {
            flags = flags.union(Flags::SIGNALED);
        }
        if w.solicited.unwrap_or(false) {
            flags = flags.union(Flags::SOLICITED);
        }
        let repeat = w.repeat.unwrap_or(1);
        if repeat == 0 {
            return fail(at, "key \"repeat\": 0; a request is posted at least once");
        }
        if w.id
            .checked_add(u64::from(repeat) - 1)
            .is_none_or(|last| last > i64::MAX as u64)
        {
            return fail(
                at,
                "keys \"id\" and \"repeat\": the last id passes 2^63 - 1, TOML's largest integer",
            );
        }
        for r in 0..u64::from(repeat) {
            if qps[k].wqes.len() == MAX_WRS {
                return fail(
                    at,
                    format!(
                        "more than {MAX_WRS} requests on QP 0x{:x}; its send ring holds {MAX_WRS}",
                        w.qpn
                    ),
                );
            }
            let wr = WorkRequest {
                opcode,
                flags,
                index: qps[k].wqes.len() as u32,
                imm: w.imm.unwrap_or(0),
                wr_id: w.id + r,
                av,
                raddr,
                tso,
                payload,
            };
            let control = match Wqe::encode(&wr, &mut buf) {
                Ok(c) => c,
                Err(wqe::Error::Overflow { need, have }) => {
                    let key = if w.inline.is_some() { "inline" } else { "sge" };
                    return fail(
                        at,
                        format!(
                            "key \"{key}\": the request takes {need} bytes, more than a WQE's \
                             {have} (16 blocks of 64: at most 62 sge or 992 inline bytes, fewer \
                             with an av, a remote address or a TSO header)"
                        ),
                    );
                }
                Err(e) => return fail(at, format!("cannot be encoded as a WQE: {e}")),
            };
            let len = usize::from(control.blocks) * wqe::BLOCK_BYTES;
            qps[k].wqes.push(buf[..len].to_vec());
        }
    }
    Ok(())
}

/// A TSO request's segment size and header template: both given exactly for `tso`.
fn tso(at: &At<scenario::Wr>, opcode: Opcode) -> Result<Option<Tso<'_>>, ScenarioError> {
    let w = &at.item;
    if opcode != Opcode::Tso {
        return match (w.mss, &w.header) {
            (None, None) => Ok(None),
            (m, _) => {
                let key = if m.is_some() { "mss" } else { "header" };
                fail(
                    at,
                    format!(
                        "key \"{key}\": only a tso request has one, not {}",
                        opcode.name()
                    ),
                )
            }
        };
    }
    match (w.mss, &w.header) {
        (Some(mss), Some(header)) => Ok(Some(Tso {
            mss,
            header: &header.0,
        })),
        (None, _) => fail(
            at,
            "missing key \"mss\": a tso request names its segment size",
        ),
        (_, None) => fail(
            at,
            "missing key \"header\": a tso request carries its header template",
        ),
    }
}

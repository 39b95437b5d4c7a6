//! The send engine: one WQE of a QP in, its frames and at most one completion out
//! (docs/wqe.md, "The send engine"). [`super::queues`] feeds it from the rings in host memory.
//!
//! - A QP in ERR flushes: the WQE completes with `wr_flush_err` whether or not it is signaled.
//! - Otherwise the WQE is checked before any payload DMA ([`super::check`]); a failure completes
//!   it with that status (signaled or not) and moves the QP to ERR.
//! - A passing WQE is sent packet by packet ([`Packets`]); each packet's payload is gathered from
//!   host memory into the frame, and the frame is handed on whole. A DMA fault (memory a region
//!   claims but the host does not back) drops the frame being built, completes the WQE with
//!   `general_err` and moves the QP to ERR; packets already sent stay sent.
//! - Success completes the WQE when it is signaled.
//!
//! Each packet takes the QP's next PSN. The headers follow [`super::frame`]; RC takes the
//! address vector and the entropy fixed at RTR, UD the WQE's address vector, the NIC's source
//! MAC and address of that family, and the entropy computed for this WQE. A raw-packet QP's
//! frames are the WQE's own bytes, no headers added ([`super::raw`]).

use super::check::{check, Checked};
use super::frame::{emit_headers, finish, Route, Transport, MAX_FRAME, PKEY};
use super::packets::{read_psns, Packets};
use super::{get_u32, get_u64, Cqe, Fault, Flags, Memory, Opcode, CONTROL_BYTES};
use crate::entropy::{Profile, QpType};
use crate::qp::{AddressVector, IpPair, MrTable, Psn, QpKind, QpState, QpTable, Status};
use crate::wire::ib::{BthRepr, DethRepr, RethRepr};
use crate::wire::{EthernetAddress, Ipv4Address, Ipv6Address};

/// The default number of data segments a WQE may have (the RTL's `MAX_SGE`).
pub const DEFAULT_MAX_SGE: usize = 16;
/// The default capacity of the memory-region table (the RTL's `MRS`).
pub const DEFAULT_MRS: usize = 64;

/// The NIC's own addresses: the source of every UD packet (an RC QP's address vector carries
/// its own).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Nic {
    /// Source MAC.
    pub mac: EthernetAddress,
    /// IPv4 source address.
    pub ipv4: Ipv4Address,
    /// IPv6 source address.
    pub ipv6: Ipv6Address,
}

impl Nic {
    /// The addresses rocenic's tests, benches and examples give NIC `i` of a pair on one
    /// wire: MAC 02:00:00:00:00:`i`, 10.0.0.`i`, fd00::`i`.
    pub const fn numbered(i: u8) -> Nic {
        let mut v6 = [0u8; 16];
        v6[0] = 0xfd;
        v6[15] = i;
        Nic {
            mac: EthernetAddress([2, 0, 0, 0, 0, i]),
            ipv4: Ipv4Address::new(10, 0, 0, i),
            ipv6: Ipv6Address(v6),
        }
    }
}

/// Why [`SendEngine::execute`] could not run a WQE at all (no completion is due).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotRun {
    /// No QP with this number.
    NoQp(u32),
    /// The QP is in RESET, INIT or RTR: its send queue is not served yet.
    NotReady(QpState),
}

/// The fields of a completion that come from the WQE's bytes as they are, so that a WQE the
/// decoder refuses still completes under its own `wr_id`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Raw {
    wr_id: u64,
    index: u32,
    opcode: Option<Opcode>,
}

impl Raw {
    /// Whether `bytes` is an RDMA READ: an engine without READs refuses one before any other
    /// check (`execute_as`, `rc_prepare_as`, `rc_packet_as`).
    pub(super) fn is_read(bytes: &[u8]) -> bool {
        Raw::read(bytes, false, true).opcode == Some(Opcode::RdmaRead)
    }

    /// The raw fields; an opcode the engine does not run (TSO without TSO, RDMA READ without
    /// the reliable transport) reads as unknown.
    pub(super) fn read(bytes: &[u8], tso: bool, read: bool) -> Raw {
        let mut c = [0u8; CONTROL_BYTES];
        let n = bytes.len().min(CONTROL_BYTES);
        c[..n].copy_from_slice(&bytes[..n]);
        Raw {
            wr_id: get_u64(&c, super::layout::control::WR_ID.offset),
            index: get_u32(&c, super::layout::control::INDEX.offset),
            // A WQE whose first block could not be read has no opcode (not RDMA_WRITE's 0).
            opcode: if bytes.is_empty() {
                None
            } else {
                Opcode::from_u8(c[super::layout::control::OPCODE.offset])
                    .filter(|&o| (tso || o != Opcode::Tso) && (read || o != Opcode::RdmaRead))
            },
        }
    }

    pub(super) fn cqe(self, qpn: u32, status: Status, byte_len: u32) -> Cqe {
        Cqe {
            wr_id: self.wr_id,
            qpn,
            byte_len,
            wqe_index: self.index,
            opcode: self.opcode,
            status,
            phase: false,
        }
    }
}

/// The send side's state: QP contexts, memory regions and the NIC's addresses.
#[derive(Clone, Debug)]
pub struct SendEngine<const Q: usize = { crate::qp::DEFAULT_QPS }, const M: usize = DEFAULT_MRS> {
    /// The NIC's addresses.
    pub nic: Nic,
    /// QP contexts (create and modify QPs here).
    pub qps: QpTable<Q>,
    /// Memory regions (register them here).
    pub mrs: MrTable<M>,
    /// Data segments a WQE may have (at most the format's 62).
    pub max_sge: usize,
    /// TSO and its limits, for UD QPs (IPoIB templates) and raw-packet QPs (Ethernet
    /// templates); `None` refuses TSO WQEs as an unknown opcode (as the RTL engine built
    /// without TSO, `CAPS.TSO` clear, does). Raw-packet QPs are the other capability, the QP
    /// table's ([`QpTable::set_raw`]; the RTL engine has them, `CAPS.RAW`).
    pub tso: Option<crate::tso::Limits>,
}

impl<const Q: usize, const M: usize> SendEngine<Q, M> {
    /// An engine with no QPs and no regions, deriving entropy under `profile`.
    pub const fn new(nic: Nic, profile: Profile) -> Self {
        SendEngine {
            nic,
            qps: QpTable::new(profile),
            mrs: MrTable::new(),
            max_sge: DEFAULT_MAX_SGE,
            tso: None,
        }
    }

    /// A completion for a WQE that `execute` cannot read (the ring layer's fetch failed or its
    /// `BLOCKS` does not fit the slot): `status` under the WQE's raw fields, QP moved to ERR
    /// unless it was flushing.
    pub fn fail(&mut self, qpn: u32, wqe: &[u8], status: Status) -> Result<Cqe, NotRun> {
        self.fail_as(qpn, wqe, status, false)
    }

    /// [`Self::fail`], with RDMA READ a known opcode when `read` (the reliable transport on).
    pub(crate) fn fail_as(
        &mut self,
        qpn: u32,
        wqe: &[u8],
        status: Status,
        read: bool,
    ) -> Result<Cqe, NotRun> {
        let qp = self.qps.get_mut(qpn).ok_or(NotRun::NoQp(qpn))?;
        let raw = Raw::read(wqe, self.tso.is_some(), read);
        Ok(match qp.state() {
            QpState::Err => raw.cqe(qpn, Status::WrFlushErr, 0),
            QpState::Rts => {
                qp.set_error();
                raw.cqe(qpn, status, 0)
            }
            s => return Err(NotRun::NotReady(s)),
        })
    }

    /// Runs the WQE in `wqe` (its `BLOCKS` × 64 bytes) of QP `qpn`: its frames go to `frame`,
    /// one by one; returns the completion due, if any. The engine alone, as the RTL's: RDMA
    /// READ is an unknown opcode.
    pub fn execute(
        &mut self,
        qpn: u32,
        wqe: &[u8],
        mem: &impl Memory,
        frame: &mut impl FnMut(&[u8]),
    ) -> Result<Option<Cqe>, NotRun> {
        self.execute_as(qpn, wqe, mem, frame, false)
    }

    /// [`Self::execute`], with RDMA READ a known opcode when `read` (the reliable transport on,
    /// whose requester runs an RC QP's READs; what reaches here is a flush or another QP's).
    pub(crate) fn execute_as(
        &mut self,
        qpn: u32,
        wqe: &[u8],
        mem: &impl Memory,
        frame: &mut impl FnMut(&[u8]),
        read: bool,
    ) -> Result<Option<Cqe>, NotRun> {
        let profile = self.qps.profile();
        let qp = self.qps.get(qpn).ok_or(NotRun::NoQp(qpn))?;
        let raw = Raw::read(wqe, self.tso.is_some(), read);
        match qp.state() {
            QpState::Err => return Ok(Some(raw.cqe(qpn, Status::WrFlushErr, 0))),
            QpState::Rts => {}
            s => return Err(NotRun::NotReady(s)),
        }
        // A READ needs the reliable transport: its bytes come back in responses that only the
        // requester's receive path takes (docs/rc.md). Without it, as in the RTL, its opcode is
        // unknown: refused before any other check, its completion's opcode unknown.
        if !read && Raw::is_read(wqe) {
            return Ok(Some(self.fail_as(qpn, wqe, Status::LocQpOpErr, false)?));
        }
        let c = match check(qp, &self.mrs, self.max_sge, self.tso, wqe) {
            Ok(c) => c,
            Err(status) => return Ok(Some(self.fail_as(qpn, wqe, status, read)?)),
        };
        // The requester runs an RC QP's READs; one that reaches here is refused.
        if c.wqe.control().opcode == Opcode::RdmaRead {
            return Ok(Some(self.fail_as(qpn, wqe, Status::LocQpOpErr, read)?));
        }
        if qp.config().qp_type == QpKind::Raw {
            return self.raw_send(qpn, &c, wqe, mem, frame);
        }
        let control = c.wqe.control();
        let ud_av = c.wqe.av();
        let (route, dest_qpn, deth) = match (qp.config().qp_type, ud_av, qp.config().av) {
            (QpKind::Ud, Some(av), _) => {
                let ip = match av.ipv4() {
                    Some(dst) => IpPair::V4 {
                        src: self.nic.ipv4,
                        dst: Ipv4Address(dst),
                    },
                    None => IpPair::V6 {
                        src: self.nic.ipv6,
                        dst: Ipv6Address(av.dgid),
                    },
                };
                let qav = AddressVector {
                    ip,
                    src_mac: self.nic.mac,
                    dst_mac: EthernetAddress(av.dmac),
                    vlan: av.vlan.map(|v| v.vid),
                    pcp: av.vlan.map_or(0, |v| v.pcp),
                    traffic_class: av.tclass,
                    hop_limit: av.hop_limit,
                    flow_label: av.flow_label,
                };
                let e = qp
                    .entropy_for(profile, av.dqpn, &qav)
                    .expect("UD entropy is per request");
                // Verbs: a Q_Key with its top bit set means "use the QP's".
                let qkey = if av.qkey & 0x8000_0000 != 0 {
                    qp.config().q_key
                } else {
                    av.qkey
                };
                let deth = DethRepr { qkey, src_qpn: qpn };
                (
                    route_of(&qav, e.flow_label, e.udp_sport),
                    av.dqpn,
                    Some(deth),
                )
            }
            (QpKind::Rc, None, Some(av)) => {
                // RTS implies the RTR transition fixed it.
                let e = qp.entropy().expect("RC entropy fixed at RTR");
                (
                    route_of(&av, e.flow_label, e.udp_sport),
                    qp.config().dest_qpn,
                    None,
                )
            }
            // `check` guarantees an AV exactly for UD, and `QpTable::create` an AV for RC.
            _ => return Ok(Some(self.fail(qpn, wqe, Status::LocQpOpErr)?)),
        };
        if control.opcode == Opcode::Tso {
            return self.tso_segments(qpn, &c, wqe, &route, dest_qpn, deth, mem, frame);
        }
        let mtu = qp.config().mtu;
        let qp_type = qp
            .config()
            .qp_type
            .entropy_type()
            .expect("raw QPs sent above");
        let raddr = c.wqe.raddr();
        let mut buf = [0u8; MAX_FRAME];
        for p in Packets::new(qp_type, control.opcode, c.len, mtu) {
            let qp = self.qps.get_mut(qpn).ok_or(NotRun::NoQp(qpn))?;
            let psn = qp.take_psns(1);
            let ack_req = p.last && qp_type == QpType::Rc;
            let Ok(n) = emit_packet(
                &route, dest_qpn, deth, &c, &p, psn, ack_req, raddr, c.len, mem, &mut buf,
            ) else {
                return Ok(Some(self.fail(qpn, wqe, Status::GeneralErr)?));
            };
            frame(&buf[..n]);
        }
        Ok(control
            .flags
            .contains(Flags::SIGNALED)
            .then(|| raw.cqe(qpn, Status::Success, c.len)))
    }
}

/// What the send queue's requester needs of an RC WQE before its first packet (the reliable
/// transport, [`crate::rc::Reliable`]): its packet count and the completion due on success.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RcWqe {
    /// Packets of its message.
    pub packets: u32,
    /// The completion it gets when acknowledged (status `success`).
    pub cqe: Cqe,
    /// A success is written only for a signaled WQE.
    pub signaled: bool,
    /// An RDMA READ: its PSNs are its responses', which land in its gather list.
    pub read: bool,
}

impl<const Q: usize, const M: usize> SendEngine<Q, M> {
    /// The route and destination QP of RC QP `qpn`'s packets (its address vector and the
    /// entropy fixed at RTR); `None` before RTR or for another type. ACKs take it too.
    pub fn rc_route(&self, qpn: u32) -> Option<(Route, u32)> {
        let qp = self.qps.get(qpn)?;
        let av = qp.config().av?;
        let e = qp.entropy()?;
        (qp.config().qp_type == QpKind::Rc).then(|| {
            (
                route_of(&av, e.flow_label, e.udp_sport),
                qp.config().dest_qpn,
            )
        })
    }

    /// Checks RC WQE `wqe` of QP `qpn` (in RTS) as [`Self::execute`] does, sending nothing:
    /// what the requester needs, or the completion of a WQE that fails (the caller moves the
    /// QP to ERR when it writes it).
    pub fn rc_prepare(&self, qpn: u32, wqe: &[u8]) -> Result<RcWqe, Cqe> {
        self.rc_prepare_as(qpn, wqe, true)
    }

    /// [`Self::rc_prepare`] on an engine that runs RDMA READs when `read`. Without them (the
    /// RTL's engine today) a READ is refused as [`Self::execute`] refuses it: `loc_qp_op_err`,
    /// its completion's opcode unknown.
    pub fn rc_prepare_as(&self, qpn: u32, wqe: &[u8], read: bool) -> Result<RcWqe, Cqe> {
        let raw = Raw::read(wqe, self.tso.is_some(), read);
        let qp = self
            .qps
            .get(qpn)
            .ok_or(raw.cqe(qpn, Status::LocQpOpErr, 0))?;
        if !read && Raw::is_read(wqe) {
            return Err(raw.cqe(qpn, Status::LocQpOpErr, 0));
        }
        let c =
            check(qp, &self.mrs, self.max_sge, self.tso, wqe).map_err(|s| raw.cqe(qpn, s, 0))?;
        let control = c.wqe.control();
        if qp.config().qp_type != QpKind::Rc || control.opcode == Opcode::Tso {
            return Err(raw.cqe(qpn, Status::LocQpOpErr, 0));
        }
        let mtu = qp.config().mtu;
        let read = control.opcode == Opcode::RdmaRead;
        Ok(RcWqe {
            packets: if read {
                read_psns(c.len, mtu)
            } else {
                Packets::new(QpType::Rc, control.opcode, c.len, mtu).packets()
            },
            cqe: raw.cqe(qpn, Status::Success, c.len),
            signaled: control.flags.contains(Flags::SIGNALED),
            read,
        })
    }

    /// Fetches the WQE at host address `addr` (its ring's slots are `stride` blocks) and
    /// prepares it as [`Self::rc_prepare_as`] does: what the requester's POST takes. A fetch
    /// that faults completes the WQE with the fetch's status, from what was read of it.
    pub fn rc_fetch_prepare(
        &self,
        qpn: u32,
        mem: &impl Memory,
        addr: u64,
        stride: usize,
        read: bool,
    ) -> Result<RcWqe, Cqe> {
        let mut wqe = [0u8; super::MAX_WQE_BYTES];
        match super::queues::fetch(mem, addr, stride, &mut wqe) {
            Ok(n) => self.rc_prepare_as(qpn, &wqe[..n], read),
            Err((status, n)) => {
                Err(Raw::read(&wqe[..n], self.tso.is_some(), read).cqe(qpn, status, 0))
            }
        }
    }

    /// Builds packet `pkt.index` of RC WQE `wqe` of QP `qpn` with the requester's PSN and
    /// AckReq, gathering its bytes from host memory at `index` × MTU (again, for a resend), and
    /// hands it to `frame`. A DMA fault, or a WQE that no longer checks, is the status its
    /// request completes with.
    pub fn rc_packet(
        &self,
        qpn: u32,
        wqe: &[u8],
        pkt: &crate::rc::Packet,
        mem: &impl Memory,
        frame: &mut impl FnMut(&[u8]),
    ) -> Result<(), Status> {
        self.rc_packet_as(qpn, wqe, pkt, mem, frame, true)
    }

    /// [`Self::rc_packet`] on an engine that runs RDMA READs when `read`. Without them (the
    /// RTL's engine today) a READ is refused before any other check, `loc_qp_op_err`, as
    /// [`Self::rc_prepare_as`] refuses it.
    pub fn rc_packet_as(
        &self,
        qpn: u32,
        wqe: &[u8],
        pkt: &crate::rc::Packet,
        mem: &impl Memory,
        frame: &mut impl FnMut(&[u8]),
        read: bool,
    ) -> Result<(), Status> {
        let qp = self.qps.get(qpn).ok_or(Status::LocQpOpErr)?;
        if !read && Raw::is_read(wqe) {
            return Err(Status::LocQpOpErr);
        }
        let c = check(qp, &self.mrs, self.max_sge, self.tso, wqe)?;
        let (route, dest_qpn) = self.rc_route(qpn).ok_or(Status::LocQpOpErr)?;
        let control = c.wqe.control();
        let mtu = qp.config().mtu;
        let mut raddr = c.wqe.raddr();
        let mut dma_len = c.len;
        let p = if control.opcode == Opcode::RdmaRead {
            // A READ resent from its `index`th response on asks only for what is missing: the
            // RETH's address and length advanced by `index` × MTU.
            let skip = pkt
                .index
                .checked_mul(mtu.bytes())
                .ok_or(Status::LocQpOpErr)?;
            if pkt.index >= read_psns(c.len, mtu) {
                return Err(Status::LocQpOpErr);
            }
            if let Some(r) = raddr.as_mut() {
                r.addr = r.addr.wrapping_add(skip.into());
            }
            dma_len = c.len.saturating_sub(skip);
            Packets::new(QpType::Rc, control.opcode, c.len, mtu).next()
        } else {
            Packets::new(QpType::Rc, control.opcode, c.len, mtu).nth(pkt.index as usize)
        }
        .ok_or(Status::LocQpOpErr)?;
        let mut buf = [0u8; MAX_FRAME];
        let n = emit_packet(
            &route,
            dest_qpn,
            None,
            &c,
            &p,
            pkt.psn,
            pkt.ack_req,
            raddr,
            dma_len,
            mem,
            &mut buf,
        )
        .map_err(|_| Status::GeneralErr)?;
        frame(&buf[..n]);
        Ok(())
    }
}

impl<const Q: usize, const M: usize> SendEngine<Q, M> {
    /// Lands READ response `index` of RDMA READ WQE `wqe` of QP `qpn`: `payload` must be the
    /// `index`th path-MTU piece of the READ's length (else `Ok(false)`, nothing written), and
    /// is written at `index` × MTU into the WQE's gather list, which the send checks found
    /// writable. A WQE that no longer checks, or a DMA fault, is the status the READ completes
    /// with.
    pub fn rc_read_land(
        &self,
        qpn: u32,
        wqe: &[u8],
        index: u32,
        payload: &[u8],
        mem: &mut impl Memory,
    ) -> Result<bool, Status> {
        let qp = self.qps.get(qpn).ok_or(Status::LocQpOpErr)?;
        let c = check(qp, &self.mrs, self.max_sge, self.tso, wqe)?;
        if c.wqe.control().opcode != Opcode::RdmaRead {
            return Err(Status::LocQpOpErr);
        }
        let mtu = u64::from(qp.config().mtu.bytes());
        let offset = u64::from(index) * mtu;
        let want = u64::from(c.len).saturating_sub(offset).min(mtu);
        if payload.len() as u64 != want {
            return Ok(false);
        }
        // Walk the gather list to `offset`, then write piece by piece.
        let (mut skip, mut rest) = (offset, payload);
        for i in 0..usize::from(c.wqe.control().nsge) {
            if rest.is_empty() {
                break;
            }
            let d = c.wqe.sge(i).ok_or(Status::LocQpOpErr)?;
            let l = u64::from(d.length);
            if skip >= l {
                skip -= l;
                continue;
            }
            let n = ((l - skip) as usize).min(rest.len());
            mem.write(d.addr.wrapping_add(skip), &rest[..n])
                .map_err(|_| Status::GeneralErr)?;
            rest = &rest[n..];
            skip = 0;
        }
        Ok(true)
    }
}

/// Writes packet `p` of checked WQE `c` into `buf` (headers, payload gathered from `mem`, pad,
/// ICRC) and returns its length; a DMA fault stops it.
#[allow(clippy::too_many_arguments)]
fn emit_packet(
    route: &Route,
    dest_qpn: u32,
    deth: Option<DethRepr>,
    c: &Checked<'_>,
    p: &super::packets::Packet,
    psn: Psn,
    ack_req: bool,
    raddr: Option<super::RemoteAddress>,
    dma_len: u32,
    mem: &impl Memory,
    buf: &mut [u8; MAX_FRAME],
) -> Result<usize, Fault> {
    let control = c.wqe.control();
    let t = Transport {
        bth: BthRepr {
            opcode: p.opcode,
            solicited: p.last
                && control.flags.contains(Flags::SOLICITED)
                && control.opcode != Opcode::RdmaWrite,
            migreq: false,
            pad_count: p.pad(),
            tver: 0,
            pkey: PKEY,
            fecn: false,
            becn: false,
            dest_qpn,
            ack_req,
            psn: psn.get(),
        },
        reth: match (p.reth(), raddr) {
            (true, Some(r)) => Some(RethRepr {
                va: r.addr,
                rkey: r.rkey,
                dma_len,
            }),
            _ => None,
        },
        deth: if p.deth() { deth } else { None },
        imm: p.imm().then_some(control.imm),
    };
    let len = p.len as usize;
    let hl = emit_headers(route, &t, len, buf).expect("headers fit MAX_FRAME");
    gather(c, p.offset as usize, mem, &mut buf[hl..hl + len])?;
    Ok(finish(buf, hl, len, p.pad(), route.l3_offset()).expect("frame fits MAX_FRAME"))
}

impl<const Q: usize, const M: usize> SendEngine<Q, M> {
    /// A checked TSO WQE on UD QP `qpn`: each segment (the header template with its lengths,
    /// sequence number, flags and checksums for that piece) is the payload of one UD SEND packet
    /// to the address vector, with its own PSN. A DMA fault stops it as for any WQE.
    #[allow(clippy::too_many_arguments)]
    fn tso_segments(
        &mut self,
        qpn: u32,
        c: &Checked<'_>,
        wqe: &[u8],
        route: &Route,
        dest_qpn: u32,
        deth: Option<DethRepr>,
        mem: &impl Memory,
        frame: &mut impl FnMut(&[u8]),
    ) -> Result<Option<Cqe>, NotRun> {
        let control = c.wqe.control();
        let limits = self.tso.expect("check refuses TSO without it");
        let seg = crate::tso::Segmenter::with_len(
            crate::wire::LinkType::Ipoib,
            c.wqe.header(),
            c.len as usize,
            control.mss.into(),
            limits,
        )
        .expect("check passed the segmenter's checks");
        let count = seg.segment_count();
        let mut body = [0u8; MAX_FRAME];
        let mut segment = [0u8; MAX_FRAME];
        let mut buf = [0u8; MAX_FRAME];
        for i in 0..count {
            let range = seg.segment_range(i).expect("i < count");
            let body = &mut body[..range.len()];
            if gather(c, range.start, mem, body).is_err() {
                return Ok(Some(self.fail(qpn, wqe, Status::GeneralErr)?));
            }
            let len = seg
                .write_segment_with(i, body, &mut segment)
                .expect("the segment fits the path MTU, checked");
            let qp = self.qps.get_mut(qpn).ok_or(NotRun::NoQp(qpn))?;
            let psn = qp.take_psns(1);
            let last = i + 1 == count;
            let pad = (len.wrapping_neg() & 3) as u8;
            let t = Transport {
                bth: BthRepr {
                    opcode: crate::wire::ib::opcode::UD_SEND_ONLY,
                    solicited: last && control.flags.contains(Flags::SOLICITED),
                    migreq: false,
                    pad_count: pad,
                    tver: 0,
                    pkey: PKEY,
                    fecn: false,
                    becn: false,
                    dest_qpn,
                    ack_req: false,
                    psn: psn.get(),
                },
                reth: None,
                deth,
                imm: None,
            };
            let hl = emit_headers(route, &t, len, &mut buf).expect("headers fit MAX_FRAME");
            buf[hl..hl + len].copy_from_slice(&segment[..len]);
            let n =
                finish(&mut buf, hl, len, pad, route.l3_offset()).expect("frame fits MAX_FRAME");
            frame(&buf[..n]);
        }
        Ok(control
            .flags
            .contains(Flags::SIGNALED)
            .then(|| Raw::read(wqe, true, false).cqe(qpn, Status::Success, c.len)))
    }
}

/// The outer headers of a packet over `av` with the entropy's flow label and source port.
fn route_of(av: &AddressVector, flow_label: u32, udp_sport: u16) -> Route {
    Route {
        src_mac: av.src_mac,
        dst_mac: av.dst_mac,
        vlan: av.vlan.map(|vid| (vid, av.pcp)),
        ip: av.ip,
        traffic_class: av.traffic_class,
        hop_limit: av.hop_limit,
        flow_label,
        udp_sport,
    }
}

/// Copies the message's bytes from offset `start` into `out`: from the inline bytes, or from
/// host memory through the data segments (each read is one DMA; a fault stops the copy).
pub(super) fn gather(
    c: &Checked<'_>,
    start: usize,
    mem: &impl Memory,
    out: &mut [u8],
) -> Result<(), Fault> {
    let end = start + out.len();
    if c.wqe.control().flags.contains(Flags::INLINE) {
        out.copy_from_slice(&c.wqe.inline()[start..end]);
        return Ok(());
    }
    // Walk the segments, copying the part of each that overlaps [start, end).
    let mut at = 0usize; // message offset of the segment
    for i in 0..usize::from(c.wqe.control().nsge) {
        let Some(s) = c.wqe.sge(i) else { break };
        let seg_end = at + s.length as usize;
        let lo = start.max(at);
        let hi = end.min(seg_end);
        if lo < hi {
            mem.read(s.addr + (lo - at) as u64, &mut out[lo - start..hi - start])?;
        }
        if seg_end >= end {
            break;
        }
        at = seg_end;
    }
    Ok(())
}

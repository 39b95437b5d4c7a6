//! RC request packets (docs/rx.md, "The receive engine"; docs/rc.md): a packet at the expected
//! PSN is checked for its place in the message and its length, then scattered as a SEND or
//! written as an RDMA WRITE; with the reliable transport on, the responder decides first which
//! PSN is executed and what is answered. A READ request (reliable transport only) is checked
//! against its R_Key here and answered with READ responses, which the send side emits.

use super::{meta_none, scatter, Accepted, Message, RcReply, RecvEngine};
use crate::qp::{Access, MrTable, Psn, QpTable, Status};
use crate::rc::{Executed, PsnClass, ReadRequest, Reliable, Reply, Request, Responder};
use crate::rx::cqe::{RecvCqe, RecvOpcode};
use crate::rx::packet::RocePacket;
use crate::rx::wq::{Wq, WqState};
use crate::rx::Discard;
use crate::wire::ib::{opcode as op, AethRepr, Syndrome, CREDITS_UNLIMITED};
use crate::wqe::Memory;

/// What executing an expected RC packet found, as the responder's rules take it: a frame taken
/// with a failed completion is a request the responder could not carry out (too long for the
/// receive WQE: invalid request); no WQE or no completion room is RNR.
fn executed(r: &Result<Accepted, Discard>) -> Executed {
    match r {
        Ok(a) => match a.completion {
            Some((_, c)) if c.status == Status::LocLenErr => Executed::InvalidRequest,
            Some((_, c)) if c.status != Status::Success => Executed::OperationalError,
            _ => Executed::Done,
        },
        Err(Discard::NoWqe | Discard::CqFull) => Executed::NoReceiveWqe,
        Err(Discard::Sequence | Discard::Length) => Executed::InvalidRequest,
        Err(Discard::RKey) => Executed::AccessError,
        Err(_) => Executed::OperationalError,
    }
}

/// Where a packet sits in its message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Position {
    First,
    Middle,
    Last,
    Only,
}

/// An RC or UD SEND / RC RDMA WRITE opcode's position in its message.
const fn position(opcode: u8) -> Position {
    match opcode {
        op::RC_SEND_FIRST | op::RC_RDMA_WRITE_FIRST => Position::First,
        op::RC_SEND_MIDDLE | op::RC_RDMA_WRITE_MIDDLE => Position::Middle,
        op::RC_SEND_LAST
        | op::RC_SEND_LAST_WITH_IMM
        | op::RC_RDMA_WRITE_LAST
        | op::RC_RDMA_WRITE_LAST_WITH_IMM => Position::Last,
        _ => Position::Only,
    }
}

impl<const W: usize, const Q: usize> RecvEngine<W, Q> {
    /// An RC request packet under the responder's rules: executed only at the expected PSN;
    /// what it found is the answer (kept for [`Self::take_reply`]).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn rc_reliable<const QT: usize, const M: usize>(
        &mut self,
        qps: &mut QpTable<QT>,
        mrs: &MrTable<M>,
        mem: &mut impl Memory,
        slot: usize,
        p: &RocePacket<'_>,
        cqe: RecvCqe,
        mtu: usize,
        rel: Reliable,
    ) -> Result<Accepted, Discard> {
        let rq = self.qps[slot].expect("caller found it");
        // A QP's own min_rnr_timer (its attributes) in place of the NIC's.
        let rel = qps.get(rq.qpn).map_or(rel, |q| rel.for_qp(q.transport()));
        let mut resp = rq.resp.unwrap_or(Responder::new(rel.responder(rq.epsn)));
        let req = Request {
            psn: Psn::from_bits_truncate(p.psn),
            ack_req: p.ack_req,
            last: matches!(position(p.opcode), Position::Last | Position::Only),
        };
        let mut result = Err(Discard::Psn);
        let v = resp.request(req, || {
            result = self.rc_execute(qps, mrs, mem, slot, p, cqe, mtu);
            executed(&result)
        });
        self.rc_settle(qps, slot, p.dest_qpn, resp, &v);
        result
    }

    /// After the responder judged a request of QP `qpn` (receive context `slot`): the QP to
    /// ERR if the verdict says so, the responder and the expected PSN kept, its answer queued.
    fn rc_settle<const QT: usize>(
        &mut self,
        qps: &mut QpTable<QT>,
        slot: usize,
        qpn: u32,
        resp: Responder,
        v: &crate::rc::Verdict,
    ) {
        if v.qp_error {
            if let Some(ctx) = qps.get_mut(qpn) {
                ctx.set_error();
            }
        }
        let q = self.qps[slot].as_mut().expect("caller found it");
        q.resp = Some(resp);
        q.epsn = resp.epsn();
        self.keep_reply(qpn, v.reply);
    }

    /// Keeps the responder's answer for [`Self::take_reply`].
    fn keep_reply(&mut self, qpn: u32, reply: Reply) {
        self.reply = match reply {
            Reply::None => None,
            Reply::Send { psn, aeth } => Some(RcReply {
                qpn,
                psn,
                aeth,
                read: None,
            }),
            Reply::Read { psn, va, len, msn } => Some(RcReply {
                qpn,
                psn,
                aeth: AethRepr {
                    syndrome: Syndrome::Ack {
                        credits: CREDITS_UNLIMITED,
                    },
                    msn,
                },
                read: Some((va, len)),
            }),
        };
    }

    /// An RDMA READ request under the responder's rules: at the expected PSN (no message in
    /// progress, no payload) or a duplicate the responder kept, its RETH is checked (R_Key,
    /// PD, remote read, bounds; a zero-length READ touches nothing) and answered with READ
    /// responses, read from host memory when the send side emits them.
    pub(super) fn rc_read<const QT: usize, const M: usize>(
        &mut self,
        qps: &mut QpTable<QT>,
        mrs: &MrTable<M>,
        slot: usize,
        p: &RocePacket<'_>,
        mtu: usize,
        rel: Reliable,
    ) -> Result<Accepted, Discard> {
        let rq = self.qps[slot].expect("caller found it");
        // A QP's own min_rnr_timer (its attributes) in place of the NIC's.
        let rel = qps.get(rq.qpn).map_or(rel, |q| rel.for_qp(q.transport()));
        let mut resp = rq.resp.unwrap_or(Responder::new(rel.responder(rq.epsn)));
        let (va, rkey, len) = p.reth.expect("a READ request carries a RETH");
        let psn = Psn::from_bits_truncate(p.psn);
        let pd = qps.get(p.dest_qpn).expect("caller checked").config().pd;
        let expected = resp.classify(psn) == PsnClass::Expected;
        let mut result = Err(Discard::Psn);
        let req = ReadRequest { psn, va, rkey, len };
        let v = resp.read(req, mtu as u32, || {
            result = if expected && rq.msg.is_some() {
                Err(Discard::Sequence)
            } else if !p.payload.is_empty() {
                Err(Discard::Length)
            } else if len != 0
                && mrs
                    .check(rkey, pd, va, len.into(), Access::REMOTE_READ)
                    .is_err()
            {
                Err(Discard::RKey)
            } else {
                Ok(Accepted {
                    wq: None,
                    completion: None,
                })
            };
            executed(&result)
        });
        self.rc_settle(qps, slot, p.dest_qpn, resp, &v);
        result
    }

    /// An RC packet at the expected PSN: in sequence, MTU-sized except at the end, then its
    /// SEND or WRITE.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn rc_execute<const QT: usize, const M: usize>(
        &mut self,
        qps: &mut QpTable<QT>,
        mrs: &MrTable<M>,
        mem: &mut impl Memory,
        slot: usize,
        p: &RocePacket<'_>,
        cqe: RecvCqe,
        mtu: usize,
    ) -> Result<Accepted, Discard> {
        let rq = self.qps[slot].expect("caller found it");
        let pos = position(p.opcode);
        let write = (op::RC_RDMA_WRITE_FIRST..=op::RC_RDMA_WRITE_ONLY_WITH_IMM).contains(&p.opcode);
        let in_seq = match (pos, rq.msg) {
            (Position::First | Position::Only, None) => true,
            (Position::Middle | Position::Last, Some(Message::Send { .. })) => !write,
            (Position::Middle | Position::Last, Some(Message::Write { .. })) => write,
            _ => false,
        };
        if !in_seq {
            return Err(Discard::Sequence);
        }
        let n = p.payload.len();
        let full = matches!(pos, Position::First | Position::Middle);
        if n > mtu || (full && n != mtu) {
            return Err(Discard::Length);
        }
        let last = matches!(pos, Position::Last | Position::Only);
        if write {
            self.rc_write(qps, mrs, mem, slot, p, last, cqe)
        } else {
            self.rc_send(qps, mrs, mem, slot, p, last, cqe)
        }
    }

    /// An RC SEND packet (PSN and sequence checked).
    #[allow(clippy::too_many_arguments)]
    fn rc_send<const QT: usize, const M: usize>(
        &mut self,
        qps: &mut QpTable<QT>,
        mrs: &MrTable<M>,
        mem: &mut impl Memory,
        slot: usize,
        p: &RocePacket<'_>,
        last: bool,
        mut cqe: RecvCqe,
    ) -> Result<Accepted, Discard> {
        let rq = self.qps[slot].expect("caller found it");
        let (w, addr, wqe, done) = match rq.msg {
            Some(Message::Send {
                wq,
                addr,
                wr_id,
                done,
            }) => {
                // Any packet may complete the WQE (its last, or one that fails), so each
                // needs room for a completion: without it the packet waits (`cq_full`).
                if !self.wq(wq).is_some_and(Wq::cq_room) {
                    return Err(Discard::CqFull);
                }
                cqe.wr_id = wr_id;
                let wqe = self.read_wqe(wq, addr, mrs, mem).1;
                (wq, addr, wqe, done)
            }
            _ => {
                let w = self.resolve(rq.target, meta_none())?;
                let (addr, (wr_id, wqe)) = self.take_wqe(w, mrs, mem)?;
                cqe.wr_id = wr_id;
                (w, addr, wqe, 0)
            }
        };
        let n = p.payload.len() as u32;
        let status = match wqe {
            Err(s) => s,
            Ok(wqe) if u64::from(done) + u64::from(n) > wqe.capacity() => Status::LocLenErr,
            Ok(wqe) => match scatter(mem, wqe.sges(), u64::from(done), p.payload) {
                Ok(()) => Status::Success,
                Err(()) => Status::GeneralErr,
            },
        };
        let q = self.qps[slot].as_mut().expect("caller found it");
        q.epsn = q.epsn.next();
        if status == Status::Success && !last {
            q.msg = Some(Message::Send {
                wq: w,
                addr,
                wr_id: cqe.wr_id,
                done: done + n,
            });
            return Ok(Accepted {
                wq: Some(w),
                completion: None,
            });
        }
        q.msg = None;
        cqe.status = status;
        cqe.byte_len = done + n;
        if status != Status::Success {
            self.fail(qps, p.dest_qpn, rq.target, w);
        }
        let c = self.complete(w, mem, cqe)?;
        Ok(Accepted {
            wq: Some(w),
            completion: Some(c),
        })
    }

    /// An RC RDMA WRITE packet (PSN and sequence checked).
    #[allow(clippy::too_many_arguments)]
    fn rc_write<const QT: usize, const M: usize>(
        &mut self,
        qps: &mut QpTable<QT>,
        mrs: &MrTable<M>,
        mem: &mut impl Memory,
        slot: usize,
        p: &RocePacket<'_>,
        last: bool,
        mut cqe: RecvCqe,
    ) -> Result<Accepted, Discard> {
        let rq = self.qps[slot].expect("caller found it");
        let pd = qps.get(p.dest_qpn).expect("caller checked").config().pd;
        let (va, len, done) = match (rq.msg, p.reth) {
            (Some(Message::Write { va, len, done }), _) => (va, len, done),
            (None, Some((va, rkey, len))) => {
                if len != 0
                    && mrs
                        .check(rkey, pd, va, len.into(), Access::REMOTE_WRITE)
                        .is_err()
                {
                    return Err(Discard::RKey);
                }
                (va, len, 0)
            }
            _ => unreachable!("FIRST and ONLY carry a RETH"),
        };
        let n = p.payload.len() as u32;
        let end = u64::from(done) + u64::from(n);
        if end > u64::from(len) || (last && end != u64::from(len)) {
            return Err(Discard::Length);
        }
        // With immediate data the message also takes a WQE: its queue must be able to
        // complete it before any byte lands.
        let target = if p.imm.is_some() {
            let w = self.resolve(rq.target, meta_none())?;
            let wq = self.wq(w).ok_or(Discard::NoWq)?;
            if wq.state != WqState::Ready {
                return Err(Discard::WqState);
            }
            if wq.doorbell.pending() == 0 {
                return Err(Discard::NoWqe);
            }
            if !wq.cq_room() {
                return Err(Discard::CqFull);
            }
            Some(w)
        } else {
            None
        };
        if n > 0 && mem.write(va.wrapping_add(done.into()), p.payload).is_err() {
            return Err(Discard::Fault);
        }
        let q = self.qps[slot].as_mut().expect("caller found it");
        q.epsn = q.epsn.next();
        q.msg = (!last).then_some(Message::Write {
            va,
            len,
            done: done + n,
        });
        let Some(w) = target else {
            return Ok(Accepted {
                wq: None,
                completion: None,
            });
        };
        let (wr_id, wqe) = self.take_wqe(w, mrs, mem)?.1;
        cqe.wr_id = wr_id;
        cqe.opcode = RecvOpcode::RecvRdmaWithImm;
        cqe.byte_len = len;
        // The WQE's buffers are not used; only a WQE that cannot be read fails.
        cqe.status = match wqe {
            Err(s @ (Status::GeneralErr | Status::LocQpOpErr)) => s,
            _ => Status::Success,
        };
        if cqe.status != Status::Success {
            self.fail(qps, p.dest_qpn, rq.target, w);
        }
        let c = self.complete(w, mem, cqe)?;
        Ok(Accepted {
            wq: Some(w),
            completion: Some(c),
        })
    }
}

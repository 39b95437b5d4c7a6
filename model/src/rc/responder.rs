//! The responder's per-QP state (docs/rc.md, "Responder"): which request packets to execute,
//! and what to answer.
//!
//! - A request's PSN is compared with the expected PSN modulo 2^24 ([`PsnClass`]): the expected
//!   one is executed; one up to 2^23 behind is a duplicate, answered with an ACK of the last
//!   PSN executed and never executed again; one ahead means packets were lost, and gets one NAK
//!   PSN sequence error carrying the expected PSN.
//! - After any NAK (sequence error or RNR) the responder is silent about further packets ahead
//!   until the expected PSN arrives: the requester goes back on the first NAK, and the packets
//!   already in flight behind it would otherwise each send it back again.
//! - The MSN counts completed messages (it moves on a message's last packet) modulo 2^24.
//! - ACKs are coalesced: one is sent when a packet asks for it (AckReq) and after every
//!   `ack_every` executed packets in between, so a long message frees the requester's window
//!   before its last packet arrives; an ACK covers every PSN up to the one it carries.
//! - What executing a packet found is the caller's ([`Executed`]): no receive WQE gives an
//!   RNR NAK (the PSN is not consumed, the requester sends it again later); a failed access
//!   check, an invalid or an unperformable request give their NAK and move the QP to ERR.
//! - An RDMA READ request ([`Responder::read`]) takes one PSN per response packet; executed,
//!   its answer is the responses themselves ([`Reply::Read`]), which acknowledge everything
//!   before them. The last [`MAX_RD_ATOMIC`] READs are kept: a duplicate READ inside one of
//!   them, asking for the rest of it from its PSN on, is executed again (its responses were
//!   lost); one that is not kept is dropped unanswered, and the requester's timeout decides.

use super::requester::MAX_RD_ATOMIC;
use crate::qp::Psn;
use crate::wire::ib::{AethRepr, NakCode, Syndrome, CREDITS_UNLIMITED};

/// Where a request's PSN lies against the expected PSN (its value is the RTL's code,
/// `rc_pkg::RC_CLASS_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum PsnClass {
    /// The expected PSN: execute it.
    Expected = 0,
    /// Already executed (`(expected - psn) mod 2^24` in `1..=2^23`): answer, do not execute.
    Duplicate = 1,
    /// Ahead of the expected PSN (`(psn - expected) mod 2^24` in `1..2^23`): packets were lost.
    Ahead = 2,
}

impl PsnClass {
    /// Every class, in code order.
    pub const ALL: [PsnClass; 3] = [PsnClass::Expected, PsnClass::Duplicate, PsnClass::Ahead];

    /// The lower-case name (the generated package's constant names).
    pub const fn name(self) -> &'static str {
        match self {
            PsnClass::Expected => "expected",
            PsnClass::Duplicate => "duplicate",
            PsnClass::Ahead => "ahead",
        }
    }
}

/// Classifies `psn` against `expected`. Half the PSN space behind counts as duplicate, half
/// ahead as a gap; the point exactly 2^23 away is taken as a duplicate, which is harmless
/// (re-acknowledged) where a wrong "ahead" would send a NAK the requester cannot use.
pub const fn classify(psn: Psn, expected: Psn) -> PsnClass {
    let ahead = psn.distance_from(expected);
    if ahead == 0 {
        PsnClass::Expected
    } else if ahead < Psn::HALF {
        PsnClass::Ahead
    } else {
        PsnClass::Duplicate
    }
}

/// A request packet as the responder's rules see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    /// The BTH PSN.
    pub psn: Psn,
    /// The BTH AckReq bit.
    pub ack_req: bool,
    /// The message's last packet (LAST or ONLY opcode): the MSN moves when it is executed.
    pub last: bool,
}

/// An RDMA READ request as the responder's rules see it: its PSN and RETH.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadRequest {
    /// The BTH PSN: the first response's.
    pub psn: Psn,
    /// The RETH's virtual address.
    pub va: u64,
    /// The RETH's R_Key.
    pub rkey: u32,
    /// The RETH's DMA length.
    pub len: u32,
}

impl ReadRequest {
    /// Response packets (PSNs) it takes at path MTU `mtu` bytes: at least one.
    pub const fn psns(&self, mtu: u32) -> u32 {
        if self.len == 0 {
            1
        } else {
            self.len.div_ceil(mtu)
        }
    }
}

/// What executing an expected packet found (the receive engine's verdict; its value is the
/// RTL's code, `rc_pkg::RC_EXEC_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Executed {
    /// Done: its data landed (and its message completed if it was the last packet).
    Done = 0,
    /// A SEND (or WRITE with immediate) found no receive WQE: receiver not ready.
    NoReceiveWqe = 1,
    /// Opcode out of sequence, a length that does not fit, an unsupported operation.
    InvalidRequest = 2,
    /// R_Key, PD, access rights or bounds refused.
    AccessError = 3,
    /// A valid request the responder could not carry out (a fault writing its memory).
    OperationalError = 4,
}

impl Executed {
    /// Every verdict, in code order.
    pub const ALL: [Executed; 5] = [
        Executed::Done,
        Executed::NoReceiveWqe,
        Executed::InvalidRequest,
        Executed::AccessError,
        Executed::OperationalError,
    ];

    /// The lower-case name (the generated package's constant names).
    pub const fn name(self) -> &'static str {
        match self {
            Executed::Done => "done",
            Executed::NoReceiveWqe => "no_receive_wqe",
            Executed::InvalidRequest => "invalid_request",
            Executed::AccessError => "access_error",
            Executed::OperationalError => "operational_error",
        }
    }
}

/// The answer to one request packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reply {
    /// Nothing to send.
    None,
    /// Send an Acknowledge packet with this PSN and AETH.
    Send {
        /// The BTH PSN of the acknowledgement.
        psn: Psn,
        /// Its syndrome and MSN.
        aeth: AethRepr,
    },
    /// Send READ responses: `len` bytes read at `va`, one path-MTU piece per PSN from `psn`
    /// on, the AETH (ACK with this MSN) on the first and last.
    Read {
        /// The first response's PSN.
        psn: Psn,
        /// Where the bytes are read.
        va: u64,
        /// How many.
        len: u32,
        /// The MSN the AETHs carry.
        msn: u32,
    },
}

/// The verdict on one request packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// How its PSN compared.
    pub class: PsnClass,
    /// Whether it was executed (its data landed, the expected PSN moved on).
    pub executed: bool,
    /// What to send back.
    pub reply: Reply,
    /// The QP has gone to ERR (a NAK other than sequence error or RNR was sent).
    pub qp_error: bool,
}

/// Responder settings fixed when the QP moves to RTR.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResponderConfig {
    /// The first expected PSN (the QP's `rq_psn`).
    pub epsn: Psn,
    /// Acknowledge at least every this many executed packets (1: every packet).
    pub ack_every: u32,
    /// The RNR timer code RNR NAKs carry (verbs `min_rnr_timer`, 0..=31).
    pub rnr_timer: u8,
}

/// One QP's responder state: what the receive context holds next to its message in progress.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Responder {
    cfg: ResponderConfig,
    epsn: Psn,
    msn: u32,
    nak_sent: bool,
    unacked: u32,
    error: bool,
    /// The last READs executed, to execute a duplicate again; `next_read` is the oldest.
    reads: [Option<ReadRequest>; MAX_RD_ATOMIC],
    next_read: usize,
    /// Duplicate READs dropped because no kept READ holds them.
    reads_dropped: u64,
}

impl Responder {
    /// A responder expecting `cfg.epsn`, MSN 0. An `ack_every` of 0 is taken as 1.
    pub const fn new(cfg: ResponderConfig) -> Responder {
        let ack_every = if cfg.ack_every == 0 { 1 } else { cfg.ack_every };
        Responder {
            cfg: ResponderConfig { ack_every, ..cfg },
            epsn: cfg.epsn,
            msn: 0,
            nak_sent: false,
            unacked: 0,
            error: false,
            reads: [None; MAX_RD_ATOMIC],
            next_read: 0,
            reads_dropped: 0,
        }
    }

    /// Duplicate READs dropped unanswered: no kept READ held them.
    pub const fn reads_dropped(&self) -> u64 {
        self.reads_dropped
    }

    /// The expected PSN.
    pub const fn epsn(&self) -> Psn {
        self.epsn
    }

    /// The MSN: messages completed, modulo 2^24.
    pub const fn msn(&self) -> u32 {
        self.msn
    }

    /// Whether a NAK was sent and the expected PSN has not arrived since.
    pub const fn nak_latched(&self) -> bool {
        self.nak_sent
    }

    /// Whether the QP's receive side is in ERR (every further request is dropped unanswered).
    pub const fn is_error(&self) -> bool {
        self.error
    }

    /// How `psn` compares with the expected PSN.
    pub const fn classify(&self, psn: Psn) -> PsnClass {
        classify(psn, self.epsn)
    }

    fn aeth(&self, syndrome: Syndrome) -> AethRepr {
        AethRepr {
            syndrome,
            msn: self.msn,
        }
    }

    fn ack(&mut self) -> Reply {
        self.unacked = 0;
        Reply::Send {
            psn: self.epsn.add(Psn::MASK),
            aeth: self.aeth(Syndrome::Ack {
                credits: CREDITS_UNLIMITED,
            }),
        }
    }

    fn nak(&self, syndrome: Syndrome) -> Reply {
        Reply::Send {
            psn: self.epsn,
            aeth: self.aeth(syndrome),
        }
    }

    /// The fatal NAK for what execution found (`None` for `Done`), at `psn`: the QP goes to
    /// ERR. A receiver-not-ready has no meaning for a READ: an operational error.
    fn fatal(&mut self, e: Executed, psn: Psn, v: &mut Verdict) -> bool {
        let code = match e {
            Executed::Done => return false,
            Executed::InvalidRequest => NakCode::InvalidRequest,
            Executed::AccessError => NakCode::RemoteAccess,
            Executed::NoReceiveWqe | Executed::OperationalError => NakCode::RemoteOperational,
        };
        v.reply = Reply::Send {
            psn,
            aeth: self.aeth(Syndrome::Nak(code)),
        };
        v.qp_error = true;
        self.error = true;
        true
    }

    /// Whether a kept READ holds duplicate `req`: the same R_Key, and the address and length
    /// advanced by its PSN's offset × `mtu` (what the RTL's rule takes as its `kept` input).
    pub fn kept(&self, req: &ReadRequest, mtu: u32) -> bool {
        self.reads.iter().flatten().any(|k| {
            let off = req.psn.distance_from(k.psn);
            let skip = u64::from(off) * u64::from(mtu);
            off < k.psns(mtu)
                && req.rkey == k.rkey
                && req.va == k.va.wrapping_add(skip)
                && u64::from(req.len) == u64::from(k.len).saturating_sub(skip)
        })
    }

    /// Takes one RDMA READ request at path MTU `mtu` bytes. `execute` (the R_Key, PD, access
    /// and bounds check) runs for the expected PSN, and again for a duplicate that a kept READ
    /// holds; done, the answer is the responses from the request's PSN on. An expected READ
    /// moves the expected PSN past all its responses and counts a message.
    pub fn read(
        &mut self,
        req: ReadRequest,
        mtu: u32,
        execute: impl FnOnce() -> Executed,
    ) -> Verdict {
        let class = self.classify(req.psn);
        let mut v = Verdict {
            class,
            executed: false,
            reply: Reply::None,
            qp_error: false,
        };
        if self.error {
            return v;
        }
        let psns = req.psns(mtu);
        match class {
            PsnClass::Ahead => {
                if !self.nak_sent {
                    self.nak_sent = true;
                    v.reply = self.nak(Syndrome::Nak(NakCode::PsnSequence));
                }
            }
            PsnClass::Duplicate => {
                if !self.kept(&req, mtu) {
                    self.reads_dropped += 1;
                    return v;
                }
                if !self.fatal(execute(), req.psn, &mut v) {
                    v.reply = self.read_reply(&req);
                }
            }
            PsnClass::Expected => {
                self.nak_sent = false;
                // Responses spread over half the PSN space could not be told from duplicates.
                let e = if psns >= Psn::HALF {
                    Executed::InvalidRequest
                } else {
                    execute()
                };
                if self.fatal(e, self.epsn, &mut v) {
                    return v;
                }
                v.executed = true;
                self.epsn = self.epsn.add(psns);
                self.msn = (self.msn + 1) & Psn::MASK;
                // The last response acknowledges everything up to it.
                self.unacked = 0;
                self.reads[self.next_read] = Some(req);
                self.next_read = (self.next_read + 1) % MAX_RD_ATOMIC;
                v.reply = self.read_reply(&req);
            }
        }
        v
    }

    fn read_reply(&self, req: &ReadRequest) -> Reply {
        Reply::Read {
            psn: req.psn,
            va: req.va,
            len: req.len,
            msn: self.msn,
        }
    }

    /// Takes one request packet. `execute` runs only for the expected PSN (and never in ERR):
    /// it is where the receive engine checks and writes the packet, and its verdict decides
    /// the answer.
    pub fn request(&mut self, req: Request, execute: impl FnOnce() -> Executed) -> Verdict {
        let class = self.classify(req.psn);
        let mut v = Verdict {
            class,
            executed: false,
            reply: Reply::None,
            qp_error: false,
        };
        if self.error {
            return v;
        }
        match class {
            PsnClass::Duplicate => v.reply = self.ack(),
            PsnClass::Ahead => {
                if !self.nak_sent {
                    self.nak_sent = true;
                    v.reply = self.nak(Syndrome::Nak(NakCode::PsnSequence));
                }
            }
            PsnClass::Expected => {
                self.nak_sent = false;
                let fatal = match execute() {
                    Executed::Done => {
                        v.executed = true;
                        self.epsn = self.epsn.next();
                        if req.last {
                            self.msn = (self.msn + 1) & Psn::MASK;
                        }
                        self.unacked += 1;
                        if req.ack_req || self.unacked >= self.cfg.ack_every {
                            v.reply = self.ack();
                        }
                        return v;
                    }
                    Executed::NoReceiveWqe => {
                        self.nak_sent = true;
                        v.reply = self.nak(Syndrome::RnrNak {
                            timer: self.cfg.rnr_timer & 0x1F,
                        });
                        return v;
                    }
                    Executed::InvalidRequest => NakCode::InvalidRequest,
                    Executed::AccessError => NakCode::RemoteAccess,
                    Executed::OperationalError => NakCode::RemoteOperational,
                };
                v.reply = self.nak(Syndrome::Nak(fatal));
                v.qp_error = true;
                self.error = true;
            }
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn psn(v: u32) -> Psn {
        Psn::new(v).unwrap()
    }

    fn responder(epsn: u32, ack_every: u32) -> Responder {
        Responder::new(ResponderConfig {
            epsn: psn(epsn),
            ack_every,
            rnr_timer: 12,
        })
    }

    fn req(p: u32, ack_req: bool, last: bool) -> Request {
        Request {
            psn: psn(p),
            ack_req,
            last,
        }
    }

    fn sent(v: &Verdict) -> Option<(u32, Syndrome, u32)> {
        match v.reply {
            Reply::None => None,
            Reply::Send { psn, aeth } => Some((psn.get(), aeth.syndrome, aeth.msn)),
            Reply::Read { .. } => panic!("not a READ"),
        }
    }

    const ACK: Syndrome = Syndrome::Ack {
        credits: CREDITS_UNLIMITED,
    };
    const SEQ: Syndrome = Syndrome::Nak(NakCode::PsnSequence);

    #[test]
    fn classify_modulo_2_24() {
        let e = psn(10);
        assert_eq!(classify(psn(10), e), PsnClass::Expected);
        assert_eq!(classify(psn(11), e), PsnClass::Ahead);
        assert_eq!(classify(psn(9), e), PsnClass::Duplicate);
        assert_eq!(classify(e.add(Psn::HALF - 1), e), PsnClass::Ahead);
        assert_eq!(classify(e.add(Psn::HALF), e), PsnClass::Duplicate);
        // Across the wrap: 0xFFFFFF is one behind 0, 0 one ahead of 0xFFFFFF.
        assert_eq!(classify(psn(Psn::MASK), psn(0)), PsnClass::Duplicate);
        assert_eq!(classify(psn(0), psn(Psn::MASK)), PsnClass::Ahead);
        assert_eq!(classify(psn(1), psn(Psn::MASK - 1)), PsnClass::Ahead);
    }

    #[test]
    fn in_order_packets_are_acked_on_ack_req_with_the_msn() {
        let mut r = responder(100, 16);
        // A three-packet message: only the last asks for an ACK.
        for (p, last) in [(100, false), (101, false), (102, true)] {
            let v = r.request(req(p, last, last), || Executed::Done);
            assert!(v.executed && v.class == PsnClass::Expected);
            if last {
                assert_eq!(sent(&v), Some((102, ACK, 1)));
            } else {
                assert_eq!(sent(&v), None, "coalesced");
            }
        }
        assert_eq!((r.epsn().get(), r.msn()), (103, 1));
    }

    #[test]
    fn every_nth_packet_is_acked_without_ack_req() {
        let mut r = responder(0, 4);
        let mut acks = [0u32; 2];
        let mut n = 0;
        for p in 0..10 {
            if let Some((a, ..)) = sent(&r.request(req(p, false, false), || Executed::Done)) {
                acks[n] = a;
                n += 1;
            }
        }
        assert_eq!((n, acks), (2, [3, 7]));
        // An AckReq in between restarts the count.
        let v = r.request(req(10, true, true), || Executed::Done);
        assert_eq!(sent(&v), Some((10, ACK, 1)));
        let v = r.request(req(11, false, false), || Executed::Done);
        assert_eq!(sent(&v), None);
        // 0 would never acknowledge: taken as 1, every packet.
        let mut r = responder(0, 0);
        let v = r.request(req(0, false, false), || Executed::Done);
        assert_eq!(sent(&v), Some((0, ACK, 0)));
    }

    #[test]
    fn duplicates_are_reacked_and_not_executed() {
        let mut r = responder(5, 16);
        r.request(req(5, true, true), || Executed::Done);
        r.request(req(6, false, false), || Executed::Done);
        let v = r.request(req(5, true, true), || panic!("a duplicate is not executed"));
        assert_eq!(v.class, PsnClass::Duplicate);
        assert!(!v.executed);
        // The ACK names the last PSN executed (6), which also covers the coalesced one.
        assert_eq!(sent(&v), Some((6, ACK, 1)));
        // Even without AckReq: a duplicate means the requester lost an ACK.
        let v = r.request(req(4, false, false), || unreachable!());
        assert_eq!(sent(&v), Some((6, ACK, 1)));
    }

    #[test]
    fn ahead_gets_one_nak_until_it_recovers() {
        let mut r = responder(20, 16);
        let v = r.request(req(22, false, false), || unreachable!());
        assert_eq!(v.class, PsnClass::Ahead);
        assert_eq!(sent(&v), Some((20, SEQ, 0)));
        assert!(r.nak_latched());
        for p in [23, 24, 22] {
            let v = r.request(req(p, true, true), || unreachable!());
            assert_eq!(sent(&v), None, "silent after the first NAK");
        }
        // A duplicate is still answered while latched.
        assert_eq!(
            sent(&r.request(req(19, false, false), || unreachable!())),
            Some((19, ACK, 0))
        );
        // The expected PSN clears the latch; the next gap gets a NAK again.
        assert!(r.request(req(20, false, false), || Executed::Done).executed);
        assert!(!r.nak_latched());
        let v = r.request(req(25, false, false), || unreachable!());
        assert_eq!(sent(&v), Some((21, SEQ, 0)));
    }

    #[test]
    fn psn_and_msn_wrap_at_2_24() {
        let mut r = responder(Psn::MASK - 1, 1);
        r.msn = Psn::MASK;
        for (p, want) in [
            (Psn::MASK - 1, Psn::MASK - 1),
            (Psn::MASK, Psn::MASK),
            (0, 0),
        ] {
            let v = r.request(req(p, false, true), || Executed::Done);
            assert_eq!(sent(&v).map(|s| s.0), Some(want));
        }
        assert_eq!((r.epsn().get(), r.msn()), (1, 2));
        // Just behind the wrap is a duplicate, and re-acks PSN 0.
        let v = r.request(req(Psn::MASK, false, false), || unreachable!());
        assert_eq!(sent(&v), Some((0, ACK, 2)));
        // Ahead across the wrap.
        let mut r = responder(Psn::MASK, 1);
        let v = r.request(req(2, false, false), || unreachable!());
        assert_eq!(sent(&v), Some((Psn::MASK, SEQ, 0)));
    }

    #[test]
    fn no_receive_wqe_gets_rnr_and_keeps_the_psn() {
        let mut r = responder(7, 16);
        let v = r.request(req(7, true, true), || Executed::NoReceiveWqe);
        assert!(!v.executed && !v.qp_error);
        assert_eq!(sent(&v), Some((7, Syndrome::RnrNak { timer: 12 }, 0)));
        assert_eq!(r.epsn().get(), 7);
        // The packets behind it in flight are dropped silently, not NAKed.
        assert_eq!(
            sent(&r.request(req(8, true, true), || unreachable!())),
            None
        );
        // The resend, once a WQE is posted, goes through.
        let v = r.request(req(7, true, true), || Executed::Done);
        assert_eq!(sent(&v), Some((7, ACK, 1)));
    }

    fn rd(p: u32, va: u64, len: u32) -> ReadRequest {
        ReadRequest {
            psn: psn(p),
            va,
            rkey: 0x77,
            len,
        }
    }

    fn read_at(v: &Verdict) -> Option<(u32, u64, u32, u32)> {
        match v.reply {
            Reply::Read { psn, va, len, msn } => Some((psn.get(), va, len, msn)),
            _ => None,
        }
    }

    #[test]
    fn a_read_takes_a_psn_per_response_and_answers_with_them() {
        let mut r = responder(Psn::MASK - 1, 4);
        r.request(req(Psn::MASK - 1, false, false), || Executed::Done);
        // 600 bytes at MTU 256: three responses, PSNs 0xFFFFFF, 0, 1 (across the wrap).
        let v = r.read(rd(Psn::MASK, 0x1000, 600), 256, || Executed::Done);
        assert!(v.executed);
        assert_eq!(read_at(&v), Some((Psn::MASK, 0x1000, 600, 1)));
        assert_eq!((r.epsn().get(), r.msn()), (2, 1));
        // A zero-length READ still takes one PSN.
        let v = r.read(rd(2, 0x9000, 0), 256, || Executed::Done);
        assert_eq!(read_at(&v), Some((2, 0x9000, 0, 2)));
        assert_eq!(r.epsn().get(), 3);
        // The responses acknowledged the SEND before: the coalescing count starts again.
        for p in 3..6 {
            assert_eq!(
                sent(&r.request(req(p, false, false), || Executed::Done)),
                None
            );
        }
    }

    #[test]
    fn a_duplicate_read_is_executed_again_from_its_psn_if_kept() {
        let mut r = responder(10, 16);
        r.read(rd(10, 0x1000, 1000), 256, || Executed::Done);
        assert_eq!(r.epsn().get(), 14);
        // The requester lost responses from 12 on: it asks again from 12, the RETH advanced.
        let again = r.read(rd(12, 0x1200, 488), 256, || Executed::Done);
        assert_eq!(again.class, PsnClass::Duplicate);
        assert!(!again.executed, "the expected PSN does not move");
        assert_eq!(read_at(&again), Some((12, 0x1200, 488, 1)));
        assert_eq!(r.epsn().get(), 14);
        // A RETH that does not match what was kept is not executed: dropped, unanswered.
        for bad in [rd(12, 0x1000, 488), rd(12, 0x1200, 1000), rd(9, 0x1000, 1)] {
            let v = r.read(bad, 256, || unreachable!());
            assert_eq!(v.reply, Reply::None);
        }
        assert_eq!(r.reads_dropped(), 3);
        // Four more READs push the first out of the table.
        for i in 0..MAX_RD_ATOMIC as u32 {
            r.read(rd(14 + i, 0x8000, 4), 256, || Executed::Done);
        }
        let v = r.read(rd(10, 0x1000, 1000), 256, || unreachable!());
        assert_eq!((v.reply, r.reads_dropped()), (Reply::None, 4));
        // The newest kept ones still execute; a refused duplicate is a fatal NAK at its PSN.
        let v = r.read(rd(17, 0x8000, 4), 256, || Executed::AccessError);
        assert!(v.qp_error);
        assert_eq!(
            sent(&v),
            Some((17, Syndrome::Nak(NakCode::RemoteAccess), 5))
        );
    }

    #[test]
    fn a_read_ahead_is_naked_and_a_refused_one_is_fatal() {
        let mut r = responder(0, 16);
        let v = r.read(rd(3, 0, 10), 256, || unreachable!());
        assert_eq!(sent(&v), Some((0, SEQ, 0)));
        let v = r.read(rd(0, 0, 10), 256, || Executed::AccessError);
        assert!(v.qp_error && r.is_error());
        assert_eq!(sent(&v), Some((0, Syndrome::Nak(NakCode::RemoteAccess), 0)));
        assert_eq!(
            r.read(rd(0, 0, 10), 256, || unreachable!()).reply,
            Reply::None
        );
    }

    #[test]
    fn fatal_naks_move_the_qp_to_err() {
        for (e, code) in [
            (Executed::InvalidRequest, NakCode::InvalidRequest),
            (Executed::AccessError, NakCode::RemoteAccess),
            (Executed::OperationalError, NakCode::RemoteOperational),
        ] {
            let mut r = responder(3, 16);
            r.request(req(3, false, false), || Executed::Done);
            let v = r.request(req(4, true, true), || e);
            assert!(v.qp_error && !v.executed && r.is_error());
            assert_eq!(sent(&v), Some((4, Syndrome::Nak(code), 0)));
            // In ERR nothing is executed or answered.
            for p in [4, 3, 9] {
                let v = r.request(req(p, true, true), || unreachable!());
                assert_eq!(v.reply, Reply::None);
            }
        }
    }
}

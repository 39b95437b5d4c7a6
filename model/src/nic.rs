//! One whole NIC as the reference sees it: the send side (engine and its queues), the RSS
//! pipeline's verdict on every received frame, and the receive side, sharing one QP table and
//! one memory-region table ([`crate::rx`], docs/rx.md). Two of them joined by a wire are what the main job
//! runs (`rocenic sim`), and what the co-simulated core is held against.

pub mod regs;

use crate::qp::Psn;
use crate::rc::{
    emit_ack, emit_read_response, parse_ack, parse_read_response, response_opcode, Ack,
    ReadResponse, Reliable,
};
use crate::rss::parse::classify;
use crate::rss::steer::{distribute_by, Meta, Rule};
use crate::rss::{FlowTuple, Function, HashFields, HashInput, HashType};
use crate::rx::{Accepted, Discard, RcReply, RecvCqe, RecvEngine};
use crate::toeplitz::{self, MAX_KEY_LEN};
use crate::wire::ib::{NakCode, Syndrome};
use crate::wire::LinkType;
use crate::wqe::{Memory, QueueError, Queues, SendEngine, Step};
use core::convert::Infallible;

/// An RSS context as the NIC model keeps it: function, fields, key and indirection table (the
/// key as bytes: `rss::Context` precomputes 48 KiB of Toeplitz tables, too much to keep one per
/// context in a value that lives on the stack).
#[derive(Clone, Copy, Debug)]
struct Slot<const T: usize> {
    function: Function,
    fields: HashFields,
    key: [u8; MAX_KEY_LEN],
    key_len: usize,
    table: [u16; T],
    len: usize,
}

impl<const T: usize> Slot<T> {
    fn hash(&self, tuple: &FlowTuple) -> (u32, HashType) {
        let input = HashInput::new(tuple, self.fields);
        let hash = match self.function {
            // The key was accepted by `Context::new`; an input it cannot cover hashes to 0, as
            // `distribute` reports it.
            Function::Toeplitz => {
                toeplitz::hash_bitserial(&self.key[..self.key_len], input.as_bytes())
                    .unwrap_or_default()
            }
            Function::Xor => toeplitz::hash_xor(input.as_bytes()),
        };
        (hash, input.hash_type)
    }
}

/// Room for one ACK frame: 82 bytes over IPv6 with a VLAN tag is the longest.
const ACK_FRAME: usize = 128;

/// Steering rules a NIC holds by default.
pub const DEFAULT_RULES: usize = 16;
/// RSS contexts a NIC holds by default.
pub const DEFAULT_CONTEXTS: usize = 4;
/// The longest indirection table of a context, by default.
pub const DEFAULT_TABLE: usize = 128;

/// The RSS state of a NIC: steering rules, and contexts with their indirection tables.
/// `R` rules, `C` contexts, tables of at most `T` entries (a power of two each). Contexts are
/// set in index order, as a driver creates them; a rule naming a context past the last one set
/// wraps, as the hardware's index field does.
#[derive(Clone, Debug)]
pub struct Steering<
    const R: usize = DEFAULT_RULES,
    const C: usize = DEFAULT_CONTEXTS,
    const T: usize = DEFAULT_TABLE,
> {
    rules: [Rule; R],
    contexts: [Slot<T>; C],
    set: usize,
}

/// A steering request the NIC refuses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SteeringError {
    /// A rule index past the table, or a context index past the table or past the next unset.
    Index(usize),
    /// An indirection table whose length is not a power of two up to `T`.
    TableLen(usize),
    /// A key of other than 4..=52 bytes.
    Key(usize),
}

impl<const R: usize, const C: usize, const T: usize> Default for Steering<R, C, T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const R: usize, const C: usize, const T: usize> Steering<R, C, T> {
    /// No rules and no contexts: every frame goes to queue 0, unhashed.
    pub fn new() -> Self {
        Steering {
            rules: [Rule::default(); R],
            contexts: [Slot {
                function: Function::Toeplitz,
                fields: HashFields::NONE,
                key: [0; MAX_KEY_LEN],
                key_len: 0,
                table: [0; T],
                len: 0,
            }; C],
            set: 0,
        }
    }

    /// Replaces rule `i`.
    pub fn set_rule(&mut self, i: usize, rule: Rule) -> Result<(), SteeringError> {
        *self.rules.get_mut(i).ok_or(SteeringError::Index(i))? = rule;
        Ok(())
    }

    /// Sets context `i` (at most one past the last set): `function` over `fields` with `key`,
    /// and its indirection table.
    pub fn set_context(
        &mut self,
        i: usize,
        function: Function,
        fields: HashFields,
        key: &[u8],
        table: &[u16],
    ) -> Result<(), SteeringError> {
        if i >= C || i > self.set {
            return Err(SteeringError::Index(i));
        }
        if !table.len().is_power_of_two() || table.len() > T {
            return Err(SteeringError::TableLen(table.len()));
        }
        if !(4..=MAX_KEY_LEN).contains(&key.len()) {
            return Err(SteeringError::Key(key.len()));
        }
        let slot = &mut self.contexts[i];
        *slot = Slot {
            function,
            fields,
            key: [0; MAX_KEY_LEN],
            key_len: key.len(),
            table: [0; T],
            len: table.len(),
        };
        slot.key[..key.len()].copy_from_slice(key);
        slot.table[..table.len()].copy_from_slice(table);
        self.set = self.set.max(i + 1);
        Ok(())
    }

    /// The RSS pipeline's verdict on an Ethernet frame: `model::rss::steer`'s rule
    /// (`distribute_by`) over these contexts.
    pub fn verdict(&self, frame: &[u8]) -> Meta {
        let parsed = classify(LinkType::Ethernet, frame);
        let meta = distribute_by(
            &parsed,
            &self.rules,
            &self.contexts[..self.set],
            |c| &c.table[..c.len],
            |c, tuple| Ok::<_, Infallible>(c.hash(tuple)),
        );
        match meta {
            Ok(m) => m,
            Err(never) => match never {},
        }
    }
}

/// One NIC: the send engine and its queues, the steering, the receive engine.
#[derive(Clone, Debug)]
pub struct NicModel<
    const Q: usize = { crate::qp::DEFAULT_QPS },
    const M: usize = { crate::wqe::engine::DEFAULT_MRS },
    const W: usize = { crate::rx::engine::DEFAULT_WQS },
> {
    /// QPs, regions, addresses and the send engine (the QP and region tables are the receive
    /// side's too).
    pub send: SendEngine<Q, M>,
    /// Send rings and the send completion ring.
    pub queues: Queues<Q>,
    /// Rules and RSS contexts.
    pub steering: Steering,
    /// Work queues and receive contexts.
    pub rx: RecvEngine<W, Q>,
    /// Acknowledgements the receive side owes, sent at the start of the next send turn.
    acks: [Option<RcReply>; ACK_QUEUE],
    /// What the reliable transport did at this NIC.
    rc: RcCounts,
}

/// Acknowledgements a NIC queues between two send turns; one more is dropped (and counted):
/// the requester's timeout recovers a lost ACK, as it would one lost on the wire.
pub const ACK_QUEUE: usize = 16;

/// What a NIC's reliable transport did, beyond each requester's [`crate::rc::Counters`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RcCounts {
    /// ACK frames sent (positive acknowledgements, duplicates' re-acknowledgements included).
    pub acks_sent: u64,
    /// NAK frames sent: PSN sequence error.
    pub seq_naks_sent: u64,
    /// NAK frames sent: receiver not ready.
    pub rnr_naks_sent: u64,
    /// NAK frames sent: invalid request, remote access or remote operational error.
    pub fatal_naks_sent: u64,
    /// Acknowledgements dropped because the queue was full.
    pub acks_dropped: u64,
    /// ACK frames received and handed to a requester.
    pub acks_received: u64,
    /// READ responses sent (first executions and duplicates executed again).
    pub read_responses_sent: u64,
    /// READ responses received and handed to a requester (taken or not).
    pub read_responses_received: u64,
    /// READ responses not sent because reading host memory failed (the requester's timeout
    /// asks again).
    pub read_faults: u64,
}

impl<const Q: usize, const M: usize, const W: usize> NicModel<Q, M, W> {
    /// A NIC from its parts.
    pub fn new(send: SendEngine<Q, M>, queues: Queues<Q>) -> Self {
        NicModel {
            send,
            queues,
            steering: Steering::new(),
            rx: RecvEngine::new(),
            acks: [None; ACK_QUEUE],
            rc: RcCounts::default(),
        }
    }

    /// The reliable transport's capability switch (docs/rc.md, "Joined to the engines"), off
    /// by default: with `None` every engine behaves as the RTL does (an RC WQE completes when
    /// its frames leave, a PSN gap is discarded silently). With settings, the send queues hold
    /// a requester and the receive contexts a responder per RC QP, ACK and NAK frames flow,
    /// and lost packets are sent again. Set it before traffic.
    pub fn set_reliable(&mut self, reliable: Option<Reliable>) {
        self.queues.set_reliable(reliable);
        self.rx.set_reliable(reliable);
        self.acks = [None; ACK_QUEUE];
    }

    /// The receive side's RC responder alone (docs/rc-responder.md, "ACK frames"), as the RTL core runs
    /// it behind `CONTROL.RESPONDER`: RC requests are classified and answered with ACK and NAK
    /// frames, while the send side stays as it is (its RC requests complete when their frames
    /// leave; an acknowledgement that arrives is an unsupported frame). `None` turns it off.
    /// Changes nothing while the whole transport is on ([`Self::set_reliable`]).
    pub fn set_responder(&mut self, responder: Option<Reliable>) {
        if self.reliable().is_none() && self.rx.reliable() != responder {
            self.rx.set_reliable(responder);
            self.acks = [None; ACK_QUEUE];
        }
    }

    /// The reliable transport's settings, `None` when off.
    pub const fn reliable(&self) -> Option<Reliable> {
        self.queues.reliable()
    }

    /// What the reliable transport did at this NIC.
    pub const fn rc_counts(&self) -> RcCounts {
        self.rc
    }

    /// Sends the queued acknowledgements and READ responses to `wire`, in the order the
    /// responder produced them, and returns how many frames left. [`Self::send_step`] sends
    /// them first; a caller may send them apart from the send queues' turns, as the RTL core
    /// does (ENABLE and CQ_FAULT stop its send queues, not its acknowledgements).
    pub fn send_replies(&mut self, mem: &impl Memory, wire: &mut impl FnMut(&[u8])) -> usize {
        let mut n = 0;
        self.send_acks(mem, &mut |f: &[u8]| {
            n += 1;
            wire(f)
        });
        n
    }

    fn send_acks(&mut self, mem: &impl Memory, wire: &mut impl FnMut(&[u8])) {
        for i in 0..ACK_QUEUE {
            let Some(r) = self.acks[i].take() else {
                continue;
            };
            // A QP destroyed or reset since has no route: its acknowledgement is moot.
            let Some((route, dest_qpn)) = self.send.rc_route(r.qpn) else {
                continue;
            };
            if let Some((va, len)) = r.read {
                self.send_read(&route, dest_qpn, &r, va, len, mem, wire);
                continue;
            }
            let ack = Ack {
                dest_qpn,
                psn: r.psn.get(),
                aeth: r.aeth,
            };
            let mut buf = [0u8; ACK_FRAME];
            let n = emit_ack(&route, &ack, &mut buf).expect("an ACK fits its buffer");
            match r.aeth.syndrome {
                Syndrome::Ack { .. } => self.rc.acks_sent += 1,
                Syndrome::Nak(NakCode::PsnSequence) => self.rc.seq_naks_sent += 1,
                Syndrome::RnrNak { .. } => self.rc.rnr_naks_sent += 1,
                Syndrome::Nak(_) => self.rc.fatal_naks_sent += 1,
            }
            wire(&buf[..n]);
        }
    }

    /// The READ responses of `r`: `len` bytes read at `va` now, cut by the QP's path MTU, one
    /// PSN each from `r.psn`, the AETH on the first and last. A fault reading memory stops them
    /// (the requester asks again when its timeout fires).
    #[allow(clippy::too_many_arguments)]
    fn send_read(
        &mut self,
        route: &crate::wqe::frame::Route,
        dest_qpn: u32,
        r: &RcReply,
        va: u64,
        len: u32,
        mem: &impl Memory,
        wire: &mut impl FnMut(&[u8]),
    ) {
        let Some(qp) = self.send.qps.get(r.qpn) else {
            return;
        };
        let mtu = qp.config().mtu.bytes();
        let count = crate::wqe::packets::read_psns(len, qp.config().mtu);
        let mut data = [0u8; 4096];
        let mut buf = [0u8; crate::wqe::frame::MAX_FRAME];
        for i in 0..count {
            let off = u64::from(i) * u64::from(mtu);
            let n = (u64::from(len) - off.min(u64::from(len))).min(u64::from(mtu)) as usize;
            let data = &mut data[..n];
            if n > 0 && mem.read(va.wrapping_add(off), data).is_err() {
                self.rc.read_faults += 1;
                return;
            }
            let opcode = response_opcode(i, count);
            let resp = ReadResponse {
                dest_qpn,
                psn: r.psn.add(i),
                opcode,
                aeth: crate::wire::ib::opcode::has_aeth(opcode).then_some(r.aeth),
                payload: data,
            };
            let n = emit_read_response(route, &resp, &mut buf).expect("a response fits MAX_FRAME");
            self.rc.read_responses_sent += 1;
            wire(&buf[..n]);
        }
    }

    /// One turn of the send side: one WQE, its frames to `wire`.
    pub fn send_step(
        &mut self,
        mem: &mut impl Memory,
        wire: &mut impl FnMut(&[u8]),
    ) -> Result<Step, QueueError> {
        self.send_acks(mem, wire);
        self.queues.step(&mut self.send, mem, wire)
    }

    /// One frame from the wire: the RSS verdict, then the receive side.
    /// With the reliable transport on, an ACK frame (opcode `0x11`, good ICRC) goes to the
    /// requester of the QP it names instead (taken: no work queue, no completion), and an
    /// answer the responder owes is queued for the next send turn.
    pub fn receive(&mut self, mem: &mut impl Memory, frame: &[u8]) -> Result<Accepted, Discard> {
        if self.reliable().is_some() {
            if let Ok(ack) = parse_ack(frame) {
                let psn = Psn::from_bits_truncate(ack.psn);
                let out = self
                    .queues
                    .acknowledge(&mut self.send.qps, ack.dest_qpn, psn, ack.aeth);
                if out.is_none() {
                    return Err(Discard::NoQp);
                }
                self.rc.acks_received += 1;
                return Ok(Accepted {
                    wq: None,
                    completion: None,
                });
            }
            if let Ok(r) = parse_read_response(frame) {
                if self.queues.read_response(&mut self.send, mem, &r).is_none() {
                    return Err(Discard::NoQp);
                }
                self.rc.read_responses_received += 1;
                return Ok(Accepted {
                    wq: None,
                    completion: None,
                });
            }
        }
        let meta = self.steering.verdict(frame);
        let r = self
            .rx
            .receive(&mut self.send.qps, &self.send.mrs, mem, frame, &meta);
        if let Some(reply) = self.rx.take_reply() {
            match self.acks.iter_mut().find(|a| a.is_none()) {
                Some(a) => *a = Some(reply),
                None => self.rc.acks_dropped += 1,
            }
        }
        r
    }

    /// One flush step of the receive side.
    pub fn flush(&mut self, mem: &mut impl Memory) -> Result<Option<(u16, u32, RecvCqe)>, Discard> {
        self.rx.flush(&self.send.qps, mem)
    }
}

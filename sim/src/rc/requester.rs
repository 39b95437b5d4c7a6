//! `rtl/rc/rc_requester.sv` as typed values: a [`model::rc::Op`](rocenic_model::rc::Op) for one
//! of its QPs in, the answer out as the block gives it ([`Output`]), and the answer the model's
//! [`Answer`] stands for in the same form ([`expected`]), so a bench compares the two.

use crate::duts::RcRequesterPorts;
use rocenic_model::qp::Status;
use rocenic_model::rc::{AckOutcome, Answer, AnswerCode, Op, OpCode, ReadMatch, TickOutcome};
use rocenic_model::rc::{RequesterConfig, Scale};

/// The block's clock width (its `TIME_W` default): times are compared modulo 2^48.
pub const TIME_MASK: u64 = (1 << 48) - 1;

/// The settings of the QP an operation names, from its model's configuration (the block takes
/// them with each operation; they must be the QP's own from its INIT on).
pub fn configure<D: RcRequesterPorts>(dut: &mut D, cfg: &RequesterConfig) {
    dut.set_cfg_retry_cnt(cfg.retry_cnt.min(7));
    dut.set_cfg_rnr_retry(cfg.rnr_retry.min(7));
    dut.set_cfg_max_inflight(cfg.max_inflight.min(0xFF_FFFF));
    dut.set_cfg_timeout_ticks(cfg.scale.ack_timeout(cfg.timeout).unwrap_or(0) & TIME_MASK);
}

/// An operation for the block: the model's [`Op`], or INIT at a first PSN.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    /// Start again at this first PSN.
    Init(u32),
    /// A call of the model's API.
    Op(Op),
}

/// The fields of one operation as the block's inputs take them.
#[derive(Clone, Copy, Debug, Default)]
struct Fields {
    psn: u32,
    wr: u64,
    packets: u32,
    read: bool,
    syndrome: u8,
    rnr: u64,
    status: u8,
    now: u64,
}

/// Offers `input` (or nothing) for QP `qp` and sets the answer's ready; the caller steps the
/// clock. A RECEIVE carries the RNR delay of its syndrome's timer code at `scale`.
pub fn drive<D: RcRequesterPorts>(
    dut: &mut D,
    qp: u8,
    input: Option<&Input>,
    scale: Scale,
    ready: bool,
) {
    dut.set_s_valid(input.is_some());
    dut.set_m_ready(ready);
    let Some(input) = input else { return };
    dut.set_s_qp(qp);
    let mut f = Fields::default();
    let code = match *input {
        Input::Init(psn) => {
            f.psn = psn;
            OpCode::Init
        }
        Input::Op(op) => {
            match op {
                Op::Post {
                    wr_id,
                    packets,
                    read,
                } => (f.wr, f.packets, f.read) = (wr_id, packets, read),
                Op::Send { now } | Op::Tick { now } => f.now = now,
                Op::Receive { psn, syndrome, now } => {
                    (f.psn, f.syndrome, f.now) = (psn.get(), syndrome, now);
                    f.rnr = scale.rnr_delay(syndrome & 0x1F);
                }
                Op::ReadMatch { psn } => f.psn = psn.get(),
                Op::ReadAccept { psn, now } | Op::ReadGap { psn, now } => {
                    (f.psn, f.now) = (psn.get(), now)
                }
                Op::Poll => {}
                Op::Abort { psn, status } => (f.psn, f.status) = (psn.get(), status as u8),
            }
            op.code()
        }
    };
    dut.set_s_op(code as u8);
    dut.set_s_psn(f.psn);
    dut.set_s_wr(f.wr as u16);
    dut.set_s_packets(f.packets & 0xFF_FFFF);
    dut.set_s_read(f.read);
    dut.set_s_syndrome(f.syndrome);
    dut.set_s_rnr_ticks(f.rnr & TIME_MASK);
    dut.set_s_status(f.status);
    dut.set_s_now(f.now & TIME_MASK);
}

/// The block's answer: its QP, its code and every field (0 where the code gives none).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Output {
    pub qp: u8,
    pub ans: u8,
    pub psn: u32,
    pub wr: u16,
    pub index: u32,
    pub packets: u32,
    pub ack_req: bool,
    pub resend: bool,
    pub status: u8,
    pub until: u64,
}

/// The answer on the output port (meaningful while `m_valid`).
pub fn sample<D: RcRequesterPorts>(dut: &D) -> Output {
    Output {
        qp: dut.m_qp(),
        ans: dut.m_ans(),
        psn: dut.m_psn(),
        wr: dut.m_wr(),
        index: dut.m_index(),
        packets: dut.m_packets(),
        ack_req: dut.m_ack_req(),
        resend: dut.m_resend(),
        status: dut.m_status(),
        until: dut.m_until(),
    }
}

/// The block's answer for QP `qp`'s model's `answer` (ids cut to the block's 16 bits).
pub fn expected(qp: u8, answer: &Answer) -> Output {
    let mut o = Output {
        qp,
        ans: answer.code() as u8,
        ..Output::default()
    };
    let status = |s: Status| s as u8;
    match *answer {
        Answer::Posted(p) => o.psn = p.get(),
        Answer::Packet(p) => {
            o.psn = p.psn.get();
            o.wr = p.wr_id as u16;
            o.index = p.index;
            o.packets = p.packets;
            o.ack_req = p.ack_req;
            o.resend = p.resend;
        }
        Answer::Ack(AckOutcome::GoBack(p)) | Answer::Tick(TickOutcome::Timeout(p)) => {
            o.psn = p.get()
        }
        Answer::Ack(AckOutcome::RnrWait(t)) => o.until = t & TIME_MASK,
        Answer::Ack(AckOutcome::Error(s)) | Answer::Tick(TickOutcome::Error(s)) => {
            o.status = status(s)
        }
        Answer::Completion(c) => {
            o.wr = c.wr_id as u16;
            o.status = status(c.status);
        }
        Answer::Read(ReadMatch::Expected {
            wr_id,
            index,
            packets,
        }) => {
            o.wr = wr_id as u16;
            o.index = index;
            o.packets = packets;
        }
        _ => {}
    }
    o
}

/// The name of an answer code (for a bench's tallies).
pub fn answer_name(code: u8) -> &'static str {
    AnswerCode::ALL
        .get(usize::from(code))
        .map_or("unknown", |c| c.name())
}

//! The reliable connection transport's rules (docs/rc.md; facts in docs/reference.md §7): the
//! Acknowledge frame, the responder's per-QP state and the requester's per-QP state. Each is a
//! pure state machine over fixed tables: packets and clock readings in, what to send and what
//! completes out. The send and receive engines hold one per RC QP when [`Reliable`] is on.

pub mod ack;
pub mod config;
pub mod read;
pub mod requester;
pub mod responder;
pub mod timer;

pub use ack::{emit_ack, parse_ack, Ack};
pub use config::{QpTransport, Reliable};
pub use read::{emit_read_response, parse_read_response, response_opcode, ReadResponse};
pub use requester::{
    AckOutcome, Answer, AnswerCode, Completion, Counters, Op, OpCode, Packet, PostError, ReadMatch,
    Requester, RequesterConfig, TickOutcome, DEFAULT_WRS, MAX_RD_ATOMIC, RNR_RETRY_FOREVER,
};
pub use responder::{
    Executed, PsnClass, ReadRequest, Reply, Request, Responder, ResponderConfig, Verdict,
};
pub use timer::{Scale, RNR_DELAY_US};

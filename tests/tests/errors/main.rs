//! Every verbs error path across two NICs, on both sides: the sender's engine refusing a
//! request (`send`), the receiver failing a receive or dropping a frame (`recv`), and what the
//! driver refuses on the receive side before the device (`refusals`). The flushes that follow
//! an error are checked here; a QP moved to ERR by software, in tests/tests/flush.rs.

mod recv;
mod refusals;
mod send;

use recv::{
    recv_dropped_frames_change_nothing, recv_rss_queue_fails_alone, recv_short_buffer_and_bad_lkey,
};
use refusals::recv_refusals;
use rocenic_tests::on_every_backend;
use send::{send_error_on_rc_reaches_no_peer, send_errors_reach_no_peer};

on_every_backend!(
    send_errors_reach_no_peer,
    send_error_on_rc_reaches_no_peer,
    recv_short_buffer_and_bad_lkey,
    recv_rss_queue_fails_alone,
    recv_dropped_frames_change_nothing,
    recv_refusals,
);

//! The driver's receive side end to end on two NICs: UD and RC messages across, RSS spread
//! and flows, every receive error and flush, rings wrapping, refusals with their errnos.
//! Each test is generic over the backend (`common::Backend`); these run it on the model.

mod common;
mod errors;
mod rc;
mod rings;
mod rss;
mod rtr;
mod srq;
mod ud;

use common::Model;

#[test]
fn ud_send_arrives_with_grh_and_source() {
    ud::send_across(&mut Model::default());
}

#[test]
fn rc_send_and_write_with_immediate() {
    rc::send_and_write(&mut Model::default());
}

#[test]
fn rss_spreads_flows_and_a_flow_steers() {
    rss::spread_and_flow(&mut Model::default());
}

#[test]
fn short_buffer_and_bad_lkey_move_the_qp_to_err_and_flush() {
    errors::short_buffer_and_bad_lkey(&mut Model::default());
}

#[test]
fn err_flushes_every_receive_once() {
    errors::flush_on_err(&mut Model::default());
}

#[test]
fn an_rss_queue_fails_alone() {
    errors::rss_queue_fails_alone(&mut Model::default());
}

#[test]
fn refusals_with_their_errnos() {
    errors::refusals(&mut Model::default());
}

#[test]
fn receive_rings_and_completion_rings_wrap() {
    rings::receive_rings_wrap(&mut Model::default());
}

#[test]
fn rc_receives_in_rtr_and_sends_from_rts() {
    rtr::receives_in_rtr(&mut Model::default());
}

#[test]
fn rc_failing_in_rtr_goes_to_err() {
    rtr::fails_in_rtr(&mut Model::default());
}

#[test]
fn srq_interleaved_messages_complete_once_each() {
    srq::interleaved(&mut Model::default());
}

#[test]
fn srq_slot_of_a_message_in_progress_is_not_reused() {
    srq::slot_held(&mut Model::default());
}

#[test]
fn srq_qp_error_leaves_the_srq_serving_and_limits() {
    srq::errors_and_limits(&mut Model::default());
}

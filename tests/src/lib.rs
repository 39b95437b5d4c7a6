//! What rocenic's end-to-end tests share: a backend (two NICs on a wire, and the wire to look
//! at), contexts over them, waiting for completions while both NICs run, QP set-ups, seeds.
//!
//! Every test in `tests/tests/` is a function generic over [`Backend`]; [`on_every_backend!`]
//! instantiates it once per backend. Today that is [`Model`], the reference model's NIC behind
//! its registers (`rocenic_host_driver::model_device`); the full core's co-simulation joins it
//! in that macro once it has a receive path, and every test then runs on both unchanged.

mod backend;
mod pair;
mod qps;

pub use backend::{Backend, Model};
pub use pair::{ah_to, flushed, nic, open, open_with, quiet, seeded, wait, LIMIT};
pub use qps::{connect, rc_qp, rc_qp_with, ud_qp, ud_qp_with, PSN};

/// One `#[test]` per backend for each generic test function named: `model::NAME` runs
/// `NAME(&mut Model::default())`. A backend added here runs every end-to-end test.
#[macro_export]
macro_rules! on_every_backend {
    ($($test:ident),* $(,)?) => {
        mod model {
            $(
                #[test]
                fn $test() {
                    super::$test(&mut $crate::Model::default());
                }
            )*
        }
    };
}

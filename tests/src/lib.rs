//! What rocenic's end-to-end tests share: a backend (two NICs on a wire, and the wire to look
//! at), contexts over them, waiting for completions while both NICs run, QP set-ups, seeds.
//!
//! Every test in `tests/tests/` is a function generic over [`Backend`]; [`on_every_backend!`]
//! instantiates it once per backend: [`Model`], the reference model's NIC behind its registers
//! (`rocenic_host_driver::model_device`), and [`Core`], the co-simulated full core
//! (`rocenic_sim::top`), on which every test runs unchanged.

mod backend;
mod pair;
mod qps;
mod tcp;

pub use backend::{Backend, Core, CoreRc, Model, ModelRc, TRANSPORT};
pub use pair::{ah_to, flushed, nic, open, open_with, quiet, seeded, wait, LIMIT};
pub use qps::{connect, post_slots, raw_qp, rc_qp, rc_qp_with, ud_qp, ud_qp_with, PSN};
pub use tcp::{padded, template_flags, TcpFlow};

/// One `#[test]` per backend for each generic test function named: `model::NAME` runs
/// `NAME(&mut Model::default())`, `rtl::NAME` runs it on the co-simulated full core
/// (`Core`). A backend added here runs every end-to-end test.
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
        mod rtl {
            $(
                #[test]
                fn $test() {
                    super::$test(&mut $crate::Core::default());
                }
            )*
        }
    };
}

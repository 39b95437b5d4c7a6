//! The WQE engine's parts (`rtl/wqe/`), one driver per part, named as in `rtl/`.

pub mod icrc;

//! The receive path (`rtl/rx/`): one driver per part, named as in `rtl/`.

pub mod ctrl;

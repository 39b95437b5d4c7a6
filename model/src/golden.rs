//! Golden checks (docs/reference.md §8): what a device's results are compared with, defined once
//! for the CLI's `rocenic golden` commands and for anyone holding a device against the model.
//!
//! - [`sets`]: the vector sets: their names, their columns (inputs and expected results), and
//!   the edge cases every export starts with.
//! - [`flow`]: which entropy profiles explain a flow seen on the wire.

pub mod flow;
pub mod sets;

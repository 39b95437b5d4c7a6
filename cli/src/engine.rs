//! `--engine`: where a command's results are computed, one choice for every command.
//!
//! A command states what it computes as a unit trait of its own (`entropy::Unit`, `rss::Unit`,
//! `tso::Unit`, `toeplitz::Unit`, `send::Unit`, `sim::Unit`); the back-ends implement the units they have
//! hardware for, in `engine/model.rs`, `engine/rtl.rs` and `engine/serial.rs`; and the matches below are the one
//! place that says which engine runs which command. A command opens its unit where it used to
//! open its engine, so an engine that does not run it is refused before any result is written.

mod model;
#[cfg(feature = "rtl")]
mod rtl;
mod serial;

use crate::{entropy, rss, send, sim, toeplitz, tso, Failure};
use clap::ValueEnum;
use std::fmt;

/// Which implementation computes the results.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Engine {
    /// The reference model.
    Model,
    /// The command's RTL, co-simulated cycle by cycle (needs the `rtl` feature).
    Rtl,
    /// A board's pipeline behind its UART bridge, e.g. `serial:/dev/ttyUSB1`.
    Serial(String),
}

/// `model`, `rtl` or `serial:PORT`.
pub fn parse_engine(s: &str) -> Result<Engine, String> {
    match s {
        "model" => Ok(Engine::Model),
        "rtl" => Ok(Engine::Rtl),
        _ => match s.strip_prefix("serial:") {
            Some(path) if !path.is_empty() => Ok(Engine::Serial(path.to_string())),
            _ => Err(format!(
                "unknown engine `{s}` (model, rtl, serial:PORT such as serial:/dev/ttyUSB1)"
            )),
        },
    }
}

impl fmt::Display for Engine {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Engine::Model => f.write_str("model"),
            Engine::Rtl => f.write_str("rtl"),
            Engine::Serial(port) => write!(f, "serial:{port}"),
        }
    }
}

/// The RTL's data path width in bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Width {
    /// 8 bytes per beat.
    #[value(name = "64")]
    W64,
    /// 64 bytes per beat.
    #[value(name = "512")]
    W512,
}

/// Why `--engine rtl` cannot run in a build without the co-simulation.
#[cfg(not(feature = "rtl"))]
fn no_rtl() -> Failure {
    Failure(
        "this rocenic was built without the `rtl` feature (Verilator co-simulation); rebuild with default features"
            .into(),
    )
}

/// The unit of a command that every engine runs: each back-end implements the command's
/// trait, and the box takes the trait object type the caller returns.
macro_rules! every_engine {
    ($engine:expr) => {
        Ok(match $engine {
            Engine::Model => Box::new(model::Model::default()),
            #[cfg(feature = "rtl")]
            Engine::Rtl => Box::new(rtl::Rtl::default()),
            #[cfg(not(feature = "rtl"))]
            Engine::Rtl => return Err(no_rtl()),
            Engine::Serial(port) => Box::new(serial::open(port)?),
        })
    };
}

impl Engine {
    /// `command` does not run on this engine; `engines` are the ones it runs on.
    fn refuse(&self, command: &str, engines: &str) -> Failure {
        Failure(format!(
            "`rocenic {command}` runs on --engine {engines}, not on {self}"
        ))
    }

    /// The unit behind `rocenic entropy` (a board is opened here).
    pub fn entropy(&self) -> Result<Box<dyn entropy::Unit>, Failure> {
        every_engine!(self)
    }

    /// The unit behind `rocenic rss` (a board is opened here).
    pub fn rss(&self) -> Result<Box<dyn rss::Unit>, Failure> {
        every_engine!(self)
    }

    /// The unit behind `rocenic tso`; the boards have no segmenter.
    pub fn tso(&self) -> Result<Box<dyn tso::Unit>, Failure> {
        Ok(match self {
            Engine::Model => Box::new(model::Model::default()),
            #[cfg(feature = "rtl")]
            Engine::Rtl => Box::new(rtl::Rtl::default()),
            #[cfg(not(feature = "rtl"))]
            Engine::Rtl => return Err(no_rtl()),
            Engine::Serial(_) => return Err(self.refuse("tso", "model or rtl")),
        })
    }

    /// The unit behind `rocenic send`: the model or the co-simulated WQE engine; the boards
    /// have none.
    pub fn send(&self) -> Result<Box<dyn send::Unit>, Failure> {
        match self {
            Engine::Model => Ok(Box::new(model::Model::default())),
            #[cfg(feature = "rtl")]
            Engine::Rtl => Ok(Box::new(rtl::Rtl::default())),
            #[cfg(not(feature = "rtl"))]
            Engine::Rtl => Err(no_rtl()),
            Engine::Serial(_) => Err(self.refuse("send", "model or rtl")),
        }
    }

    /// The unit behind `rocenic sim`: the model's two NICs, or two co-simulated full cores;
    /// a board is one NIC.
    pub fn sim(&self) -> Result<Box<dyn sim::Unit>, Failure> {
        match self {
            Engine::Model => Ok(Box::new(model::Model::default())),
            #[cfg(feature = "rtl")]
            Engine::Rtl => Ok(Box::new(rtl::Rtl::default())),
            #[cfg(not(feature = "rtl"))]
            Engine::Rtl => Err(no_rtl()),
            Engine::Serial(_) => Err(self.refuse("sim", "model or rtl")),
        }
    }

    /// The unit behind `rocenic toeplitz`: the model only (the hardware's hash runs behind
    /// `rocenic rss`).
    pub fn toeplitz(&self) -> Result<Box<dyn toeplitz::Unit>, Failure> {
        match self {
            Engine::Model => Ok(Box::new(model::Model::default())),
            Engine::Rtl | Engine::Serial(_) => Err(self.refuse("toeplitz", "model")),
        }
    }
}

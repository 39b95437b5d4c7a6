//! The `[link]` table: a wire that loses, duplicates and corrupts frames with seeded
//! probabilities, and the reliable transport that recovers from it (docs/scenario.md, "A lossy
//! link"). Without the table the wire is perfect and the NICs run as the RTL does (an RC request
//! completes when its frames leave); with it the model's NICs run the RC transport of
//! `model::rc` (ACKs, NAKs, go-back-N, the local ACK timeout), which the co-simulated cores do
//! not have yet, so `--engine rtl` refuses such a scenario.

use super::scenario::Scenario;
use crate::send::scenario::ScenarioError;
use rocenic_model::link::{Fate, Faults as Draws};
use rocenic_model::nic::RcCounts;
use rocenic_model::rc::{Counters, Reliable};
use serde::Deserialize;

/// `[link]` as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkTable {
    /// Probability that a frame is lost (each way, each frame).
    pub loss: Option<f64>,
    /// Probability that a frame is delivered twice.
    pub duplicate: Option<f64>,
    /// Probability that one bit of a frame is flipped (its ICRC then refuses it).
    pub corrupt: Option<f64>,
    /// Verbs `timeout`: the local ACK timeout is 2^timeout turns (a turn stands for 4.096 µs).
    pub timeout: Option<u8>,
    /// Verbs `retry_cnt`: resends after a timeout or a sequence NAK before `retry_exc_err`.
    pub retry_cnt: Option<u8>,
}

/// A checked `[link]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Link {
    pub loss: f64,
    pub duplicate: f64,
    pub corrupt: f64,
    /// The NICs' reliable transport.
    pub reliable: Reliable,
}

/// The largest probability a `[link]` takes: a link that loses more than half its frames is
/// not a link.
const MOST: f64 = 0.5;

/// Checks the scenario's `[link]`, if it has one.
pub fn check(scenario: &Scenario) -> Result<Option<Link>, ScenarioError> {
    let Some(at) = &scenario.link else {
        return Ok(None);
    };
    let fail = |message: String| ScenarioError {
        line: at.line,
        place: Some(at.place),
        message,
    };
    let t = &at.item;
    let mut p = [0.0; 3];
    for (out, (key, value)) in p.iter_mut().zip([
        ("loss", t.loss),
        ("duplicate", t.duplicate),
        ("corrupt", t.corrupt),
    ]) {
        let v = value.unwrap_or(0.0);
        if !(0.0..=MOST).contains(&v) {
            return Err(fail(format!(
                "key \"{key}\": {v} is not a probability from 0 to {MOST}"
            )));
        }
        *out = v;
    }
    let mut reliable = Reliable::default();
    if let Some(timeout) = t.timeout {
        if !(1..=20).contains(&timeout) {
            return Err(fail(format!(
                "key \"timeout\": {timeout} is not 1..=20 (2^timeout turns; verbs' 0, no \
                 timeout, would let a lost last packet hang the run)"
            )));
        }
        reliable.timeout = timeout;
    }
    if let Some(retry_cnt) = t.retry_cnt {
        if retry_cnt > 7 {
            return Err(fail(format!("key \"retry_cnt\": {retry_cnt} is not 0..=7")));
        }
        reliable.retry_cnt = retry_cnt;
    }
    Ok(Some(Link {
        loss: p[0],
        duplicate: p[1],
        corrupt: p[2],
        reliable,
    }))
}

/// What one NIC's reliable transport did: its responders' answers and its requesters' resends.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Transport {
    pub nic: RcCounts,
    pub requesters: Counters,
}

/// What the link did to one direction's frames.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Faults {
    pub lost: u64,
    pub duplicated: u64,
    pub corrupted: u64,
}

/// The link: each frame's fate is `model::link::Faults::fate` of the run's seed, its
/// direction and its place in that direction, as the co-simulated cores' wire and the driver's
/// model wire draw it.
pub struct Wire {
    draws: Draws,
    seed: u64,
    /// Frames each way so far.
    sent: [u64; 2],
    /// By direction: 0 is a to b.
    pub faults: [Faults; 2],
}

impl Wire {
    pub fn new(link: Link, seed: u64) -> Wire {
        Wire {
            draws: Draws {
                loss: link.loss,
                corrupt: link.corrupt,
                duplicate: link.duplicate,
            },
            // Apart from the host's pace, which draws from the seed as it is.
            seed: seed ^ 0x11_4e_6b,
            sent: [0; 2],
            faults: [Faults::default(); 2],
        }
    }

    /// What arrives of `frame`, sent by NIC `side`: nothing, the frame (one bit flipped, if
    /// corrupted), or the frame twice.
    pub fn carry(&mut self, side: usize, mut frame: Vec<u8>) -> Vec<Vec<u8>> {
        let fate = self
            .draws
            .fate(self.seed, side as u8, self.sent[side], frame.len());
        self.sent[side] += 1;
        fate.apply(&mut frame);
        match fate {
            Fate::Lost => {
                self.faults[side].lost += 1;
                Vec::new()
            }
            Fate::Corrupt { .. } => {
                self.faults[side].corrupted += 1;
                vec![frame]
            }
            Fate::Duplicate => {
                self.faults[side].duplicated += 1;
                vec![frame.clone(), frame]
            }
            Fate::Pass => vec![frame],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(loss: f64, duplicate: f64, corrupt: f64) -> Link {
        Link {
            loss,
            duplicate,
            corrupt,
            reliable: Reliable::default(),
        }
    }

    /// The draws follow their probabilities, each way, and replay from the seed.
    #[test]
    fn faults_at_their_rates() {
        let run = |seed| {
            let mut w = Wire::new(link(0.1, 0.05, 0.02), seed);
            let mut arrived = 0usize;
            for i in 0..20_000u32 {
                arrived += w.carry((i % 2) as usize, vec![0u8; 64]).len();
            }
            (w.faults, arrived)
        };
        let (f, arrived) = run(7);
        assert_eq!(run(7), (f, arrived), "the same seed, the same faults");
        assert_ne!(run(8).0, f, "another seed, other faults");
        for d in f {
            assert!((900..1100).contains(&d.lost), "{d:?}");
            assert!((380..520).contains(&d.duplicated), "{d:?}");
            assert!((140..230).contains(&d.corrupted), "{d:?}");
        }
        let lost: u64 = f.iter().map(|d| d.lost).sum();
        let dup: u64 = f.iter().map(|d| d.duplicated).sum();
        assert_eq!(arrived as u64, 20_000 - lost + dup);
    }

    /// A corrupted frame differs from the original in exactly one bit.
    #[test]
    fn corruption_flips_one_bit() {
        let mut w = Wire::new(link(0.0, 0.0, 0.5), 3);
        let frame: Vec<u8> = (0..100).collect();
        let mut seen = 0;
        for _ in 0..200 {
            let got = w.carry(0, frame.clone());
            assert_eq!(got.len(), 1);
            let bits: u32 = got[0]
                .iter()
                .zip(&frame)
                .map(|(a, b)| (a ^ b).count_ones())
                .sum();
            assert!(bits <= 1);
            seen += bits;
        }
        assert_eq!(u64::from(seen), w.faults[0].corrupted);
        assert!(seen > 50);
    }

    /// A perfect link passes every frame as it is.
    #[test]
    fn a_perfect_link_passes_everything() {
        let mut w = Wire::new(link(0.0, 0.0, 0.0), 1);
        for i in 0..100u8 {
            assert_eq!(w.carry(1, vec![i; 10]), vec![vec![i; 10]]);
        }
        assert_eq!(w.faults, [Faults::default(); 2]);
    }
}

//! `--engine serial:PORT`: a board's units behind its UART bridge, over any link to the board (a
//! tty, or the co-simulated core in the tests).

use crate::{entropy, rss, Failure};
use rocenic_host_driver::serial::{SerialLink, DEFAULT_BAUD};
use rocenic_host_driver::{Board, Error as BoardError, Link as ByteLink};
use rocenic_model::entropy::{Entropy, Profile, Request};
use rocenic_model::rss::{classify, distribute_with, Function, HashInput, Meta};

#[cfg(all(test, feature = "rtl"))]
mod tests;

/// The board behind the tty at `port`, at the bridge's baud rate.
pub fn open(port: &str) -> Result<Board<SerialLink>, Failure> {
    SerialLink::open(port, DEFAULT_BAUD)
        .map_err(BoardError::Io)
        .and_then(Board::open)
        .map_err(|e| Failure(format!("serial engine: {e}")))
}

impl<L: ByteLink> entropy::Unit for Board<L> {
    fn compute(
        &mut self,
        profile: Profile,
        batch: &[Request],
        lines: &[u64],
    ) -> Result<Vec<Entropy>, Failure> {
        batch
            .iter()
            .zip(lines)
            .map(|(r, line)| {
                self.entropy(profile, r).map_err(|e| match e {
                    BoardError::QpnTooWide(qpn) => Failure(format!(
                        "line {line}: QPN {qpn:#x} is wider than the 24 bits of the wire (the hardware takes 24-bit QPNs)"
                    )),
                    other => Failure(format!("line {line}: serial engine: {other}")),
                })
            })
            .collect()
    }
}

impl<L: ByteLink> rss::Unit for Board<L> {
    /// The model parses, steers and looks the queue up in the table, as `--engine model` does,
    /// but every hash is computed by the board's RSS hash unit from the model's hash input.
    ///
    /// The board holds a key of exactly `rss_max_input + 4` bytes. An input of n bytes reaches
    /// only the key's first n + 4 bytes, so for every input the board takes, the first
    /// `rss_max_input + 4` bytes of a longer key, or a shorter key with a zero tail, give the
    /// model's hash (a shorter key covers every input of the selected fields, which `rss::run`
    /// checks first). A packet whose input is longer than the board takes stops the run with its
    /// index: its hash is never taken from the model instead.
    fn start(&mut self, job: &rss::Job) -> Result<(), Failure> {
        let max = self.caps().rss_max_input;
        if max == 0 {
            return Err(Failure(
                "serial engine: the board has no RSS hash unit".into(),
            ));
        }
        let context = match job.contexts {
            [] => return Ok(()),
            [one] => one,
            more => {
                return Err(Failure(format!(
                    "serial engine: the board's RSS hash unit holds one key, and the job has {} \
                     contexts (run it on the model or the RTL)",
                    more.len()
                )))
            }
        };
        if context.context.function != Function::Xor {
            let mut board_key = vec![0u8; max + 4];
            let n = context.key.len().min(max + 4);
            board_key[..n].copy_from_slice(&context.key[..n]);
            self.rss_key(&board_key)
                .map_err(|e| Failure(format!("serial engine: loading the key: {e}")))?;
        }
        Ok(())
    }

    fn metas(
        &mut self,
        job: &rss::Job,
        first: u64,
        frames: &[&[u8]],
    ) -> Result<Vec<Meta>, Failure> {
        let max = self.caps().rss_max_input;
        // `start` refused more than one context.
        let views = job.views();
        let xor = views
            .first()
            .is_some_and(|v| v.context.function == Function::Xor);
        (first..)
            .zip(frames)
            .map(|(index, frame)| {
                distribute_with(&classify(job.link, frame), job.rules, &views, |view, tuple| {
                    let input = HashInput::new(tuple, view.context.fields);
                    let bytes = input.as_bytes();
                    if bytes.len() > max {
                        return Err(Failure(format!(
                            "packet {index}: its hash input is {} bytes, but the board's RSS hash takes at most {max} (hash fewer --fields, or use a board with longer inputs)",
                            bytes.len()
                        )));
                    }
                    let hash = self
                        .rss_hash(bytes, xor)
                        .map_err(|e| Failure(format!("packet {index}: serial engine: {e}")))?;
                    Ok((hash, input.hash_type))
                })
            })
            .collect()
    }
}

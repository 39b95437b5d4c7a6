//! What a failed frame comparison leaves behind: the cycle and seed in the message, and the
//! expected and the observed frames as two pcaps beside the traces (`harness::vcd_dir`), so the
//! difference opens in Wireshark and the cycle in a waveform viewer.

use crate::harness::{vcd_dir, TRACE_PERIOD_PS};
use rocenic_model::wire::{LinkType, PcapWriter};
use std::path::{Path, PathBuf};

/// Frames the DUT put out, with the cycle each one's last beat left in when known.
pub struct Observed<'a> {
    pub frames: &'a [Vec<u8>],
    /// One per frame, or empty when the bench does not record them.
    pub cycles: &'a [u64],
}

/// A pcap of `frames`, each stamped with the time of its cycle in the trace (cycle × 8 ns), or
/// 1 µs apart when there are no cycles.
fn write_pcap(path: &Path, frames: &[Vec<u8>], cycles: &[u64]) -> std::io::Result<()> {
    let file = std::io::BufWriter::new(std::fs::File::create(path)?);
    let mut pcap = PcapWriter::new(file, LinkType::Ethernet)?;
    for (i, f) in frames.iter().enumerate() {
        let ps = match cycles.get(i) {
            Some(&c) => c * TRACE_PERIOD_PS,
            None => i as u64 * 1_000_000,
        };
        let us = ps / 1_000_000;
        pcap.write_record(((us / 1_000_000) as u32, (us % 1_000_000) as u32), f)?;
    }
    pcap.finish()?;
    Ok(())
}

/// A file name from a test's description: letters, digits and `-` only.
fn slug(what: &str) -> String {
    let s: String = what
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    s.split('-')
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("-")
}

/// Compares the DUT's frames with the model's. On a difference: writes
/// `<what>-expected.pcap` and `<what>-observed.pcap` into the trace folder and returns a
/// message with the first frame that differs, its cycle, where the bytes part, the test's seed
/// (`None` when `what` names it already) and the files.
pub fn compare_frames(
    what: &str,
    seed: Option<u64>,
    observed: Observed<'_>,
    expected: &[Vec<u8>],
) -> Result<(), String> {
    let got = observed.frames;
    let first = got
        .iter()
        .zip(expected)
        .position(|(g, w)| g != w)
        .or_else(|| (got.len() != expected.len()).then(|| got.len().min(expected.len())));
    let Some(n) = first else { return Ok(()) };
    let mut why = match (got.get(n), expected.get(n)) {
        (Some(g), Some(w)) => {
            let at = g
                .iter()
                .zip(w)
                .position(|(a, b)| a != b)
                .unwrap_or(g.len().min(w.len()));
            format!(
                "frame {n} differs from byte {at} ({} bytes observed, {} expected)",
                g.len(),
                w.len()
            )
        }
        (None, _) => format!("{} frames observed, {} expected", got.len(), expected.len()),
        (Some(_), None) => format!("frame {n} observed, but the model sent {}", expected.len()),
    };
    if let Some(c) = observed.cycles.get(n) {
        why.push_str(&format!(", its last beat at cycle {c}"));
    }
    let dir = vcd_dir();
    let base = slug(what);
    let files: std::io::Result<(PathBuf, PathBuf)> = (|| {
        std::fs::create_dir_all(&dir)?;
        let (e, o) = (
            dir.join(format!("{base}-expected.pcap")),
            dir.join(format!("{base}-observed.pcap")),
        );
        write_pcap(&e, expected, &[])?;
        write_pcap(&o, got, observed.cycles)?;
        Ok((e, o))
    })();
    let files = match files {
        Ok((e, o)) => format!("frames in {} and {}", e.display(), o.display()),
        Err(err) => format!("the pcaps could not be written: {err}"),
    };
    let replay = match seed {
        Some(seed) => format!("seed {seed}: ROCENIC_SEED={seed} replays it; "),
        None => String::new(),
    };
    Err(format!(
        "{what}: {why} ({replay}{files}; ROCENIC_VCD=1 with ROCENIC_TRACE_FROM/TO around the \
         cycle traces it)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_lists_pass_and_a_difference_leaves_two_pcaps() {
        let a = vec![vec![1u8; 60], vec![2u8; 64]];
        let ok = Observed {
            frames: &a,
            cycles: &[10, 20],
        };
        assert_eq!(compare_frames("t", Some(1), ok, &a), Ok(()));

        let dir = std::env::temp_dir().join(format!("rocenic-mismatch-{}", std::process::id()));
        std::env::set_var("ROCENIC_VCD_DIR", &dir);
        let mut b = a.clone();
        b[1][5] = 9;
        let bad = Observed {
            frames: &b,
            cycles: &[10, 20],
        };
        let msg = compare_frames("unit test: run 0", Some(7), bad, &a).unwrap_err();
        assert!(msg.contains("frame 1 differs from byte 5"), "{msg}");
        assert!(
            msg.contains("cycle 20") && msg.contains("ROCENIC_SEED=7"),
            "{msg}"
        );
        let observed = std::fs::read(dir.join("unit-test-run-0-observed.pcap")).unwrap();
        let expected = std::fs::read(dir.join("unit-test-run-0-expected.pcap")).unwrap();
        assert_eq!(observed.len(), expected.len());
        assert_ne!(observed, expected);

        let short = Observed {
            frames: &a[..1],
            cycles: &[],
        };
        let msg = compare_frames("unit test: short", None, short, &a).unwrap_err();
        assert!(msg.contains("1 frames observed, 2 expected"), "{msg}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

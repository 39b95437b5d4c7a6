//! `--qp-map FILE`: who sent to each destination QP, for the RC and UC frames whose headers name
//! only the destination (docs/golden.md).
//!
//! A CSV with a header and the columns `src_qpn,dst_qpn` and, optionally, `fl`: frames whose BTH
//! destination QP is `dst_qpn` were sent by `src_qpn`, with the address vector's flow label `fl`
//! (empty or absent: none). Errors name the file and the line.

use crate::csvio::{self, Row};
use crate::Failure;
use std::collections::HashMap;
use std::path::Path;

/// Largest QPN on the wire (24 bits).
const QPN_MAX: u64 = 0xFF_FFFF;

/// One line of the map.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sender {
    pub src_qpn: u32,
    /// The address vector's flow label, up to 32 bits as the kernel takes it; `None` when the
    /// cell is empty or the column absent.
    pub flow_label: Option<u32>,
}

/// The map, by destination QPN.
#[derive(Default)]
pub struct QpMap {
    /// Each destination's sender and the line that gave it.
    senders: HashMap<u32, (Sender, u64)>,
}

impl QpMap {
    /// Reads the map; a malformed line or a destination listed twice is an error.
    pub fn read(path: &Path) -> Result<QpMap, Failure> {
        let named = |e: Failure| Failure(format!("--qp-map {}: {}", path.display(), e.0));
        let mut input = csvio::open(&Some(path.to_path_buf())).map_err(named)?;
        let columns = input.columns();
        let why = "the QP map needs src_qpn,dst_qpn";
        let src = columns.require("src_qpn", why).map_err(named)?;
        let dst = columns.require("dst_qpn", why).map_err(named)?;
        let fl = columns.find("fl").map_err(named)?;
        let mut senders = HashMap::new();
        let mut record = csv::StringRecord::new();
        while let Some(line) = input.next(&mut record).map_err(named)? {
            let row = Row {
                record: &record,
                line,
            };
            let dst_qpn = row.number(dst, "dst_qpn", QPN_MAX).map_err(named)? as u32;
            let src_qpn = row.number(src, "src_qpn", QPN_MAX).map_err(named)? as u32;
            let flow_label = match fl {
                Some(i) if !row.text(i).is_empty() => {
                    Some(row.number(i, "fl", u64::from(u32::MAX)).map_err(named)? as u32)
                }
                _ => None,
            };
            let sender = Sender {
                src_qpn,
                flow_label,
            };
            if let Some((_, first)) = senders.insert(dst_qpn, (sender, line)) {
                return Err(named(Failure(format!(
                    "line {line}: dst_qpn {dst_qpn:#08x} is listed twice (first on line {first})"
                ))));
            }
        }
        Ok(QpMap { senders })
    }

    /// Who sent to `dst_qpn`, if the map says.
    pub fn sender(&self, dst_qpn: u32) -> Option<Sender> {
        self.senders.get(&dst_qpn).map(|(s, _)| *s)
    }
}

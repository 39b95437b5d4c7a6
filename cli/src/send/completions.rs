//! The completion CSV (`--completions`) and the run's summary line.

use rocenic_model::qp::Status;
use rocenic_model::wqe::{Cqe, Opcode};
use std::io::{self, Write};

/// The CSV's header.
pub const HEADER: &str = "wr_id,qpn,status,opcode,byte_len";

/// One row per completion, in the order given (the completion ring's): `wr_id` decimal, `qpn`
/// 0x-hex, the status and opcode names (`unknown` for a WQE whose opcode byte was none),
/// `byte_len` decimal.
pub fn write(out: &mut impl Write, cqes: &[Cqe]) -> io::Result<()> {
    writeln!(out, "{HEADER}")?;
    for c in cqes {
        writeln!(
            out,
            "{},{:#x},{},{},{}",
            c.wr_id,
            c.qpn,
            c.status.name(),
            c.opcode.map_or("unknown", Opcode::name),
            c.byte_len
        )?;
    }
    Ok(())
}

/// `12 frame(s), 14880 bytes, 9 completion(s): 6 success, 1 loc_prot_err, 2 wr_flush_err`.
pub fn summary(frames: u64, bytes: u64, cqes: &[Cqe]) -> String {
    let by_status: Vec<String> = Status::ALL
        .iter()
        .filter_map(|&s| {
            let n = cqes.iter().filter(|c| c.status == s).count();
            (n > 0).then(|| format!("{n} {}", s.name()))
        })
        .collect();
    let mut line = format!(
        "{frames} frame(s), {bytes} bytes, {} completion(s)",
        cqes.len()
    );
    if !by_status.is_empty() {
        line.push_str(": ");
        line.push_str(&by_status.join(", "));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cqe(wr_id: u64, status: Status, opcode: Option<Opcode>, byte_len: u32) -> Cqe {
        Cqe {
            wr_id,
            qpn: 0x11,
            byte_len,
            wqe_index: 0,
            opcode,
            status,
            phase: true,
        }
    }

    #[test]
    fn rows_and_summary() {
        let cqes = [
            cqe(7, Status::Success, Some(Opcode::SendImm), 3000),
            cqe(u64::MAX, Status::WrFlushErr, None, 0),
        ];
        let mut out = Vec::new();
        write(&mut out, &cqes).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "wr_id,qpn,status,opcode,byte_len\n7,0x11,success,send_imm,3000\n\
             18446744073709551615,0x11,wr_flush_err,unknown,0\n"
        );
        assert_eq!(
            summary(3, 3100, &cqes),
            "3 frame(s), 3100 bytes, 2 completion(s): 1 success, 1 wr_flush_err"
        );
        assert_eq!(summary(0, 0, &[]), "0 frame(s), 0 bytes, 0 completion(s)");
    }
}

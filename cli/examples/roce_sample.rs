//! Writes `DIR/roce.pcap`: RoCEv2 frames for `rocenic icrc` and `make interop`, every one with a
//! correct ICRC except the frames whose index is a multiple of 5, which carry a flipped ICRC bit.
//!
//! RC SEND_ONLY over IPv4 and UD SEND_ONLY (with a DETH) over IPv6, payloads of 0 to 255 bytes,
//! UDP source ports in the RoCEv2 entropy range, made by a fixed generator: the file is the same
//! on every run.
//!
//! Usage: `cargo run -p rocenic --example roce_sample -- DIR [COUNT]`

use rocenic_model::wire::{icrc_fill, LinkType, PcapWriter};

#[path = "common/rng.rs"]
mod rng;

use rng::Rng;

/// An Ethernet RoCEv2 SEND_ONLY frame: RC over IPv4, or UD over IPv6.
fn frame(rng: &mut Rng, ipv6: bool, payload: usize) -> Vec<u8> {
    let mut f = vec![0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2];
    let transport = if ipv6 { 12 + 8 } else { 12 };
    let udp_len = 8 + transport + payload + 4;
    let r = rng.next();
    if ipv6 {
        let fl = (r as u32) & 0xF_FFFF;
        f.extend_from_slice(&[0x86, 0xDD]);
        f.extend_from_slice(&(0x6000_0000 | fl).to_be_bytes());
        f.extend_from_slice(&(udp_len as u16).to_be_bytes());
        f.extend_from_slice(&[17, 64]);
        f.extend_from_slice(&[0xFE, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
        f.extend_from_slice(&[0xFE, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2]);
    } else {
        let total = 20 + udp_len;
        f.extend_from_slice(&[0x08, 0x00, 0x45, 0x00]);
        f.extend_from_slice(&(total as u16).to_be_bytes());
        f.extend_from_slice(&[0, 1, 0x40, 0, 64, 17]);
        f.extend_from_slice(&[0, 0, 10, 0, 0, 1, 10, 0, 0, 2]);
        let sum = rocenic_model::wire::checksum::checksum(&f[14..34]);
        f[24..26].copy_from_slice(&sum.to_be_bytes());
    }
    let sport = 0xC000 | (r >> 32) as u16 & 0x3FFF;
    f.extend_from_slice(&sport.to_be_bytes());
    f.extend_from_slice(&4791u16.to_be_bytes());
    f.extend_from_slice(&(udp_len as u16).to_be_bytes());
    f.extend_from_slice(&[0, 0]);
    let (opcode, dqp) = if ipv6 {
        (0x64, 0x000011)
    } else {
        (0x04, 0x000012)
    };
    f.extend_from_slice(&[opcode, 0, 0xFF, 0xFF, 0]);
    f.extend_from_slice(&(dqp as u32).to_be_bytes()[1..]);
    f.extend_from_slice(&((r >> 8) as u32 & 0xFF_FFFF).to_be_bytes());
    if ipv6 {
        f.extend_from_slice(&[0x11, 0x11, 0x11, 0x11, 0, 0, 0, 0x22]);
    }
    f.extend((0..payload).map(|i| (i as u64 ^ r) as u8));
    f.extend_from_slice(&[0; 4]);
    icrc_fill(&mut f).expect("a RoCEv2 frame");
    f
}

fn main() -> std::process::ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(dir) = args.next() else {
        eprintln!("usage: roce_sample DIR [COUNT]");
        return std::process::ExitCode::from(2);
    };
    let count: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(40);
    let dir = std::path::PathBuf::from(dir);
    let mut rng = Rng(0x0000_526F_4345_7632);
    let mut pcap = PcapWriter::new(Vec::new(), LinkType::Ethernet).expect("in memory");
    for i in 0..count {
        let payload = (rng.next() % 256) as usize;
        let mut f = frame(&mut rng, i % 2 == 1, payload);
        if i % 5 == 0 {
            let last = f.len() - 1;
            f[last] ^= 0x01;
        }
        pcap.write_record((1_700_000_000 + i as u32, 0), &f)
            .expect("in memory");
    }
    let path = dir.join("roce.pcap");
    let bytes = pcap.finish().expect("in memory");
    if let Err(e) = std::fs::create_dir_all(&dir).and_then(|_| std::fs::write(&path, bytes)) {
        eprintln!("roce_sample: {}: {e}", path.display());
        return std::process::ExitCode::from(2);
    }
    std::process::ExitCode::SUCCESS
}

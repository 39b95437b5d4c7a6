//! Cycle figures of the co-simulated WQE engine (`make bench`): 4 KiB RC SENDs on the 64-bit
//! data path (wire bytes per cycle against the path's 8) and back-to-back 64-byte UD SENDs
//! (frames per cycle), with an ideal host and with one that answers 100 cycles late.

use rocenic_model::entropy::Profile;
use rocenic_model::wqe::{AddressVector, DataSegment, Flags, Opcode, Payload, WorkRequest};
use rocenic_sim::wqe::dp::Run;
use rocenic_sim::wqe::engine::{run, Load, Setup};
use rocenic_sim::wqe::host_memory::Config as DmaConfig;
use rocenic_sim::wqe::scenario::{base, encoded, post, DATA, MRS};

/// `n` SENDs of `len` bytes on queue `k` (3: RC IPv6 MTU 4096; 2: UD MTU 512).
fn sends(k: usize, n: u32, len: u32) -> Run {
    let mut run = base(Profile::Linux);
    let (lkey, ..) = MRS[0];
    for i in 0..n {
        let sges = [DataSegment {
            addr: DATA + u64::from(i % 4) * 64,
            length: len,
            lkey,
        }];
        let wr = WorkRequest {
            opcode: Opcode::Send,
            flags: Flags::SIGNALED,
            index: i,
            imm: 0,
            wr_id: u64::from(i),
            av: (k == 2).then_some(AddressVector {
                dqpn: 0x101,
                qkey: 0x2222,
                dgid: AddressVector::mapped([10, 0, 0, 9]),
                dmac: [2, 0, 0, 0, 0, 9],
                vlan: None,
                flow_label: 0,
                tclass: 0,
                hop_limit: 64,
            }),
            raddr: None,
            tso: None,
            payload: Payload::Gather(&sges),
        };
        let out = encoded(&wr);
        post(&mut run, k, &out);
    }
    run
}

fn main() {
    let late = Load {
        dma: DmaConfig {
            latency: 100..=100,
            ..DmaConfig::ideal(8, 4)
        },
        out_ready: 1.0,
        axil_delay: 0.0,
    };
    for (name, load) in [
        ("ideal host", Load::ideal()),
        ("host 100 cycles late", late),
    ] {
        let r = sends(3, 60, 4096);
        let out = run(&Setup::from(&r), &load, 1, 10_000_000, None).expect("4 KiB sends");
        let bytes: usize = out.frames.iter().map(Vec::len).sum();
        let bpc = bytes as f64 / out.cycles as f64;
        println!(
            "wqe_engine/rc_send_4k ({name}): {} frames, {bytes} wire bytes in {} cycles: {:.2} bytes/cycle, {:.1}% of the 64-bit path",
            out.frames.len(),
            out.cycles,
            bpc,
            100.0 * bpc / 8.0
        );
        let r = sends(2, 60, 64);
        let out = run(&Setup::from(&r), &load, 1, 10_000_000, None).expect("UD sends");
        println!(
            "wqe_engine/ud_send_64 ({name}): {} frames in {} cycles: {:.3} frames/cycle ({:.1} cycles a frame; a frame is {} beats)",
            out.frames.len(),
            out.cycles,
            out.frames.len() as f64 / out.cycles as f64,
            out.cycles as f64 / out.frames.len() as f64,
            out.frames[0].len().div_ceil(8)
        );
    }
}

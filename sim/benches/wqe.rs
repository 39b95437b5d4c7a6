//! Cycle figures of the co-simulated WQE engine (`make bench`): 4 KiB RC SENDs on the 64-bit
//! data path (wire bytes per cycle against the path's 8) and back-to-back 64-byte UD SENDs
//! (frames per cycle), with an ideal host and with one that answers 100 cycles late.

use rocenic_sim::wqe::engine::{run, Load, Setup};
use rocenic_sim::wqe::host_memory::Config as DmaConfig;
use rocenic_sim::wqe::scenario::sends;

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

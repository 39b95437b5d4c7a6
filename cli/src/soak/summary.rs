//! The soak's summary on standard output.

use super::run::Soak;
use super::side::Side;
use super::Args;

pub(super) fn print_summary(args: &Args, soak: &Soak, sides: &[Side; 2], secs: f64) {
    let t = &soak.tally;
    println!(
        "soak: {} messages over {} RC QPs each way, {} to {} bytes, seed {}; link loss {}, \
         corrupt {}, duplicate {}, timeout 2^{} turns",
        args.messages,
        args.qps,
        args.min_len,
        args.max_len,
        args.seed,
        args.loss,
        args.corrupt,
        args.duplicate,
        args.timeout
    );
    println!(
        "  delivered          {} ({} bytes; SEND {}, SEND_IMM {}, WRITE {}, WRITE_IMM {}, READ {})",
        t.delivered,
        t.bytes,
        t.by_opcode[0],
        t.by_opcode[1],
        t.by_opcode[2],
        t.by_opcode[3],
        t.by_opcode[4]
    );
    println!(
        "  turns              {} ({:.1} message bytes a turn)",
        t.turns,
        t.bytes as f64 / t.turns.max(1) as f64
    );
    println!("{:<20} {:>12} {:>12}", "", "a", "b");
    let f = soak.wire.faults;
    let row = |name: &str, a: u64, b: u64| println!("  {name:<18} {a:>12} {b:>12}");
    row("frames sent", t.frames[0], t.frames[1]);
    row("lost", f[0].lost, f[1].lost);
    row("corrupted", f[0].corrupted, f[1].corrupted);
    row("duplicated", f[0].duplicated, f[1].duplicated);
    let c = [0, 1].map(|s| sides[s].nic.queues.rc_counters());
    let n = [0, 1].map(|s| sides[s].nic.rc_counts());
    row("packets resent", c[0].resent, c[1].resent);
    row("timeouts", c[0].timeouts, c[1].timeouts);
    row("seq NAKs sent", n[0].seq_naks_sent, n[1].seq_naks_sent);
    row("NAKs acted on", c[0].seq_naks, c[1].seq_naks);
    row("RNR NAKs sent", n[0].rnr_naks_sent, n[1].rnr_naks_sent);
    row(
        "fatal NAKs sent",
        n[0].fatal_naks_sent,
        n[1].fatal_naks_sent,
    );
    row("ACKs dropped", n[0].acks_dropped, n[1].acks_dropped);
    row("READ gaps", c[0].read_gaps, c[1].read_gaps);
    row("ACKs sent", n[0].acks_sent, n[1].acks_sent);
    println!("  frames dropped by the receivers: {}", t.discarded);
    println!(
        "  {secs:.1} s, {:.0} messages/s, {:.1} MB/s of messages",
        t.delivered as f64 / secs.max(1e-9),
        t.bytes as f64 / secs.max(1e-9) / 1e6
    );
}

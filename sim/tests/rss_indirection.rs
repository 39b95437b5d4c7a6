//! The indirection table (rtl/rss/rss_indirection.sv) on 8 entries with random reads and writes
//! every clock, many at the same address in the same clock: a read returns the entry as written
//! up to and including its own clock. Verilator's memory returns the old entry for such a read
//! and the block RAM undefined data, so this is the table's own write-first path under test.

use rand::Rng;
use rocenic_sim::duts::RssIndirection;
use rocenic_sim::harness::Sim;
use rocenic_sim::stream;

const ENTRIES: usize = 8;
const CYCLES: usize = 20_000;

#[test]
fn reads_see_writes_of_their_own_clock() {
    let seed = stream::seed("rss_indirection::write_first");
    let mut rng = stream::rng(seed);
    let mut sim: Sim<RssIndirection> = Sim::new("rss_indirection_write_first");
    sim.reset(2);

    let mut table = [0u16; ENTRIES];
    let mut expected: Option<u16> = None;
    let mut same_clock = 0;
    for cycle in 0..CYCLES {
        let wr = rng.gen_bool(0.6);
        let wr_addr = rng.gen_range(0..ENTRIES);
        let wr_data: u16 = rng.gen();
        let rd = rng.gen_bool(0.7);
        // Half the reads at the address being written, when there is one.
        let rd_addr = if wr && rng.gen_bool(0.5) {
            wr_addr
        } else {
            rng.gen_range(0..ENTRIES)
        };
        sim.dut.set_wr_en(u8::from(wr));
        sim.dut.set_wr_addr(wr_addr as _);
        sim.dut.set_wr_data(wr_data);
        sim.dut.set_rd_en(u8::from(rd));
        sim.dut.set_rd_addr(rd_addr as _);
        sim.step();

        if wr {
            table[wr_addr] = wr_data;
        }
        if rd {
            same_clock += usize::from(wr && wr_addr == rd_addr);
            expected = Some(table[rd_addr]);
        }
        // Without a read the output holds the last one.
        if let Some(want) = expected {
            assert_eq!(
                sim.dut.rd_data(),
                want,
                "cycle {cycle}: read of entry {rd_addr} (read {rd}, write {wr} to {wr_addr}); seed {seed}"
            );
        }
    }
    assert!(
        same_clock > CYCLES / 10,
        "too few same-clock reads to test: {same_clock}"
    );
}

//! The RTL RSS parser (rtl/rss/rss_parser.sv) against model::rss::classify, frame by frame.

use rand::Rng;
use rocenic_model::rss::parse::PARSE_WINDOW;
use rocenic_model::rss::{classify, SteeringKey};
use rocenic_model::wire::LinkType;
use rocenic_sim::duts::RssParser;
use rocenic_sim::harness::Sim;
use rocenic_sim::rss::{bytes_of_u128_port, frames, window_words};
use rocenic_sim::stream;
use std::collections::VecDeque;

const LATENCY: u64 = 13;

/// What the parser reports: flags and the steering key.
fn expected(link: LinkType, frame: &[u8]) -> (u16, SteeringKey) {
    let parsed = classify(link, frame);
    (parsed.flags.0, SteeringKey::of(&parsed))
}

fn observed(d: &RssParser) -> (u16, SteeringKey) {
    (
        d.out_flags(),
        SteeringKey {
            ethertype: d.out_ethertype(),
            l4_protocol: d.out_l4_protocol(),
            src: bytes_of_u128_port(d.out_src()),
            dst: bytes_of_u128_port(d.out_dst()),
            src_port: d.out_src_port(),
            dst_port: d.out_dst_port(),
            qpn: d.out_qpn(),
        },
    )
}

#[test]
fn random_frames_match_the_model() {
    let seed = stream::seed("rss_parser::random_frames");
    let mut rng = stream::rng(seed);
    let mut sim: Sim<RssParser> = Sim::new("rss_parser_random");
    sim.reset(2);
    let mut in_flight: VecDeque<(u64, LinkType, Vec<u8>)> = VecDeque::new();
    let (n, mut checked) = (100_000, 0);
    let mut flag_union = 0u16;
    while checked < n {
        let send = in_flight.len() < 64 && rng.gen_bool(0.8);
        if send {
            let (link, frame) = frames::random_frame(&mut rng);
            // Half the windows carry junk past the frame's end, as a capture that does not
            // clear them would: the parser must read no byte past in_len.
            let mut bytes = frame.clone();
            if rng.gen_bool(0.5) {
                bytes.extend((frame.len()..PARSE_WINDOW).map(|_| rng.gen::<u8>()));
            }
            sim.dut.set_in_win(window_words(&bytes));
            sim.dut.set_in_len(frame.len() as u32);
            sim.dut.set_in_ib(u8::from(link == LinkType::Infiniband));
            in_flight.push_back((sim.cycle(), link, frame));
        }
        sim.dut.set_in_valid(u8::from(send));
        sim.settle();
        if sim.dut.out_valid() == 1 {
            let (sent, link, frame) = in_flight.pop_front().expect("an output nobody sent");
            assert_eq!(sim.cycle() - sent, LATENCY, "latency (seed {seed})");
            let want = expected(link, &frame);
            let got = observed(&sim.dut);
            assert_eq!(
                got,
                want,
                "frame {checked} ({link:?}, {} bytes: {:02x?}) (seed {seed})",
                frame.len(),
                frame
            );
            flag_union |= want.0;
            checked += 1;
        }
        sim.step();
    }
    // The generator reached every flag, so every parser outcome was compared.
    assert_eq!(
        flag_union,
        0x7FF,
        "flags never seen: {:#x}",
        !flag_union & 0x7FF
    );
}

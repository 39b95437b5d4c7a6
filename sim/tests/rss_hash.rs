//! The RSS hash core (rtl/rss/rss_hash.sv) against model::toeplitz, at three key lengths (the
//! iCEBreaker's 16 bytes, 40 and 52), with keys replaced mid-stream and random back-pressure on
//! every stream, and against the published verification vectors.

use rand::Rng;
use rocenic_model::toeplitz::{
    hash_bitserial, hash_xor, VerificationVector, MICROSOFT_KEY, VERIFICATION_IPV4,
    VERIFICATION_IPV6,
};
use rocenic_sim::axis;
use rocenic_sim::duts::{RssHash12, RssHash36, RssHash48};
use rocenic_sim::harness::Sim;
use rocenic_sim::scoreboard::Scoreboard;
use rocenic_sim::stream::{self, Sink, Source};
use std::collections::VecDeque;

/// Cycles from acceptance to result with an always-ready sink (the RTL's LATENCY).
const LATENCY: u64 = 3;

/// The public verification suite as (addresses and ports, the addresses' hash, the hash of
/// all), IPv4 then IPv6.
fn published_vectors() -> Vec<(Vec<u8>, u32, u32)> {
    fn rows<const N: usize>(vs: &[VerificationVector<N>]) -> Vec<(Vec<u8>, u32, u32)> {
        vs.iter()
            .map(|v| {
                let mut tuple = v.src.to_vec();
                tuple.extend_from_slice(&v.dst);
                tuple.extend_from_slice(&v.src_port.to_be_bytes());
                tuple.extend_from_slice(&v.dst_port.to_be_bytes());
                (tuple, v.hash_l3, v.hash_l3l4)
            })
            .collect()
    }
    let mut all = rows(&VERIFICATION_IPV4);
    all.extend(rows(&VERIFICATION_IPV6));
    all
}

/// Packs bytes into Verilator's words, byte 0 in the top byte of the vector.
fn pack<const W: usize>(bytes: &[u8], total: usize) -> [u32; W] {
    let mut words = [0u32; W];
    axis::bytes_to_words_msb_first(bytes, total, &mut words);
    words
}

#[derive(Clone, Debug)]
struct Req {
    data: Vec<u8>,
    xor: bool,
    tag: u16,
}

macro_rules! hash_bench {
    ($module:ident, $dut:ty, $max:expr, $kw:expr, $dw:expr) => {
        mod $module {
            use super::*;
            const MAX: usize = $max;
            const KEY: usize = MAX + 4;

            fn set_key(sim: &mut Sim<$dut>, key: &[u8]) {
                sim.dut.set_s_key(pack::<$kw>(key, KEY));
            }

            fn set_req(sim: &mut Sim<$dut>, r: &Req) {
                // Bytes past the length are garbage on purpose: the unit must ignore them.
                let mut data = r.data.clone();
                data.resize(MAX, 0xA5);
                sim.dut.set_s_req_data(pack::<$dw>(&data, MAX));
                sim.dut.set_s_req_len(r.data.len() as _);
                sim.dut.set_s_req_xor(u8::from(r.xor));
                sim.dut.set_s_req_tag(r.tag);
            }

            fn expected(key: &[u8], r: &Req) -> (u32, u16) {
                let h = if r.xor {
                    hash_xor(&r.data)
                } else {
                    hash_bitserial(key, &r.data).unwrap()
                };
                (h, r.tag)
            }

            fn out_of_reset(name: &str, key: &[u8]) -> Sim<$dut> {
                let mut sim: Sim<$dut> = Sim::new(name);
                sim.reset(3);
                set_key(&mut sim, key);
                sim.dut.set_s_key_valid(1);
                sim.run_until("the first key", 20, |d| d.s_key_ready() == 1)
                    .unwrap();
                sim.step();
                sim.dut.set_s_key_valid(0);
                sim
            }

            /// One Toeplitz request through an idle unit with a ready sink; its hash.
            fn hash_once(sim: &mut Sim<$dut>, data: &[u8]) -> u32 {
                let r = Req {
                    data: data.to_vec(),
                    xor: false,
                    tag: 0,
                };
                set_req(sim, &r);
                sim.dut.set_s_req_valid(1);
                sim.run_until("ready", 10, |d| d.s_req_ready() == 1)
                    .unwrap();
                sim.step();
                sim.dut.set_s_req_valid(0);
                sim.run_until("the hash", 10, |d| d.m_res_valid() == 1)
                    .unwrap();
                let hash = sim.dut.m_res_hash();
                sim.step();
                hash
            }

            /// The public verification suite through the RTL with the Microsoft key, cut or
            /// padded with zeros to this build's key (an input of n bytes reads only the key's
            /// first n + 4): IPv4 with and without ports, and IPv6 where the inputs hold it.
            #[test]
            fn microsoft_vectors() {
                let mut key = [0u8; KEY];
                let n = KEY.min(MICROSOFT_KEY.len());
                key[..n].copy_from_slice(&MICROSOFT_KEY[..n]);
                let mut sim = out_of_reset(concat!(stringify!($module), "_vectors"), &key);
                sim.dut.set_m_res_ready(1);
                let mut checked = 0;
                for (tuple, hash_l3, hash_l3l4) in published_vectors() {
                    let l3 = tuple.len() - 4;
                    for (len, want) in [(tuple.len(), hash_l3l4), (l3, hash_l3)] {
                        if len <= MAX {
                            assert_eq!(
                                hash_once(&mut sim, &tuple[..len]),
                                want,
                                "{len}-byte input {tuple:02x?}"
                            );
                            checked += 1;
                        }
                    }
                }
                // Every build holds IPv4 with ports; 36 bytes and more hold IPv6 with ports.
                assert_eq!(checked, if MAX >= 36 { 16 } else { 10 });
            }

            /// Random inputs, lengths 0..=MAX, Toeplitz and XOR mixed, keys replaced at random
            /// moments; every result checked against the model with the key its request saw.
            #[test]
            fn random_traffic_with_key_updates() {
                let seed = stream::seed(concat!(stringify!($module), "::random_traffic"));
                let mut rng = stream::rng(seed);
                let mut key: Vec<u8> = (0..KEY).map(|_| rng.gen()).collect();
                let mut sim = out_of_reset(concat!(stringify!($module), "_random"), &key);
                let mut source = Source::new(seed, 0.25);
                let n = 60_000;
                for tag in 0..n {
                    let len = match rng.gen_range(0..4) {
                        0 => MAX,
                        1 => 0,
                        _ => rng.gen_range(0..=MAX),
                    };
                    source.push(Req {
                        data: (0..len).map(|_| rng.gen()).collect(),
                        xor: rng.gen_bool(0.2),
                        tag: tag as u16,
                    });
                }
                let mut sink = Sink::new(seed, 0.3);
                let mut board = Scoreboard::new(stringify!($module));
                let mut pending_key: Option<Vec<u8>> = None;
                let (mut key_updates, mut done, mut held) = (0, 0, None);
                while done < n {
                    assert!(
                        sim.cycle() < 20 * n as u64,
                        "hang at cycle {} (seed {seed})",
                        sim.cycle()
                    );
                    if pending_key.is_none() && rng.gen_bool(0.002) {
                        pending_key = Some((0..KEY).map(|_| rng.gen()).collect());
                    }
                    if let Some(k) = &pending_key {
                        set_key(&mut sim, k);
                    }
                    sim.dut.set_s_key_valid(u8::from(pending_key.is_some()));
                    let offer = source.offer().cloned();
                    sim.dut.set_s_req_valid(u8::from(offer.is_some()));
                    if let Some(r) = &offer {
                        set_req(&mut sim, r);
                    }
                    let ready = sink.ready();
                    sim.dut.set_m_res_ready(u8::from(ready));
                    let d = &sim.dut;
                    let valid = d.m_res_valid() == 1;
                    let result = (d.m_res_hash(), d.m_res_tag());
                    if let Some(prev) = held.take() {
                        assert!(
                            valid && result == prev,
                            "result changed while stalled at cycle {} (seed {seed})",
                            sim.cycle()
                        );
                    }
                    // A key handshake in the same cycle as a request applies to that request.
                    if pending_key.is_some() && d.s_key_ready() == 1 {
                        key = pending_key.take().unwrap();
                        key_updates += 1;
                    }
                    if let Some(r) = source.accepted(d.s_req_ready() == 1) {
                        board.expect(expected(&key, &r));
                    }
                    if valid && ready {
                        board
                            .observe(result)
                            .unwrap_or_else(|m| panic!("{m} (seed {seed})"));
                        done += 1;
                    } else if valid {
                        held = Some(result);
                    }
                    sim.step();
                }
                assert_eq!(board.pending(), 0);
                assert!(key_updates >= 20, "only {key_updates} key updates");
            }

            /// One result per clock, each LATENCY cycles after its request.
            #[test]
            fn full_rate_fixed_latency() {
                let mut sim = out_of_reset(concat!(stringify!($module), "_rate"), &[0x6d; KEY]);
                sim.dut.set_m_res_ready(1);
                let mut accepted: VecDeque<u64> = VecDeque::new();
                let mut results = 0;
                for i in 0..1000u16 {
                    set_req(
                        &mut sim,
                        &Req {
                            data: vec![i as u8; MAX],
                            xor: false,
                            tag: i,
                        },
                    );
                    sim.dut.set_s_req_valid(1);
                    assert_eq!(sim.dut.s_req_ready(), 1, "stalled at request {i}");
                    accepted.push_back(sim.cycle());
                    if sim.dut.m_res_valid() == 1 {
                        assert_eq!(sim.cycle() - accepted.pop_front().unwrap(), LATENCY);
                        results += 1;
                    }
                    sim.step();
                }
                sim.dut.set_s_req_valid(0);
                while let Some(at) = accepted.pop_front() {
                    sim.run_until("a result", 10, |d| d.m_res_valid() == 1)
                        .unwrap();
                    assert_eq!(sim.cycle() - at, LATENCY);
                    results += 1;
                    sim.step();
                }
                assert_eq!(results, 1000);
            }
        }
    };
}

hash_bench!(key16, RssHash12, 12, 4, 3);
hash_bench!(key40, RssHash36, 36, 10, 9);
hash_bench!(key52, RssHash48, 48, 13, 12);

//! Criterion benchmarks of the reference model (`make bench`).
//!
//! Goals: the fastest Toeplitz form at or below DPDK's GFNI path for 12- and 36-byte tuples,
//! single and bulk (`make bench` prints DPDK's figures from the same run beside these where
//! DPDK is installed; docs/rss.md#speed); ICRC over 4 KiB at 20 GB/s or more.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use rocenic_model::entropy::{flow_label, get_udp_sport};
use rocenic_model::toeplitz::{hash_bitserial, Toeplitz, ToeplitzTable, MICROSOFT_KEY};
use rocenic_model::tso::{Limits, Segmenter};
use rocenic_model::wire::{icrc_compute, LinkType};

fn entropy(c: &mut Criterion) {
    c.bench_function("entropy/flow_label+udp_sport", |b| {
        let mut l = 0x11u32;
        b.iter(|| {
            l = l.wrapping_add(1) & 0xFF_FFFF;
            let fl = flow_label(black_box(l), black_box(0x2b7e));
            black_box((fl, get_udp_sport(0, l, 0x2b7e)))
        })
    });
}

/// Tuples per bulk call, as in DPDK's bulk test.
const BULK: usize = 64;

fn toeplitz(c: &mut Criterion) {
    let table = ToeplitzTable::new(&MICROSOFT_KEY).unwrap();
    let fastest = Toeplitz::new(&MICROSOFT_KEY).unwrap();
    let form = fastest.form().name();
    let input: [u8; 36] = core::array::from_fn(|i| (i * 37 + 11) as u8);
    let mut g = c.benchmark_group("toeplitz");
    for len in [12usize, 36] {
        let tuple = &input[..len];
        g.bench_function(format!("table/{len}B"), |b| {
            b.iter(|| table.hash(black_box(tuple)).unwrap())
        });
        g.bench_function(format!("fastest/{len}B"), |b| {
            b.iter(|| fastest.hash(black_box(tuple)).unwrap())
        });
        g.bench_function(format!("bitserial/{len}B"), |b| {
            b.iter(|| hash_bitserial(black_box(&MICROSOFT_KEY), black_box(&input[..len])))
        });
    }
    // Bulk: figures per tuple (criterion's throughput in elements).
    g.throughput(Throughput::Elements(BULK as u64));
    let v4: Vec<[u8; 12]> = (0..BULK)
        .map(|t| core::array::from_fn(|i| (t * 131 + i * 37 + 11) as u8))
        .collect();
    let v6: Vec<[u8; 36]> = (0..BULK)
        .map(|t| core::array::from_fn(|i| (t * 131 + i * 37 + 11) as u8))
        .collect();
    let mut out = [0u32; BULK];
    g.bench_function("fastest-bulk/12B", |b| {
        b.iter(|| fastest.hash_bulk(black_box(&v4), &mut out).unwrap())
    });
    g.bench_function("fastest-bulk/36B", |b| {
        b.iter(|| fastest.hash_bulk(black_box(&v6), &mut out).unwrap())
    });
    g.finish();
    eprintln!("toeplitz: the fastest form on this CPU is `{form}`");
}

/// An IPv4 RoCEv2 RC SEND_ONLY packet from the IP header on, with a 4 KiB payload.
fn roce_ipv4_4k() -> Vec<u8> {
    let payload = 4096;
    let total = 20 + 8 + 12 + payload + 4;
    let mut p = vec![0u8; total];
    p[0] = 0x45;
    p[2..4].copy_from_slice(&(total as u16).to_be_bytes());
    p[8] = 64;
    p[9] = 17;
    p[12..16].copy_from_slice(&[192, 168, 0, 1]);
    p[16..20].copy_from_slice(&[192, 168, 0, 2]);
    p[20..22].copy_from_slice(&0xC000u16.to_be_bytes());
    p[22..24].copy_from_slice(&4791u16.to_be_bytes());
    p[24..26].copy_from_slice(&((total - 20) as u16).to_be_bytes());
    p[28] = 0x04;
    p[30..32].copy_from_slice(&0xFFFFu16.to_be_bytes());
    for (i, b) in p[40..40 + payload].iter_mut().enumerate() {
        *b = i as u8;
    }
    p.truncate(total - 4);
    p
}

fn icrc(c: &mut Criterion) {
    let packet = roce_ipv4_4k();
    let mut g = c.benchmark_group("icrc");
    g.throughput(Throughput::Bytes(packet.len() as u64));
    g.bench_function("ipv4/4KiB", |b| b.iter(|| icrc_compute(black_box(&packet))));
    g.bench_function("crc32fast/4KiB", |b| {
        b.iter(|| crc32fast::hash(black_box(&packet)))
    });
    g.finish();
}

/// An Ethernet + IPv4 + TCP (timestamps) template and a 64 KiB send at MSS 1448.
fn tso(c: &mut Criterion) {
    let mut header = vec![0u8; 14 + 20 + 32];
    header[12..14].copy_from_slice(&0x0800u16.to_be_bytes());
    header[14] = 0x45;
    header[22] = 64;
    header[23] = 6;
    header[26..30].copy_from_slice(&[10, 0, 0, 1]);
    header[30..34].copy_from_slice(&[10, 0, 0, 2]);
    header[46] = 0x80;
    header[47] = 0x18;
    let payload: Vec<u8> = (0..65536u32).map(|i| i as u8).collect();
    let seg = Segmenter::new(
        LinkType::Ethernet,
        &header,
        &payload,
        1448,
        Limits::default(),
    )
    .unwrap();
    let mut out = vec![0u8; 2048];
    let mut g = c.benchmark_group("tso");
    g.throughput(Throughput::Bytes(payload.len() as u64));
    g.bench_function("ipv4/64KiB-mss1448", |b| {
        b.iter(|| {
            for i in 0..seg.segment_count() {
                black_box(seg.write_segment(i, &mut out).unwrap());
            }
        })
    });
    g.finish();
}

criterion_group!(benches, entropy, toeplitz, icrc, tso);
criterion_main!(benches);

//! The input rows of every vector set: the edge cases of `model::golden::sets` first, in a fixed
//! order, then `count` random rows from the seed. Each row is its input cells in the set's order
//! of input columns; `expect.rs` computes the rest.

mod tso;
mod wire;

pub use tso::sends;

use super::expect::hex;
use super::rng::Rng;
use rocenic_model::entropy::{Profile, MULTICAST_QPN};
use rocenic_model::golden::sets::{self, Set};
use rocenic_model::toeplitz::{
    VerificationVector, MICROSOFT_KEY, VERIFICATION_IPV4, VERIFICATION_IPV6,
};
use wire::{icrc_edges, icrc_random, rss_edges, rss_random};

/// A set's rows: how many edge cases lead, and every row in order.
pub struct Rows {
    pub edges: usize,
    pub rows: Box<dyn Iterator<Item = Vec<String>>>,
}

/// Draws one random row.
type Draw = dyn FnMut(&mut Rng) -> Vec<String>;

/// The rows of `set` (any but `tso`; see [`sends`]).
pub fn rows(set: &Set, profile: Profile, count: u64, rng: Rng) -> Rows {
    let p = profile.name().to_string();
    let (edges, mut draw): (Vec<Vec<String>>, Box<Draw>) = if set.name == sets::ENTROPY_QP.name {
        (
            entropy_qp_edges(&p),
            Box::new(move |r| entropy_qp_random(&p, r)),
        )
    } else if set.name == sets::ENTROPY_CM.name {
        (
            entropy_cm_edges(&p),
            Box::new(move |r| entropy_cm_random(&p, r)),
        )
    } else if set.name == sets::TOEPLITZ.name {
        (toeplitz_edges(), Box::new(toeplitz_random))
    } else if set.name == sets::RSS.name {
        (rss_edges(), Box::new(rss_random))
    } else {
        (icrc_edges(), Box::new(icrc_random))
    };
    let n = edges.len();
    let mut rng = rng;
    let random = (0..count).map(move |_| draw(&mut rng));
    Rows {
        edges: n,
        rows: Box::new(edges.into_iter().chain(random)),
    }
}

fn x(v: impl Into<u64>) -> String {
    format!("{:#x}", v.into())
}

fn entropy_qp_row(p: &str, l: u32, r: u32, fl: u32, ud: bool) -> Vec<String> {
    let ty = if ud { "ud" } else { "rc" };
    vec![p.into(), x(l), x(r), x(fl), ty.into()]
}

fn entropy_qp_edges(p: &str) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    for l in sets::QPNS {
        for r in sets::QPNS {
            rows.push(entropy_qp_row(p, l, r, 0, false));
        }
    }
    for q in sets::QPNS {
        rows.push(entropy_qp_row(p, q, MULTICAST_QPN, 0, true));
        rows.push(entropy_qp_row(p, q, q, 0, true));
    }
    for fl in sets::FLOW_LABELS {
        for (l, r) in [(0, 0), (0x12, 0x34), (0xFF_FFFF, 0xFF_FFFF)] {
            rows.push(entropy_qp_row(p, l, r, fl, false));
        }
    }
    rows
}

fn qpn(rng: &mut Rng) -> u32 {
    if rng.one_in(8) {
        rng.below(256) as u32
    } else {
        rng.below(1 << 24) as u32
    }
}

fn app_flow_label(rng: &mut Rng) -> u32 {
    match rng.below(4) {
        0 | 1 => 0,
        2 => rng.below(1 << 20) as u32,
        _ => rng.next() as u32,
    }
}

fn entropy_qp_random(p: &str, rng: &mut Rng) -> Vec<String> {
    let l = qpn(rng);
    let r = if rng.one_in(16) {
        MULTICAST_QPN
    } else {
        qpn(rng)
    };
    let fl = app_flow_label(rng);
    entropy_qp_row(p, l, r, fl, rng.one_in(2))
}

fn entropy_cm_row(p: &str, s: u16, d: u16, fl: u32, l: u32, r: u32) -> Vec<String> {
    vec![p.into(), s.to_string(), d.to_string(), x(fl), x(l), x(r)]
}

fn entropy_cm_edges(p: &str) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    for s in sets::CM_PORTS {
        for d in sets::CM_PORTS {
            rows.push(entropy_cm_row(p, s, d, 0, 0x12, 0x34));
        }
    }
    for fl in sets::FLOW_LABELS {
        rows.push(entropy_cm_row(p, 18515, 4791, fl, 0x12, 0x34));
    }
    // Ports whose flow label comes out 0 fall back to the QPNs: 0 and 0 in every profile, and
    // 33825 * 31 + 1 = 2^20 in linux.
    for q in sets::QPNS {
        rows.push(entropy_cm_row(p, 0, 0, 0, q, 0xFF_FFFF));
        rows.push(entropy_cm_row(p, 33825, 1, 0, q, 0x12));
    }
    rows
}

fn entropy_cm_random(p: &str, rng: &mut Rng) -> Vec<String> {
    let (s, d) = (rng.next() as u16, rng.next() as u16);
    let fl = app_flow_label(rng);
    let (l, r) = (qpn(rng), qpn(rng));
    entropy_cm_row(p, s, d, fl, l, r)
}

/// A verification vector's hash inputs: addresses only, and with ports.
fn verification_inputs<const N: usize>(v: &VerificationVector<N>) -> [Vec<u8>; 2] {
    let l3 = [&v.src[..], &v.dst[..]].concat();
    let l4 = [
        &l3[..],
        &v.src_port.to_be_bytes(),
        &v.dst_port.to_be_bytes(),
    ]
    .concat();
    [l3, l4]
}

fn toeplitz_edges() -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let inputs = VERIFICATION_IPV4
        .iter()
        .flat_map(verification_inputs)
        .chain(VERIFICATION_IPV6.iter().flat_map(verification_inputs));
    for input in inputs {
        rows.push(vec![hex(&MICROSOFT_KEY), hex(&input)]);
    }
    for key in sets::KEYS {
        let max = key.len() - 4;
        for n in sets::INPUT_LENGTHS.into_iter().filter(|&n| n <= max) {
            rows.push(vec![hex(key), hex(&sets::ONES_INPUT[..n])]);
        }
        if max > 0 {
            // The first and the last input bit alone select the first and the last key window.
            let mut last = vec![0u8; max];
            last[max - 1] = 1;
            rows.push(vec![hex(key), "80".into()]);
            rows.push(vec![hex(key), hex(&last)]);
        }
    }
    rows
}

pub fn key_for(rng: &mut Rng, len: usize) -> Vec<u8> {
    match rng.below(4) {
        0 if len == 40 => MICROSOFT_KEY.to_vec(),
        1 if len == 40 => sets::SYMMETRIC_KEY_40.to_vec(),
        1 => sets::SYMMETRIC_KEY_52.to_vec(),
        _ => rng.bytes(len),
    }
}

fn toeplitz_random(rng: &mut Rng) -> Vec<String> {
    let key = if rng.one_in(2) {
        let len = rng.pick(&[40, 52]);
        key_for(rng, len)
    } else {
        let len = rng.range(4, 52) as usize;
        rng.bytes(len)
    };
    let n = rng.range(0, key.len() as u64 - 4) as usize;
    vec![hex(&key), hex(&rng.bytes(n))]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The edge cases are the same whatever the seed, and random rows follow them.
    #[test]
    fn edges_lead_and_do_not_depend_on_the_seed() {
        for set in sets::SETS.into_iter().filter(|s| s.name != sets::TSO.name) {
            let a = rows(set, Profile::Linux, 3, Rng::new(1));
            let b = rows(set, Profile::Linux, 3, Rng::new(2));
            assert_eq!(a.edges, b.edges);
            let (a, b): (Vec<_>, Vec<_>) = (a.rows.collect(), b.rows.collect());
            assert_eq!(a.len(), a.len().min(b.len()));
            assert_eq!(a[..a.len() - 3], b[..b.len() - 3], "{}", set.name);
            assert_ne!(a[a.len() - 3..], b[b.len() - 3..], "{}", set.name);
            assert!(a.iter().all(|r| r.len() == set.inputs().count()));
        }
        let (edges, sends) = sends(2, Rng::new(1));
        assert_eq!(sends.count(), edges + 2);
    }
}

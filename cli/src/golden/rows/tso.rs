//! The rows of the `tso` set: oversized TCP sends and their MSS.

use super::Rng;
use crate::golden::frames::Send;
use rocenic_model::golden::sets;

/// The header forms TSO edge cases go through: (tag, IPv4 option words or IPv6, TCP option
/// words). The last is the longest header the segmenter takes whole: 18 + 48 + 60 = 126 bytes.
const SEND_FORMS: [(Option<u16>, Option<u8>, u8); 5] = [
    (None, Some(0), 0),
    (Some(0x8100), Some(1), 3),
    (None, None, 5),
    (Some(0x88A8), None, 10),
    (Some(0x8100), Some(7), 10),
];

/// TCP flags the edge cases go through: ACK|PSH, with FIN, with CWR, all three, ACK alone.
const SEND_FLAGS: [u8; 5] = [0x18, 0x19, 0x98, 0x99, 0x10];

fn send(
    form: (Option<u16>, Option<u8>, u8),
    flags: u8,
    seq: u32,
    ident: u16,
    payload: Vec<u8>,
) -> Send {
    Send {
        tag: form.0,
        ipv4: form.1,
        tcp_words: form.2,
        ident,
        seq,
        flags,
        flow: (seq % 200) as u8 + 1,
        payload,
    }
}

/// The TSO rows: each send and its MSS. Edge cases first, then `count` random sends.
pub fn sends(count: u64, rng: Rng) -> (usize, Box<dyn Iterator<Item = (Send, u16)>>) {
    let mut edges = Vec::new();
    let mut k = 0usize;
    let payload = |n: usize| (0..n).map(|i| (i % 251) as u8).collect::<Vec<u8>>();
    for mss in sets::MSS {
        let m = usize::from(mss);
        let mut lens = vec![0, 1, m - 1, m, m + 1, 3 * m];
        lens.dedup();
        for n in lens {
            let form = SEND_FORMS[k % SEND_FORMS.len()];
            let flags = SEND_FLAGS[k % SEND_FLAGS.len()];
            edges.push((
                send(form, flags, 1000 + k as u32, k as u16, payload(n)),
                mss,
            ));
            k += 1;
        }
    }
    // Sequence numbers and IPv4 identifications that wrap, and the largest send a pcap record
    // holds (262144 bytes, libpcap's largest snap length: 256 KiB less 128 bytes of payload).
    edges.push((
        send(SEND_FORMS[0], 0x18, 0xFFFF_FFF0, 0xFFFF, payload(100)),
        8,
    ));
    edges.push((
        send(
            SEND_FORMS[2],
            0x99,
            0xFFFF_FFFF,
            0,
            payload(256 * 1024 - 128),
        ),
        9000,
    ));
    let n = edges.len();
    let mut rng = rng;
    let random = (0..count).map(move |_| {
        let form = (
            match rng.below(4) {
                0 => Some(0x8100),
                1 => Some(0x88A8),
                _ => None,
            },
            rng.one_in(2).then(|| rng.below(8) as u8),
            rng.below(11) as u8,
        );
        let mss = if rng.one_in(8) {
            rng.pick(&sets::MSS)
        } else {
            rng.range(64, 9000) as u16
        };
        let len = rng.below((8 * u64::from(mss)).min(32 * 1024) + 1) as usize;
        // ACK, and any of FIN, PSH, URG, ECE and CWR.
        let flags = 0x10 | (rng.next() as u8 & 0xE9);
        let (seq, ident) = (rng.next() as u32, rng.next() as u16);
        (send(form, flags, seq, ident, rng.bytes(len)), mss)
    });
    (n, Box::new(edges.into_iter().chain(random)))
}

//! `tso`: limits of any size up to `usize::MAX`, MSS values at the IP length limit, payloads at
//! every segment boundary, segment indexes past the end, output buffers one byte short, and the
//! sequence and identification numbers that wrap.

use crate::{config, edge_u16, edge_u32, edge_usize};
use proptest::prelude::*;
use rocenic_model::tso::{verify_segment, Error, Limits, Segmenter, Status};
use rocenic_model::wire::LinkType;

/// IPoIB + IPv4 (0 or 40 option bytes) or IPv6 + TCP (0 or 40 option bytes).
fn template(ipv4: bool, ip_options: bool, tcp_options: bool, ident: u16, seq: u32) -> Vec<u8> {
    let mut h = Vec::new();
    h.extend_from_slice(if ipv4 {
        &[0x08, 0x00, 0, 0]
    } else {
        &[0x86, 0xDD, 0, 0]
    });
    if ipv4 {
        let ol = if ip_options { 40 } else { 0 };
        h.extend_from_slice(&[0x45 + ol / 4, 0, 0, 0]);
        h.extend_from_slice(&ident.to_be_bytes());
        h.extend_from_slice(&[0x40, 0, 64, 6, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2]);
        h.extend(std::iter::repeat_n(1, usize::from(ol)));
    } else {
        h.extend_from_slice(&[0x60, 0, 0, 0, 0, 0, 6, 64]);
        h.extend((0..32).map(|i| i as u8));
    }
    let ol = if tcp_options { 40 } else { 0 };
    h.extend_from_slice(&[0x30, 0x39, 0x01, 0xBB]);
    h.extend_from_slice(&seq.to_be_bytes());
    h.extend_from_slice(&[0, 0, 0, 0, (5 + ol / 4) << 4, 0x89, 0xFF, 0xFF, 0, 0, 0, 0]);
    h.extend(std::iter::repeat_n(1, usize::from(ol)));
    h
}

/// What `Segmenter::new` must answer, decided in u128 in the order it documents.
fn expected(header: &[u8], ipv4: bool, payload: usize, mss: usize, l: Limits) -> Result<(), Error> {
    let (h, p, m) = (header.len() as u128, payload as u128, mss as u128);
    // The bytes the IP length field counts besides the payload.
    let ip_len = if ipv4 { h - 4 } else { h - 44 };
    if m == 0 {
        Err(Error::MssZero)
    } else if h > l.max_header as u128 {
        Err(Error::HeaderTooLong {
            len: header.len(),
            max: l.max_header,
        })
    } else if p > l.max_tso as u128 {
        Err(Error::PayloadTooLong {
            len: payload,
            max: l.max_tso,
        })
    } else if m > l.max_mss as u128 || ip_len + m > 0xFFFF {
        Err(Error::MssTooLarge(mss))
    } else {
        Ok(())
    }
}

fn near(values: &[i128], base: usize) -> Vec<usize> {
    values
        .iter()
        .filter_map(|d| usize::try_from(base as i128 + d).ok())
        .collect()
}

proptest! {
    #![proptest_config(config("tso::segmenter", 256))]

    /// Errors exactly as the u128 restatement says, for any limits; then every edge segment
    /// index: the segments' lengths, the buffer each needs, and the sequence and identification
    /// numbers wrapping modulo 2^32 and 2^16.
    #[test]
    fn limits_mss_and_segments_at_the_edges(
        shape in (any::<bool>(), any::<bool>(), any::<bool>()),
        ident in edge_u16(),
        seq in edge_u32(),
        payload_len in prop::sample::select(vec![0usize, 1, 2, 1459, 1460, 1461, 65_535, 65_536, 262_144]),
        mss_pick in (0usize..8, edge_usize()),
        limit_picks in (0usize..6, 0usize..6, 0usize..6, edge_usize(), edge_usize(), edge_usize()),
        index_pick in prop::collection::vec(0usize..8, 4),
        out_short in any::<bool>(),
    ) {
        let (ipv4, ip_options, tcp_options) = shape;
        let header = template(ipv4, ip_options, tcp_options, ident, seq);
        let ip_len = if ipv4 { header.len() - 4 } else { header.len() - 44 };
        let mss_choices = near(&[0, 1, 536, 1460, 9000, 9001], 0)
            .into_iter()
            .chain(near(&[-1, 0, 1], 0xFFFF - ip_len))
            .collect::<Vec<_>>();
        let mss = if mss_pick.0 < mss_choices.len() { mss_choices[mss_pick.0] } else { mss_pick.1 };
        let limit = |pick: usize, random: usize, base: usize| -> usize {
            near(&[-1, 0, 1], base).into_iter().chain([usize::MAX, usize::MAX - 1]).nth(pick).unwrap_or(random)
        };
        let limits = Limits {
            max_header: limit(limit_picks.0, limit_picks.3, header.len()),
            max_tso: limit(limit_picks.1, limit_picks.4, payload_len),
            max_mss: limit(limit_picks.2, limit_picks.5, mss),
        };
        let payload: Vec<u8> = (0..payload_len).map(|i| i as u8).collect();
        let made = Segmenter::new(LinkType::Ipoib, &header, &payload, mss, limits);
        prop_assert_eq!(made.map(|_| ()), expected(&header, ipv4, payload_len, mss, limits));
        let Ok(s) = made else { return Ok(()) };

        let n = (payload_len as u128).div_ceil(mss as u128).max(1);
        prop_assert_eq!(s.segment_count() as u128, n);
        let n = s.segment_count();
        let indexes = [0, 1, n.wrapping_sub(2), n - 1, n, n + 1, usize::MAX - 1, usize::MAX];
        let mut out = Vec::new();
        for pick in index_pick {
            let i = indexes[pick];
            if i >= n {
                prop_assert_eq!(s.segment_payload(i), Err(Error::NoSuchSegment(i)));
                prop_assert_eq!(s.segment_len(i), Err(Error::NoSuchSegment(i)));
                prop_assert_eq!(s.write_segment(i, &mut out), Err(Error::NoSuchSegment(i)));
                continue;
            }
            let start = (i as u128 * mss as u128).min(payload_len as u128) as usize;
            let end = (start as u128 + mss as u128).min(payload_len as u128) as usize;
            prop_assert_eq!(s.segment_payload(i), Ok(&payload[start..end]));
            let len = header.len() + end - start;
            prop_assert_eq!(s.segment_len(i), Ok(len));
            out.resize(len - usize::from(out_short), 0);
            if out_short {
                prop_assert_eq!(s.write_segment(i, &mut out), Err(Error::BufferTooSmall { needed: len }));
                continue;
            }
            prop_assert_eq!(s.write_segment(i, &mut out), Ok(len));
            let info = verify_segment(LinkType::Ipoib, &out).map_err(TestCaseError::fail)?;
            prop_assert_eq!(u128::from(info.seq), (u128::from(seq) + i as u128 * mss as u128) % (1 << 32));
            let want_ident = ipv4.then(|| ((u128::from(ident) + i as u128) % (1 << 16)) as u16);
            prop_assert_eq!(info.ipv4_ident, want_ident);
            prop_assert_eq!(info.payload, &payload[start..end]);
        }
    }
}

#[test]
fn status_codes_over_every_byte() {
    for code in 0..=u8::MAX {
        let s = Status::from_code(code);
        assert_eq!(s.code(), code);
        assert_eq!(matches!(s, Status::Unknown(_)), !Status::KNOWN.contains(&s));
    }
    let refusals = [
        (Error::MssZero, Status::MssZero),
        (Error::MssTooLarge(usize::MAX), Status::MssTooLarge),
        (
            Error::HeaderTooLong {
                len: usize::MAX,
                max: 0,
            },
            Status::HeaderTooLong,
        ),
        (
            Error::PayloadTooLong {
                len: usize::MAX,
                max: usize::MAX - 1,
            },
            Status::LenTooLong,
        ),
        (Error::NotTcp(""), Status::NotTcp),
        (Error::Malformed(""), Status::Malformed),
    ];
    for (e, s) in refusals {
        assert_eq!(Status::from_error(&e), s, "{e:?}");
    }
}

//! The pcap reader: files written with the model's header encoders read back record for
//! record, and cut files end in at most one `Truncated`.

use proptest::prelude::*;
use rocenic_model::wire::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn pcap_round_trip(
        link in prop_oneof![Just(LinkType::Ethernet.pcap()), Just(LinkType::Infiniband.pcap())],
        recs in proptest::collection::vec((any::<u32>(), 0u32..1_000_000, proptest::collection::vec(any::<u8>(), 0..80)), 0..8),
        cut in any::<prop::sample::Index>(),
    ) {
        let mut file = write_global_header(link, 65535).to_vec();
        for (s, us, data) in &recs {
            file.extend_from_slice(&record_header(*s, *us, data.len() as u32, data.len() as u32 + 4));
            file.extend_from_slice(data);
        }
        let r = PcapReader::new(&file).unwrap();
        prop_assert_eq!(r.link_type(), link);
        prop_assert_eq!(r.snaplen(), 65535);
        prop_assert!(!r.is_nanosecond() && !r.is_big_endian());
        let got: Vec<_> = r.records().collect::<Result<Vec<_>>>().unwrap();
        prop_assert_eq!(got.len(), recs.len());
        for (g, (s, us, data)) in got.iter().zip(&recs) {
            prop_assert_eq!((g.ts_sec, g.ts_frac, g.orig_len), (*s, *us, data.len() as u32 + 4));
            prop_assert_eq!(g.data, &data[..]);
        }
        // Cutting the file anywhere after the global header yields whole records, then at
        // most one Truncated, then the end.
        let n = 24 + cut.index(file.len() - 23);
        let r = PcapReader::new(&file[..n]).unwrap();
        let items: Vec<_> = r.records().collect();
        for (i, it) in items.iter().enumerate() {
            if it.is_err() {
                prop_assert_eq!(*it, Err(Error::Truncated));
                prop_assert_eq!(i, items.len() - 1);
            }
        }
    }
}

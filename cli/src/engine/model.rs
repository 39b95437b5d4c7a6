//! `--engine model`: every command's results from the reference model.

use crate::tso::{Emit, Job as TsoJob, Refusal};
use crate::{entropy, rss, toeplitz, tso, Failure};
use rocenic_model::entropy::{Entropy, Profile, Request};
use rocenic_model::rss::{classify, distribute, ContextView, Meta};
use rocenic_model::toeplitz::ToeplitzTable;
use rocenic_model::tso::{Limits, Segmenter};

/// The model; it keeps the last Toeplitz key's table, since rows usually share one key.
#[derive(Default)]
pub struct Model {
    toeplitz: Option<(Vec<u8>, ToeplitzTable)>,
}

impl entropy::Unit for Model {
    fn compute(
        &mut self,
        profile: Profile,
        batch: &[Request],
        _lines: &[u64],
    ) -> Result<Vec<Entropy>, Failure> {
        Ok(batch.iter().map(|r| profile.compute(r)).collect())
    }
}

impl rss::Unit for Model {
    /// Every packet through the model's parser, steering, hash and table.
    fn metas(
        &mut self,
        job: &rss::Job,
        _first: u64,
        frames: &[&[u8]],
    ) -> Result<Vec<Meta>, Failure> {
        let view = ContextView {
            context: job.context,
            table: job.table,
        };
        Ok(frames
            .iter()
            .map(|f| distribute(&classify(job.link, f), &[], &[view]))
            .collect())
    }
}

impl tso::Unit for Model {
    /// The segments of every packet, each emitted as it is written.
    fn segments(
        &mut self,
        job: &TsoJob,
        first: u64,
        packets: &[&[u8]],
        emit: &mut Emit,
    ) -> Result<(), Refusal> {
        let mut buf = Vec::new();
        for (i, (index, packet)) in (first..).zip(packets).enumerate() {
            let refuse = |e: rocenic_model::tso::Error| (Some(index), e.to_string());
            let s =
                Segmenter::from_frame(job.link, packet, usize::from(job.mss), Limits::default())
                    .map_err(refuse)?;
            for n in 0..s.segment_count() {
                buf.resize(s.segment_len(n).map_err(refuse)?, 0);
                let len = s.write_segment(n, &mut buf).map_err(refuse)?;
                emit(i, &buf[..len])?;
            }
        }
        Ok(())
    }
}

impl toeplitz::Unit for Model {
    fn hash(&mut self, key: &[u8], data: &[u8]) -> Result<u32, toeplitz::Bad> {
        // Rebuild the table only when the key changes.
        if self
            .toeplitz
            .as_ref()
            .is_none_or(|(cached, _)| cached != key)
        {
            let table = toeplitz::table_for(key).map_err(toeplitz::Bad::Key)?;
            self.toeplitz = Some((key.to_vec(), table));
        }
        let (_, table) = self.toeplitz.as_ref().expect("filled above");
        table
            .hash(data)
            .map_err(|e| toeplitz::Bad::Input(e.to_string()))
    }
}

//! `--engine model`: every command's results from the reference model.

use crate::tso::{Job as TsoJob, Refusal, Segments};
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
    fn metas(&mut self, job: &rss::Job) -> Result<Vec<Meta>, Failure> {
        let view = ContextView {
            context: job.context,
            table: job.table,
        };
        Ok(job
            .frames
            .iter()
            .map(|f| distribute(&classify(job.link, f), &[], &[view]))
            .collect())
    }
}

impl tso::Unit for Model {
    /// The segments of every packet, or the first packet the model refuses.
    fn segments(&mut self, job: &TsoJob) -> Result<Segments, Refusal> {
        job.packets
            .iter()
            .enumerate()
            .map(|(index, p)| {
                let s = Segmenter::from_frame(
                    job.link,
                    &p.data,
                    usize::from(job.mss),
                    Limits::default(),
                )
                .map_err(|e| (Some(index), e.to_string()))?;
                (0..s.segment_count())
                    .map(|i| {
                        let mut buf = vec![0u8; s.segment_len(i)];
                        s.write_segment(i, &mut buf)
                            .map_err(|e| (Some(index), e.to_string()))?;
                        Ok(buf)
                    })
                    .collect()
            })
            .collect()
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

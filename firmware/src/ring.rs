//! The doorbell rule both blocks apply, checked before the write: a producer index at most a
//! ring ahead of the last one rung moves it; a repeated or older one (up to 2^31 behind) is
//! passed on and ignored by the block; one further ahead would be ignored by the block too,
//! and is refused.

use rocenic_model::wqe::DoorbellError;

/// The last producer index after ringing `producer` over `posted` on a ring of `entries`.
pub(crate) fn ring(posted: u32, producer: u32, entries: u32) -> Result<u32, DoorbellError> {
    let ahead = producer.wrapping_sub(posted);
    if ahead > i32::MAX as u32 {
        return Ok(posted);
    }
    if ahead > entries {
        return Err(DoorbellError::TooFarAhead {
            written: producer,
            base: posted,
            entries,
        });
    }
    Ok(producer)
}

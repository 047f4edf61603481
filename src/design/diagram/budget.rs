//! What a layout may cost. A class diagram comes from the model or a cloned
//! repository, so its size is not ours to choose: a dense one would keep the layout
//! busy for minutes. The size is judged before the layout starts, and the time is
//! checked inside every loop of the work, so a layout either finishes within its
//! budget or gives up with the reason.

use std::time::{Duration, Instant};

/// Classes × relationships the layout takes on. The 200-class benchmark diagram
/// (200 × 250) is well inside; 100 classes linked every way (100 × 9,900) is far
/// outside.
pub const MAX_SIZE: usize = 120_000;

/// Rows of tracks a gap between two layers may take before further edges are cut.
pub const MAX_TRACKS: usize = 40;

/// Time the workbench gives one layout.
pub const TIME_BUDGET: Duration = Duration::from_millis(200);

/// Why a diagram was not laid out.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("{classes} classes × {relations} relationships is over the layout limit of {limit}")]
    TooLarge {
        classes: usize,
        relations: usize,
        limit: usize,
    },
    #[error("the layout took over {} ms", .0.as_millis())]
    TooSlow(Duration),
}

/// The limits one layout runs under.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    limit: usize,
    time: Option<(Instant, Duration)>,
    tracks: usize,
}

impl Budget {
    /// The workbench's: [`MAX_SIZE`], and [`TIME_BUDGET`] from now.
    pub fn standard() -> Budget {
        Budget::new(MAX_SIZE, Some(TIME_BUDGET))
    }

    /// No limit at all (tests, benchmarks, a drawing asked for on purpose).
    pub fn unlimited() -> Budget {
        Budget {
            limit: usize::MAX,
            time: None,
            tracks: MAX_TRACKS,
        }
    }

    /// At most `limit` classes × relationships, and `time` from now if given.
    pub fn new(limit: usize, time: Option<Duration>) -> Budget {
        Budget {
            limit,
            time: time.map(|t| (Instant::now(), t)),
            tracks: MAX_TRACKS,
        }
    }

    /// At most `tracks` rows of tracks in a gap between two layers; the edges that
    /// would need more are cut and tagged.
    pub fn with_tracks(self, tracks: usize) -> Budget {
        Budget { tracks, ..self }
    }

    pub fn tracks(&self) -> usize {
        self.tracks
    }

    /// Refuses a diagram over the size limit, before any work.
    pub fn admit(&self, classes: usize, relations: usize) -> Result<(), Refusal> {
        if classes.saturating_mul(relations) > self.limit {
            return Err(Refusal::TooLarge {
                classes,
                relations,
                limit: self.limit,
            });
        }
        Ok(())
    }

    /// Gives up once the time is spent (called inside the layout's loops).
    pub fn check(&self) -> Result<(), Refusal> {
        match self.time {
            Some((start, time)) if start.elapsed() > time => Err(Refusal::TooSlow(time)),
            _ => Ok(()),
        }
    }
}

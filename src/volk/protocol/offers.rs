//! What the person may do now, as the core decides it: the screen binds its keys to
//! these and the machine's guards refuse what they do not offer, so no client
//! restates a rule of the loop (codex shows an approval only because its core asked).

use crate::volk::protocol::{FinalizeReason, Phase};

/// Every decision open to the person in one state of the thread. A read-only client
/// is offered nothing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Offers {
    /// The cycle whose review the person answers now (questions or READY): the one
    /// awaiting review, or the one a cancelled update was revising.
    pub review: Option<u32>,
    /// Questions on the reviewed cycle finalize the design without another revision.
    pub last_cycle: bool,
    /// READY was answered (or forced): no question is written for this cycle until
    /// READY is withdrawn.
    pub past_review: bool,
    /// No question can be sent any more in this session.
    pub closed: bool,
    /// After the reflection: finalize.
    pub finalize: bool,
    /// After the reflection: back to the review (READY was a mistake).
    pub reopen: bool,
    /// Approve the execution plan, or steer it with a note.
    pub plan: bool,
    /// Run the failed or cancelled call again in this process.
    pub retry: bool,
    /// Stop the running call.
    pub cancel: bool,
}

impl Offers {
    /// The offers of `phase`, for a thread finalized for `finalize` (a forced finalize
    /// has no way back) with `max_cycles` cycles at most.
    pub fn of(phase: &Phase, finalize: FinalizeReason, max_cycles: u32) -> Offers {
        let review = phase.reviewed_cycle();
        // A failed or cancelled call counts as the step it resumes.
        let effective = phase.resume().unwrap_or(phase);
        let past_review = matches!(
            effective,
            Phase::Reflecting
                | Phase::AwaitingFinalize
                | Phase::Planning { .. }
                | Phase::AwaitingPlanApproval
                | Phase::Finalized
        );
        let closed = match effective {
            Phase::Planning { .. } | Phase::AwaitingPlanApproval | Phase::Finalized => true,
            Phase::Reflecting | Phase::AwaitingFinalize => finalize.is_forced(),
            _ => false,
        };
        let finalizing = *phase == Phase::AwaitingFinalize;
        Offers {
            review,
            last_cycle: max_cycles > 0 && review.is_some_and(|cycle| cycle >= max_cycles),
            past_review,
            closed,
            finalize: finalizing,
            reopen: finalizing && !finalize.is_forced(),
            plan: *phase == Phase::AwaitingPlanApproval,
            retry: phase.can_retry(),
            cancel: phase.is_busy(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_forced_finalize_offers_no_way_back() {
        let ready = Offers::of(&Phase::AwaitingFinalize, FinalizeReason::Ready, 3);
        assert!(ready.finalize && ready.reopen && !ready.closed && ready.past_review);
        let forced = Offers::of(&Phase::AwaitingFinalize, FinalizeReason::CycleLimit, 3);
        assert!(forced.finalize && !forced.reopen && forced.closed);
    }

    #[test]
    fn a_failed_call_counts_as_the_step_it_resumes() {
        let failed = Phase::Failed {
            resume: Box::new(Phase::Planning { attempt: 1 }),
            message: "HTTP 503".into(),
            retryable: true,
        };
        let offers = Offers::of(&failed, FinalizeReason::Ready, 3);
        assert!(offers.retry && offers.closed && !offers.plan && !offers.cancel);
        let refused = Phase::Failed {
            resume: Box::new(Phase::Designing { cycle: 1 }),
            message: "HTTP 401".into(),
            retryable: false,
        };
        assert!(!Offers::of(&refused, FinalizeReason::Ready, 3).retry);
    }

    #[test]
    fn the_last_cycle_is_offered_as_such() {
        let at = |cycle| Offers::of(&Phase::AwaitingReview { cycle }, FinalizeReason::Ready, 3);
        assert_eq!(at(2).review, Some(2));
        assert!(!at(2).last_cycle && at(3).last_cycle);
        assert!(
            !Offers::of(
                &Phase::AwaitingReview { cycle: 9 },
                FinalizeReason::Ready,
                0
            )
            .last_cycle
        );
    }
}

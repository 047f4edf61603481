//! A limit on concurrent calls to the model provider, so a burst of packets makes the
//! queue longer instead of multiplying 429 answers. Each call takes a permit before its
//! request starts and keeps it until its stream ends or is dropped.

use std::sync::Arc;

use futures_util::StreamExt as _;
use tokio::sync::Semaphore;

use crate::reasoner::{EventStream, Reasoner, ReasonerRequest, SharedReasoner};

pub struct Limited {
    inner: SharedReasoner,
    permits: Arc<Semaphore>,
}

impl Limited {
    pub fn wrap(inner: SharedReasoner, calls: usize) -> SharedReasoner {
        Arc::new(Limited {
            inner,
            permits: Arc::new(Semaphore::new(calls.max(1))),
        })
    }
}

impl Reasoner for Limited {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn model(&self) -> &str {
        self.inner.model()
    }

    fn label(&self) -> String {
        self.inner.label()
    }

    fn base_url(&self) -> Option<&str> {
        self.inner.base_url()
    }

    fn stream(&self, request: ReasonerRequest) -> EventStream {
        let permits = self.permits.clone();
        let inner = self.inner.clone();
        Box::pin(
            futures_util::stream::once(async move {
                let permit = permits.acquire_owned().await.ok();
                inner.stream(request).map(move |event| {
                    let _held = &permit;
                    event
                })
            })
            .flatten(),
        )
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use super::*;
    use crate::reasoner::{ReasonerError, StreamEvent};

    /// Counts calls in flight and records the most seen at once.
    struct Slow {
        now: Arc<AtomicUsize>,
        most: Arc<AtomicUsize>,
    }

    impl Reasoner for Slow {
        fn name(&self) -> &str {
            "slow"
        }
        fn model(&self) -> &str {
            "slow"
        }
        fn stream(&self, _request: ReasonerRequest) -> EventStream {
            let (now, most) = (self.now.clone(), self.most.clone());
            Box::pin(futures_util::stream::once(async move {
                let n = now.fetch_add(1, Ordering::SeqCst) + 1;
                most.fetch_max(n, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(20)).await;
                now.fetch_sub(1, Ordering::SeqCst);
                Err::<StreamEvent, _>(ReasonerError::Cancelled)
            }))
        }
    }

    #[tokio::test]
    async fn no_more_calls_run_at_once_than_the_limit() {
        let most = Arc::new(AtomicUsize::new(0));
        let slow: SharedReasoner = Arc::new(Slow {
            now: Arc::new(AtomicUsize::new(0)),
            most: most.clone(),
        });
        let limited = Limited::wrap(slow, 2);
        let calls = (0..8).map(|_| {
            let limited = limited.clone();
            tokio::spawn(async move {
                let request = ReasonerRequest {
                    purpose: crate::brief::Purpose::Design,
                    system: String::new(),
                    prompt: "p".into(),
                    max_tokens: 10,
                    brief: Arc::new(crate::brief::Brief::default()),
                };
                limited.stream(request).collect::<Vec<_>>().await
            })
        });
        for call in calls.collect::<Vec<_>>() {
            call.await.unwrap();
        }
        assert_eq!(most.load(Ordering::SeqCst), 2);
    }
}

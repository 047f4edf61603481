//! `volk serve`: a worker that takes packets from `CXP_IN` and processes each exactly as
//! `volk run` would.
//!
//! Per packet: the checks of a file packet (size, UTF-8, duplicate keys, sender), the
//! thread's lease, the ledger claim, then [`Setup::process`] with the lease renewed and
//! the message kept in progress while it runs, then the reply on `CXP_OUT`, the claim
//! marked done, and the ack, in that order. A worker killed anywhere in between leaves
//! a packet the server redelivers and a ledger entry at `started`, which the next
//! worker finishes through `volk run`'s own resume path.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_nats::jetstream::message::PublishMessage as Publish;
use async_nats::jetstream::{self, AckKind};
use futures_util::StreamExt as _;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use crate::bus::layout::Bus;
use crate::bus::lease::{Lease, Taken};
use crate::bus::names::{ledger_key, outbound_subject};
use crate::bus::record::{Record, Reply};
use crate::bus::state::StateRemote;
use crate::bus::{BusError, dlq, note};
use crate::cxp::Packet;
use crate::volk::headless::{Setup, accept};
use crate::volk::ledger::{Key, digest};

/// How a worker runs.
#[derive(Debug, Clone)]
pub struct WorkerConfig {
    /// Shown in leases, ledger entries and logs.
    pub name: String,
    /// Packets processed at once.
    pub concurrency: usize,
    /// The `flock` wait of `volk run` (`--lock-wait`).
    pub lock_wait: Duration,
    pub max_packet_bytes: u64,
}

/// How a packet's handling ended, for the message's acknowledgement.
enum Ending {
    /// Finished (replied, ignored or already answered): remove it from the queue.
    Ack,
    /// Not now (the thread is leased elsewhere, a step failed): deliver again later.
    Retry(Option<Duration>),
    /// Refused or given up on: store it in `CXP_DLQ` with the reason, then remove it.
    DeadLetter(String),
}

/// What became of the guarded step.
enum Guarded<T> {
    Finished(T),
    LeaseLost,
    Abandoned,
}

pub struct Worker {
    bus: Bus,
    setup: Setup,
    config: WorkerConfig,
    /// The lease value: the name plus what tells two processes of one name apart.
    holder: String,
    state: Option<StateRemote>,
}

impl Worker {
    pub fn new(bus: Bus, setup: Setup, config: WorkerConfig, state: Option<StateRemote>) -> Worker {
        let holder = format!(
            "{} (pid {}, {})",
            config.name,
            std::process::id(),
            &uuid::Uuid::new_v4().simple().to_string()[..8]
        );
        Worker {
            bus,
            setup,
            config,
            holder,
            state,
        }
    }

    /// Takes packets until `stop` is cancelled, then waits for the packets in hand;
    /// `abandon` cancels those too (they are handed back to the queue).
    pub async fn run(
        self,
        stop: CancellationToken,
        abandon: CancellationToken,
    ) -> Result<(), BusError> {
        let worker = Arc::new(self);
        let permits = Arc::new(Semaphore::new(worker.config.concurrency.max(1)));
        let mut tasks = tokio::task::JoinSet::new();
        note(&format!(
            "[bus] {} serving {} on {} (concurrency {}, ack wait {} s, lease {} s)",
            worker.config.name,
            worker.setup.workspace.display(),
            worker.bus.shown,
            worker.config.concurrency.max(1),
            worker.bus.timing.ack_wait.as_secs_f64(),
            worker.bus.timing.lease_ttl.as_secs_f64()
        ));
        loop {
            while tasks.try_join_next().is_some() {}
            let permit = tokio::select! {
                permit = permits.clone().acquire_owned() => match permit {
                    Ok(permit) => permit,
                    Err(_) => break,
                },
                _ = stop.cancelled() => break,
            };
            let batch = worker
                .bus
                .consumer
                .batch()
                .max_messages(1)
                .expires(Duration::from_secs(1))
                .messages();
            let mut batch = tokio::select! {
                batch = batch => batch,
                _ = stop.cancelled() => break,
            };
            let batch = match batch.as_mut() {
                Ok(batch) => batch,
                Err(e) => {
                    note(&format!(
                        "[bus] cannot pull from {}: {}",
                        worker.bus.shown,
                        BusError::new("pull", e)
                    ));
                    tokio::time::sleep(Duration::from_millis(500)).await;
                    continue;
                }
            };
            let message = tokio::select! {
                message = batch.next() => message,
                _ = stop.cancelled() => break,
            };
            match message {
                Some(Ok(message)) => {
                    let (worker, abandon) = (worker.clone(), abandon.clone());
                    tasks.spawn(async move {
                        worker.take(message, &abandon).await;
                        drop(permit);
                    });
                }
                Some(Err(e)) => {
                    note(&format!("[bus] {}", BusError::new("pull", e)));
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
                None => {}
            }
        }
        while tasks.try_join_next().is_some() {}
        if !tasks.is_empty() {
            note(&format!(
                "[bus] {} stopping: finishing {} packet(s) in hand",
                worker.config.name,
                tasks.len()
            ));
        }
        while tasks.join_next().await.is_some() {}
        note(&format!("[bus] {} stopped", worker.config.name));
        Ok(())
    }

    /// Handles one message and acknowledges it as its ending says.
    async fn take(&self, message: jetstream::Message, abandon: &CancellationToken) {
        let (sequence, delivered) = match message.info() {
            Ok(info) => (info.stream_sequence, info.delivered),
            Err(_) => (0, 1),
        };
        let ending = self.handle(&message, sequence, delivered, abandon).await;
        let acked = match ending {
            Ending::Ack => message.ack().await,
            Ending::Retry(delay) => message.ack_with(AckKind::Nak(delay)).await,
            Ending::DeadLetter(reason) => {
                note(&format!("[bus] dead letter CXP_IN#{sequence}: {reason}"));
                match dlq::store(
                    &self.bus,
                    &message,
                    sequence,
                    delivered,
                    &reason,
                    &self.config.name,
                )
                .await
                {
                    Ok(()) => message.ack().await,
                    Err(e) => {
                        note(&format!("[bus] {e}; the packet stays queued"));
                        message
                            .ack_with(AckKind::Nak(Some(Duration::from_secs(1))))
                            .await
                    }
                }
            }
        };
        if let Err(e) = acked {
            note(&format!(
                "[bus] {}",
                BusError::new(format!("cannot acknowledge CXP_IN#{sequence}"), e)
            ));
        }
    }

    async fn handle(
        &self,
        message: &jetstream::Message,
        sequence: u64,
        delivered: i64,
        abandon: &CancellationToken,
    ) -> Ending {
        let source = format!("CXP_IN#{sequence}");
        let limit = self.config.max_packet_bytes;
        if message.payload.len() as u64 > limit {
            return Ending::DeadLetter(format!(
                "{source}: the packet is larger than {limit} bytes (--max-packet-bytes); nothing was created"
            ));
        }
        let Ok(text) = std::str::from_utf8(&message.payload) else {
            return Ending::DeadLetter(format!("{source}: not UTF-8 text"));
        };
        let packet = match accept(&source, text) {
            Ok(packet) => packet,
            Err(e) => return Ending::DeadLetter(format!("{e:#}")),
        };
        let key = Key::of(&packet);
        let claim = ledger_key(&key);
        if let Some(Record::Done { .. }) = self.record(&claim).await {
            return Ending::Ack;
        }
        let thread = packet.header.thread_id.clone();
        let mut lease = match self.wait_for_lease(&thread, message, abandon).await {
            Ok(Some(lease)) => lease,
            Ok(None) => return Ending::Retry(Some(self.bus.timing.lease_ttl)),
            Err(e) => {
                note(&format!("[bus] {e}"));
                return Ending::Retry(Some(Duration::from_secs(1)));
            }
        };
        let ending = self
            .under_lease(
                message, packet, &key, &claim, &source, delivered, &mut lease, abandon,
            )
            .await;
        match ending {
            Some(ending) => {
                lease.release().await;
                ending
            }
            // The lease was lost: it is someone else's now; leave it alone.
            None => Ending::Retry(None),
        }
    }

    /// The part that runs while this worker holds the thread; `None` when the lease
    /// was lost midway.
    #[allow(clippy::too_many_arguments)]
    async fn under_lease(
        &self,
        message: &jetstream::Message,
        packet: Packet,
        key: &Key,
        claim: &str,
        source: &str,
        delivered: i64,
        lease: &mut Lease,
        abandon: &CancellationToken,
    ) -> Option<Ending> {
        // Another worker may have finished it while this one waited for the lease.
        let started = Record::Started {
            worker: self.config.name.clone(),
        };
        match self.record(claim).await {
            Some(Record::Done { .. }) => return Some(Ending::Ack),
            None => match self.bus.ledger.create(claim, started.to_bytes()).await {
                Ok(_) => {}
                Err(e) if e.kind() == async_nats::jetstream::kv::CreateErrorKind::AlreadyExists => {
                    if let Some(Record::Done { .. }) = self.record(claim).await {
                        return Some(Ending::Ack);
                    }
                }
                Err(e) => {
                    note(&format!(
                        "[bus] {}",
                        BusError::new(format!("ledger {claim}"), e)
                    ));
                    return Some(Ending::Retry(Some(Duration::from_secs(1))));
                }
            },
            Some(_) => {
                if let Err(e) = self.bus.ledger.put(claim, started.to_bytes()).await {
                    note(&format!(
                        "[bus] {}",
                        BusError::new(format!("ledger {claim}"), e)
                    ));
                    return Some(Ending::Retry(Some(Duration::from_secs(1))));
                }
            }
        }
        note(&format!(
            "[bus] {} took {source} ({} for thread {}, delivery {delivered})",
            self.config.name, key.subject, key.thread_id
        ));
        if let Some(state) = &self.state
            && let Err(e) = state.fetch(&self.setup.workspace, &key.thread_id)
        {
            note(&format!("[bus] {e}"));
            return Some(Ending::Retry(Some(Duration::from_secs(1))));
        }
        let step = self.setup.process(packet, source, self.config.lock_wait);
        let result = match self.guarded(step, lease, message, abandon).await {
            Guarded::Finished(result) => result,
            Guarded::LeaseLost => return None,
            Guarded::Abandoned => {
                note(&format!(
                    "[bus] {} abandoned {source}; another worker resumes it",
                    self.config.name
                ));
                return Some(Ending::Retry(None));
            }
        };
        let reply = match result {
            Ok(Some(outcome)) => match outcome.emitted.last() {
                Some((packet, _)) => {
                    // The state first: a reply goes out only for a step others can resume from.
                    if let Some(state) = &self.state
                        && let Err(e) = state.push(&outcome.project_dir, &key.thread_id)
                    {
                        note(&format!("[bus] {e}"));
                        return Some(Ending::Retry(Some(Duration::from_secs(1))));
                    }
                    match self.publish_reply(packet, claim).await {
                        Ok(reply) => Some(reply),
                        Err(e) => {
                            note(&format!("[bus] {e}"));
                            return Some(Ending::Retry(Some(Duration::from_secs(1))));
                        }
                    }
                }
                None => None,
            },
            Ok(None) => None,
            Err(e) if crate::error::is_bad_input(&e) => {
                let reason = format!("{e:#}");
                let refused = Record::Refused {
                    worker: self.config.name.clone(),
                    reason: reason.clone(),
                };
                let _ = self.bus.ledger.put(claim, refused.to_bytes()).await;
                return Some(Ending::DeadLetter(reason));
            }
            Err(e) => {
                let reason = crate::redact::scrub_text(&format!("{e:#}")).into_owned();
                if delivered >= self.bus.max_deliver {
                    return Some(Ending::DeadLetter(format!(
                        "{source}: gave up after {delivered} deliveries: {reason}"
                    )));
                }
                note(&format!(
                    "[bus] {source} failed (delivery {delivered}): {reason}; it will be retried"
                ));
                return Some(Ending::Retry(Some(Duration::from_secs(
                    delivered.max(1) as u64
                ))));
            }
        };
        let done = Record::Done {
            worker: self.config.name.clone(),
            reply: reply.clone(),
        };
        if let Err(e) = self.bus.ledger.put(claim, done.to_bytes()).await {
            note(&format!(
                "[bus] {}",
                BusError::new(format!("ledger {claim}"), e)
            ));
            return Some(Ending::Retry(Some(Duration::from_secs(1))));
        }
        if let Some(reply) = reply {
            note(&format!(
                "[bus] {} answered {source} on {} (CXP_OUT#{})",
                self.config.name, reply.subject, reply.seq
            ));
        }
        Some(Ending::Ack)
    }

    async fn record(&self, claim: &str) -> Option<Record> {
        let value = self.bus.ledger.get(claim).await.ok().flatten()?;
        Record::parse(&value)
    }

    /// Takes the thread's lease, waiting up to one lease TTL for its holder while the
    /// message is kept in progress; `None` when it is still held then.
    async fn wait_for_lease(
        &self,
        thread: &str,
        message: &jetstream::Message,
        abandon: &CancellationToken,
    ) -> Result<Option<Lease>, BusError> {
        let deadline = Instant::now() + self.bus.timing.lease_ttl;
        let mut last_progress = Instant::now();
        let mut told = false;
        loop {
            match Lease::take(&self.bus.leases, thread, &self.holder).await? {
                Taken::Held(lease) => return Ok(Some(*lease)),
                Taken::Busy(holder) => {
                    if !told {
                        note(&format!(
                            "[bus] {}: thread {thread} is leased by {holder}; waiting",
                            self.config.name
                        ));
                        told = true;
                    }
                    if Instant::now() >= deadline || abandon.is_cancelled() {
                        return Ok(None);
                    }
                    if last_progress.elapsed() >= self.heartbeat() {
                        let _ = message.ack_with(AckKind::Progress).await;
                        last_progress = Instant::now();
                    }
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            }
        }
    }

    /// A third of the shorter clock: two renewals can be missed before anything expires.
    fn heartbeat(&self) -> Duration {
        let timing = self.bus.timing;
        (timing.ack_wait.min(timing.lease_ttl) / 3).max(Duration::from_millis(100))
    }

    /// Runs `step` while renewing the lease and keeping the message in progress.
    async fn guarded<F: Future>(
        &self,
        step: F,
        lease: &mut Lease,
        message: &jetstream::Message,
        abandon: &CancellationToken,
    ) -> Guarded<F::Output> {
        let period = self.heartbeat();
        tokio::pin!(step);
        let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
        loop {
            tokio::select! {
                out = &mut step => return Guarded::Finished(out),
                _ = tick.tick() => {
                    if let Err(e) = lease.renew().await {
                        note(&format!("[bus] {}: {e}; stopping this step", self.config.name));
                        return Guarded::LeaseLost;
                    }
                    let _ = message.ack_with(AckKind::Progress).await;
                }
                _ = abandon.cancelled() => return Guarded::Abandoned,
            }
        }
    }

    /// Publishes the reply with the outbox digest as its message id, so a reply sent
    /// again after a crash is stored once.
    async fn publish_reply(&self, packet: &Packet, claim: &str) -> Result<Reply, BusError> {
        let json = packet.to_json_pretty();
        let id = serde_json::from_str(&json)
            .map(|value| digest(&value))
            .unwrap_or_default();
        let subject = outbound_subject(
            &packet.header.to_agent,
            &packet.header.thread_id,
            &packet.header.subject,
        );
        let ack = self
            .bus
            .js
            .send_publish(
                subject.clone(),
                Publish::build()
                    .payload(json.into_bytes().into())
                    .message_id(id)
                    .header("Volk-In-Reply-To", claim),
            )
            .await
            .map_err(|e| BusError::new(format!("cannot publish the reply on {subject}"), e))?
            .await
            .map_err(|e| BusError::new(format!("the reply on {subject} was not stored"), e))?;
        Ok(Reply {
            seq: ack.sequence,
            subject,
        })
    }
}

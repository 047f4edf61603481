//! The layout on the server (docs/bus.md): what `volk bus init` creates and every other
//! command opens. Everything here exists in nats-server 2.9: one subject filter per
//! consumer, no subject transforms, no per-message TTL.

use std::time::Duration;

use async_nats::jetstream::{self, consumer, kv, stream};

use crate::bus::BusError;
use crate::bus::address::BusAddress;

pub const STREAM_IN: &str = "CXP_IN";
pub const SUBJECTS_IN: &str = "cxp.in.>";
pub const STREAM_OUT: &str = "CXP_OUT";
pub const SUBJECTS_OUT: &str = "cxp.out.>";
/// Packets refused or given up on, with their reason; and the server's advisories for
/// packets that ran out of deliveries while their worker was dead.
pub const STREAM_DLQ: &str = "CXP_DLQ";
pub const SUBJECTS_DLQ: &str = "cxp.dlq.>";
pub const MAX_DELIVERIES_ADVISORY: &str =
    "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.CXP_IN.workers";
pub const CONSUMER: &str = "workers";
pub const LEASES: &str = "volk_leases";
pub const LEDGER: &str = "volk_ledger";

pub const ACK_WAIT: Duration = Duration::from_secs(60);
pub const MAX_DELIVER: i64 = 5;
pub const LEASE_TTL: Duration = Duration::from_secs(60);
pub const DUPLICATE_WINDOW: Duration = Duration::from_secs(600);
/// volk's packet limit: the largest message `CXP_IN` stores.
pub const MAX_MESSAGE: usize = crate::intake::DEFAULT_MAX_PACKET_BYTES as usize;

/// The two clocks of the layout. The defaults are the contract; tests shorten them so
/// that a killed worker's packet comes back in seconds, not minutes.
#[derive(Debug, Clone, Copy)]
pub struct Timing {
    pub ack_wait: Duration,
    pub lease_ttl: Duration,
}

impl Default for Timing {
    fn default() -> Timing {
        Timing {
            ack_wait: ACK_WAIT,
            lease_ttl: LEASE_TTL,
        }
    }
}

/// An open bus: the streams, the consumer and the buckets, with the clocks read back
/// from the server (a worker renews by what the bucket says, not by its own flags).
pub struct Bus {
    pub js: jetstream::Context,
    pub inbound: stream::Stream,
    pub outbound: stream::Stream,
    pub dlq: stream::Stream,
    pub consumer: consumer::PullConsumer,
    pub leases: kv::Store,
    pub ledger: kv::Store,
    pub timing: Timing,
    pub max_deliver: i64,
    pub shown: String,
}

impl Bus {
    /// Opens what `volk bus init` made; a missing piece says to run it.
    pub async fn open(address: &BusAddress, name: &str) -> Result<Bus, BusError> {
        let shown = address.shown();
        let client = address.connect(name).await?;
        let js = jetstream::new(client.clone());
        let missing = |what: &str, e: &dyn std::fmt::Display| {
            BusError::new(
                format!("{shown}: {what}"),
                format!("{e} (run `volk bus init --bus {shown}` first)"),
            )
        };
        let inbound = js
            .get_stream(STREAM_IN)
            .await
            .map_err(|e| missing(STREAM_IN, &e))?;
        let outbound = js
            .get_stream(STREAM_OUT)
            .await
            .map_err(|e| missing(STREAM_OUT, &e))?;
        let dlq = js
            .get_stream(STREAM_DLQ)
            .await
            .map_err(|e| missing(STREAM_DLQ, &e))?;
        let mut consumer: consumer::PullConsumer = inbound
            .get_consumer(CONSUMER)
            .await
            .map_err(|e| missing(CONSUMER, &e))?;
        let info = consumer
            .info()
            .await
            .map_err(|e| missing(CONSUMER, &e))?
            .config
            .clone();
        let leases = js
            .get_key_value(LEASES)
            .await
            .map_err(|e| missing(LEASES, &e))?;
        let ledger = js
            .get_key_value(LEDGER)
            .await
            .map_err(|e| missing(LEDGER, &e))?;
        let lease_ttl = leases
            .status()
            .await
            .map(|s| s.max_age())
            .unwrap_or(LEASE_TTL);
        Ok(Bus {
            js,
            inbound,
            outbound,
            dlq,
            consumer,
            leases,
            ledger,
            timing: Timing {
                ack_wait: info.ack_wait,
                lease_ttl: if lease_ttl.is_zero() {
                    LEASE_TTL
                } else {
                    lease_ttl
                },
            },
            max_deliver: info.max_deliver,
            shown,
        })
    }
}

/// Creates what is missing and says, one line each, what it created or found.
pub async fn init(address: &BusAddress, timing: Timing) -> Result<Vec<String>, BusError> {
    let shown = address.shown();
    let client = address.connect("volk bus init").await?;
    let js = jetstream::new(client.clone());
    let mut report = Vec::new();
    let max_payload = client.server_info().max_payload;
    let max_message = if max_payload < MAX_MESSAGE {
        report.push(format!(
            "warning: the server's max_payload is {max_payload} bytes, below volk's {MAX_MESSAGE}-byte packet limit; \
             larger packets are refused when published. Raise it with `max_payload: 8MB` in nats-server.conf and restart the server."
        ));
        max_payload
    } else {
        MAX_MESSAGE
    };
    let streams = [
        stream::Config {
            name: STREAM_IN.into(),
            subjects: vec![SUBJECTS_IN.into()],
            retention: stream::RetentionPolicy::WorkQueue,
            storage: stream::StorageType::File,
            duplicate_window: DUPLICATE_WINDOW,
            max_message_size: i32::try_from(max_message).unwrap_or(i32::MAX),
            description: Some("volk: inbound CXP packets (work queue)".into()),
            ..Default::default()
        },
        stream::Config {
            name: STREAM_OUT.into(),
            subjects: vec![SUBJECTS_OUT.into()],
            storage: stream::StorageType::File,
            duplicate_window: DUPLICATE_WINDOW,
            max_message_size: i32::try_from(max_message).unwrap_or(i32::MAX),
            allow_direct: true,
            description: Some("volk: outbound CXP packets (replies)".into()),
            ..Default::default()
        },
        stream::Config {
            name: STREAM_DLQ.into(),
            subjects: vec![SUBJECTS_DLQ.into(), MAX_DELIVERIES_ADVISORY.into()],
            storage: stream::StorageType::File,
            max_message_size: i32::try_from(max_message).unwrap_or(i32::MAX),
            description: Some("volk: dead letters and max-deliveries advisories".into()),
            ..Default::default()
        },
    ];
    for config in streams {
        let name = config.name.clone();
        match js.get_stream(&name).await {
            Ok(_) => report.push(format!("found stream {name}")),
            Err(_) => {
                js.create_stream(config).await.map_err(|e| {
                    BusError::new(format!("{shown}: cannot create stream {name}"), e)
                })?;
                report.push(format!("created stream {name}"));
            }
        }
    }
    let inbound = js
        .get_stream(STREAM_IN)
        .await
        .map_err(|e| BusError::new(format!("{shown}: {STREAM_IN}"), e))?;
    match inbound
        .get_consumer::<consumer::pull::Config>(CONSUMER)
        .await
    {
        Ok(_) => report.push(format!("found consumer {STREAM_IN}/{CONSUMER}")),
        Err(_) => {
            inbound
                .create_consumer(consumer::pull::Config {
                    durable_name: Some(CONSUMER.into()),
                    description: Some("volk serve workers".into()),
                    ack_policy: consumer::AckPolicy::Explicit,
                    ack_wait: timing.ack_wait,
                    max_deliver: MAX_DELIVER,
                    max_ack_pending: 10_000,
                    ..Default::default()
                })
                .await
                .map_err(|e| {
                    BusError::new(format!("{shown}: cannot create consumer {CONSUMER}"), e)
                })?;
            report.push(format!(
                "created consumer {STREAM_IN}/{CONSUMER} (explicit ack, ack wait {} s, {MAX_DELIVER} deliveries)",
                timing.ack_wait.as_secs_f64()
            ));
        }
    }
    // The bucket streams are made here rather than by `create_key_value`, whose account
    // query fails against a 2.9 server; the settings are those of a KV bucket.
    let buckets = [
        bucket(LEASES, "volk: one lease per thread", 1, timing.lease_ttl),
        bucket(
            LEDGER,
            "volk: exactly-once claims per thread, cycle and packet",
            5,
            Duration::ZERO,
        ),
    ];
    for (name, config) in buckets {
        match js.get_key_value(name).await {
            Ok(_) => report.push(format!("found bucket {name}")),
            Err(_) => {
                js.create_stream(config).await.map_err(|e| {
                    BusError::new(format!("{shown}: cannot create bucket {name}"), e)
                })?;
                report.push(format!("created bucket {name}"));
            }
        }
    }
    Ok(report)
}

/// The stream behind KV bucket `name`: one subject per key, `history` values kept,
/// values older than `max_age` dropped (zero: kept).
fn bucket(
    name: &'static str,
    description: &str,
    history: i64,
    max_age: Duration,
) -> (&'static str, stream::Config) {
    (
        name,
        stream::Config {
            name: format!("KV_{name}"),
            description: Some(description.into()),
            subjects: vec![format!("$KV.{name}.>")],
            max_messages_per_subject: history,
            max_age,
            storage: stream::StorageType::File,
            allow_rollup: true,
            deny_delete: true,
            allow_direct: true,
            discard: stream::DiscardPolicy::New,
            num_replicas: 1,
            ..Default::default()
        },
    )
}

//! Dead letters: packets refused (the checks of `volk run`, exit 2) or given up on after
//! their last delivery, kept in `CXP_DLQ` with the reason; and packets whose deliveries
//! ran out while every worker that took them died, which the server announces with a
//! max-deliveries advisory that `CXP_DLQ` also stores (the packet itself stays in
//! `CXP_IN`, unacknowledged, and is read from there).

use async_nats::HeaderMap;
use async_nats::jetstream::message::PublishMessage as Publish;
use serde::Deserialize;

use crate::bus::BusError;
use crate::bus::layout::{Bus, MAX_DELIVERIES_ADVISORY};

pub const REASON: &str = "Volk-Reason";
pub const SUBJECT: &str = "Volk-Subject";
pub const SEQUENCE: &str = "Volk-Sequence";
pub const DELIVERIES: &str = "Volk-Deliveries";
pub const WORKER: &str = "Volk-Worker";

/// Stores `message` (delivery `delivered` of `CXP_IN#sequence`) with its reason.
pub async fn store(
    bus: &Bus,
    message: &async_nats::jetstream::Message,
    sequence: u64,
    delivered: i64,
    reason: &str,
    worker: &str,
) -> Result<(), BusError> {
    let original = message.subject.as_str();
    let subject = format!(
        "cxp.dlq.{}",
        original.strip_prefix("cxp.in.").unwrap_or("unknown")
    );
    let mut headers = HeaderMap::new();
    headers.insert(REASON, one_line(reason).as_str());
    headers.insert(SUBJECT, original);
    headers.insert(SEQUENCE, sequence.to_string().as_str());
    headers.insert(DELIVERIES, delivered.to_string().as_str());
    headers.insert(WORKER, one_line(worker).as_str());
    bus.js
        .send_publish(
            subject.clone(),
            Publish::build()
                .payload(message.payload.clone())
                .headers(headers)
                .message_id(format!("dlq.{sequence}")),
        )
        .await
        .map_err(|e| BusError::new(format!("cannot store the dead letter on {subject}"), e))?
        .await
        .map_err(|e| BusError::new(format!("the dead letter on {subject} was not stored"), e))?;
    Ok(())
}

/// A header value: one line, at most 1000 bytes.
fn one_line(text: &str) -> String {
    let mut line: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if line.len() > 1000 {
        let mut end = 1000;
        while !line.is_char_boundary(end) {
            end -= 1;
        }
        line.truncate(end);
    }
    line
}

/// One dead letter as `volk bus dlq list` shows it.
#[derive(Debug, Clone)]
pub struct DeadLetter {
    /// Its sequence in `CXP_DLQ`.
    pub seq: u64,
    /// The subject it was published on in `CXP_IN`.
    pub subject: String,
    pub inbound_seq: u64,
    pub deliveries: i64,
    pub reason: String,
    /// The packet; `None` when it is gone from `CXP_IN` (an advisory of one replayed
    /// or deleted by hand).
    pub payload: Option<bytes::Bytes>,
}

#[derive(Deserialize)]
struct Advisory {
    stream_seq: u64,
    deliveries: i64,
}

/// Every dead letter, oldest first.
pub async fn list(bus: &Bus) -> Result<Vec<DeadLetter>, BusError> {
    let info = bus
        .dlq
        .get_info()
        .await
        .map_err(|e| BusError::new("CXP_DLQ", e))?;
    let mut letters = Vec::new();
    if info.state.messages == 0 {
        return Ok(letters);
    }
    for seq in info.state.first_sequence..=info.state.last_sequence {
        let Ok(message) = bus.dlq.get_raw_message(seq).await else {
            continue;
        };
        let header = |name: &str| {
            message
                .headers
                .get(name)
                .map(|v| v.as_str().to_string())
                .unwrap_or_default()
        };
        if message.subject.as_str() == MAX_DELIVERIES_ADVISORY {
            let Ok(advisory) = serde_json::from_slice::<Advisory>(&message.payload) else {
                continue;
            };
            let original = bus.inbound.get_raw_message(advisory.stream_seq).await.ok();
            letters.push(DeadLetter {
                seq,
                subject: original
                    .as_ref()
                    .map(|m| m.subject.to_string())
                    .unwrap_or_default(),
                inbound_seq: advisory.stream_seq,
                deliveries: advisory.deliveries,
                reason: format!(
                    "delivered {} times without an acknowledgement (each worker that took it died or stalled)",
                    advisory.deliveries
                ),
                payload: original.map(|m| m.payload),
            });
        } else {
            letters.push(DeadLetter {
                seq,
                subject: header(SUBJECT),
                inbound_seq: header(SEQUENCE).parse().unwrap_or(0),
                deliveries: header(DELIVERIES).parse().unwrap_or(0),
                reason: header(REASON),
                payload: Some(message.payload),
            });
        }
    }
    Ok(letters)
}

/// Publishes dead letters again on their `CXP_IN` subject (all of them, or the one whose
/// `CXP_DLQ` sequence is `only`) and removes them from `CXP_DLQ`; returns a line each.
pub async fn replay(bus: &Bus, only: Option<u64>) -> Result<Vec<String>, BusError> {
    let mut report = Vec::new();
    for letter in list(bus).await? {
        if only.is_some_and(|seq| seq != letter.seq) {
            continue;
        }
        let Some(payload) = letter.payload.clone() else {
            report.push(format!(
                "CXP_DLQ#{}: the packet is no longer in CXP_IN; removed",
                letter.seq
            ));
            let _ = bus.dlq.delete_message(letter.seq).await;
            continue;
        };
        let subject = if letter.subject.starts_with("cxp.in.") {
            letter.subject.clone()
        } else {
            "cxp.in._new.replayed".to_string()
        };
        // A new id: the original one may still be inside the duplicate window.
        let ack = bus
            .js
            .send_publish(
                subject.clone(),
                Publish::build()
                    .payload(payload)
                    .message_id(format!("replay.{}.{}", letter.inbound_seq, letter.seq)),
            )
            .await
            .map_err(|e| BusError::new(format!("cannot replay on {subject}"), e))?
            .await
            .map_err(|e| BusError::new(format!("the replay on {subject} was not stored"), e))?;
        let _ = bus.dlq.delete_message(letter.seq).await;
        if letter.reason.starts_with("delivered ") {
            let _ = bus.inbound.delete_message(letter.inbound_seq).await;
        }
        report.push(format!(
            "CXP_DLQ#{} replayed on {subject} as CXP_IN#{}",
            letter.seq, ack.sequence
        ));
    }
    if let Some(seq) = only
        && report.is_empty()
    {
        return Err(BusError(format!("CXP_DLQ#{seq}: no such dead letter")));
    }
    Ok(report)
}

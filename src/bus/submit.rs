//! `volk submit`: one packet onto `CXP_IN`, and with `--wait` its reply.
//!
//! The reply is found through the ledger, not by listening to `CXP_OUT`: the packet's
//! `volk_ledger` key says `done` with the reply's place, so a resend of a packet
//! answered long ago prints the same reply at once, whoever answered it.

use std::time::Duration;

use async_nats::jetstream::message::PublishMessage as Publish;
use futures_util::StreamExt as _;

use crate::BadInput;
use crate::bus::BusError;
use crate::bus::layout::Bus;
use crate::bus::names::{inbound_subject, ledger_key};
use crate::bus::record::Record;
use crate::cxp::{Inbound, Packet};
use crate::volk::ledger::Key;

/// What a submit published.
#[derive(Debug)]
pub struct Submitted {
    pub subject: String,
    pub id: String,
    pub seq: u64,
    pub duplicate: bool,
}

/// Publishes `text` (already read and checked as `packet`) with the ledger key as id.
pub async fn publish(bus: &Bus, packet: &Packet, text: &str) -> Result<Submitted, BusError> {
    let key = Key::of(packet);
    let opens = matches!(packet.classify("packet"), Ok(Inbound::Design(_)));
    let subject = inbound_subject(&key, opens);
    let id = ledger_key(&key);
    let ack = bus
        .js
        .send_publish(
            subject.clone(),
            Publish::build()
                .payload(text.to_string().into_bytes().into())
                .message_id(&id),
        )
        .await
        .map_err(|e| BusError::new(format!("cannot publish on {subject}"), e))?
        .await
        .map_err(|e| BusError::new(format!("{subject}: not stored"), e))?;
    Ok(Submitted {
        subject,
        id,
        seq: ack.sequence,
        duplicate: ack.duplicate,
    })
}

/// The reply to the packet whose ledger key is `id`, waiting up to `wait`.
/// `Ok(None)`: answered without a reply (a packet not for the architect).
pub async fn reply(
    bus: &Bus,
    id: &str,
    wait: Duration,
    seen: Option<u64>,
) -> anyhow::Result<Option<Packet>> {
    let mut watch = bus
        .ledger
        .watch_with_history(id)
        .await
        .map_err(|e| BusError::new(format!("ledger {id}"), e))?;
    let deadline = tokio::time::Instant::now() + wait;
    loop {
        let entry = match tokio::time::timeout_at(deadline, watch.next()).await {
            Err(_) => {
                return Err(anyhow::Error::new(BusError(format!(
                    "no reply within {} s; the packet stays queued ({id})",
                    wait.as_secs()
                ))));
            }
            Ok(None) => {
                return Err(anyhow::Error::new(BusError(format!(
                    "ledger {id}: the watch ended"
                ))));
            }
            Ok(Some(entry)) => entry.map_err(|e| BusError::new(format!("ledger {id}"), e))?,
        };
        match Record::parse(&entry.value) {
            Some(Record::Done { reply: None, .. }) => return Ok(None),
            Some(Record::Done {
                reply: Some(reply), ..
            }) => {
                let message = bus
                    .outbound
                    .get_raw_message(reply.seq)
                    .await
                    .map_err(|e| BusError::new(format!("CXP_OUT#{}", reply.seq), e))?;
                let text = String::from_utf8_lossy(&message.payload);
                let packet = Packet::parse(&format!("CXP_OUT#{}", reply.seq), &text)
                    .map_err(|e| BusError::new("the reply", e))?;
                return Ok(Some(packet));
            }
            Some(Record::Refused { reason, .. }) if seen.is_none_or(|r| entry.revision > r) => {
                return Err(BadInput::err(reason));
            }
            _ => {}
        }
    }
}

/// The revision of a refusal already on record, so a resend waits for the new verdict.
pub async fn refused_revision(bus: &Bus, id: &str) -> Option<u64> {
    let entry = bus.ledger.entry(id).await.ok().flatten()?;
    matches!(Record::parse(&entry.value), Some(Record::Refused { .. })).then_some(entry.revision)
}

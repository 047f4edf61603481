//! `volk bus status`: what the bus holds and who works on what.

use futures_util::StreamExt as _;

use crate::bus::BusError;
use crate::bus::layout::Bus;
use crate::bus::names::untoken;
use crate::bus::record::Record;

/// The report, one line each, threads sorted.
pub async fn report(bus: &mut Bus) -> Result<Vec<String>, BusError> {
    let mut lines = Vec::new();
    let inbound = bus
        .inbound
        .get_info()
        .await
        .map_err(|e| BusError::new("CXP_IN", e))?;
    let outbound = bus
        .outbound
        .get_info()
        .await
        .map_err(|e| BusError::new("CXP_OUT", e))?;
    let consumer = bus
        .consumer
        .info()
        .await
        .map_err(|e| BusError::new("consumer workers", e))?
        .clone();
    let dead = crate::bus::dlq::list(bus).await?.len();
    lines.push(format!("bus {}", bus.shown));
    lines.push(format!(
        "CXP_IN: {} queued, {} waiting for a worker, {} in progress, {} redelivered",
        inbound.state.messages,
        consumer.num_pending,
        consumer.num_ack_pending,
        consumer.num_redelivered
    ));
    lines.push(format!("CXP_OUT: {} replies", outbound.state.messages));
    lines.push(format!("dead letters: {dead} (volk bus dlq list)"));

    let mut threads: std::collections::BTreeMap<String, Thread> = Default::default();
    let mut keys = bus
        .leases
        .keys()
        .await
        .map_err(|e| BusError::new("volk_leases", e))?;
    while let Some(key) = keys.next().await {
        let Ok(key) = key else { continue };
        let holder = bus
            .leases
            .get(&key)
            .await
            .ok()
            .flatten()
            .map(|v| String::from_utf8_lossy(&v).into_owned());
        if let Some(holder) = holder {
            threads
                .entry(untoken(&key).unwrap_or(key))
                .or_default()
                .holder = Some(holder);
        }
    }
    let mut keys = bus
        .ledger
        .keys()
        .await
        .map_err(|e| BusError::new("volk_ledger", e))?;
    while let Some(key) = keys.next().await {
        let Ok(key) = key else { continue };
        let mut parts = key.split('.');
        let (Some(thread), Some(cycle), Some(subject)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let Some(record) = bus
            .ledger
            .get(&key)
            .await
            .ok()
            .flatten()
            .and_then(|v| Record::parse(&v))
        else {
            continue;
        };
        let thread = threads
            .entry(untoken(thread).unwrap_or_default())
            .or_default();
        let state = match record {
            Record::Started { worker } => format!("started by {worker}"),
            Record::Done { reply: Some(r), .. } => format!("done, reply CXP_OUT#{}", r.seq),
            Record::Done { reply: None, .. } => "done, no reply".to_string(),
            Record::Refused { .. } => "refused".to_string(),
        };
        thread.packets.push(format!(
            "cycle {cycle} {}: {state}",
            untoken(subject).unwrap_or_default()
        ));
    }
    lines.push(format!("threads: {}", threads.len()));
    for (id, thread) in threads {
        let holder = thread
            .holder
            .map(|h| format!("leased by {h}"))
            .unwrap_or_else(|| "not leased".into());
        lines.push(format!(
            "  {} ({holder}): {}",
            crate::echo::escape_controls(&id),
            thread.packets.join("; ")
        ));
    }
    Ok(lines)
}

#[derive(Default)]
struct Thread {
    holder: Option<String>,
    packets: Vec<String>,
}

//! A thread's lease in `volk_leases`: one worker at a time may touch a thread.
//!
//! Creating the key takes the lease (the server refuses a second create); renewing is
//! a compare-and-set on the revision, so a worker that was paused past the TTL and
//! lost its lease finds out at its next renewal instead of writing beside the new
//! holder. Entries expire with the bucket's max age, which is how a killed worker's
//! lease ends. The local `flock` of `volk run` stays underneath as a second guard.

use async_nats::jetstream::kv;

use crate::bus::BusError;
use crate::bus::names::lease_key;

/// A lease this worker holds.
pub struct Lease {
    store: kv::Store,
    key: String,
    value: bytes::Bytes,
    revision: u64,
}

/// What an attempt to take a thread found.
pub enum Taken {
    Held(Box<Lease>),
    /// Another worker holds it; its value names the holder.
    Busy(String),
}

impl Lease {
    pub async fn take(store: &kv::Store, thread_id: &str, holder: &str) -> Result<Taken, BusError> {
        let key = lease_key(thread_id);
        let value = bytes::Bytes::from(holder.to_string());
        match store.create(&key, value.clone()).await {
            Ok(revision) => Ok(Taken::Held(Box::new(Lease {
                store: store.clone(),
                key,
                value,
                revision,
            }))),
            Err(e) if e.kind() == kv::CreateErrorKind::AlreadyExists => {
                let holder = store
                    .get(&key)
                    .await
                    .ok()
                    .flatten()
                    .map(|v| String::from_utf8_lossy(&v).into_owned())
                    .unwrap_or_else(|| "another worker".into());
                Ok(Taken::Busy(holder))
            }
            Err(e) => Err(BusError::new(format!("lease {key}"), e)),
        }
    }

    /// Extends the lease by one TTL; an error means it was lost (expired and taken).
    pub async fn renew(&mut self) -> Result<(), BusError> {
        let revision = self
            .store
            .update(&self.key, self.value.clone(), self.revision)
            .await
            .map_err(|e| BusError::new(format!("lease {} was lost", self.key), e))?;
        self.revision = revision;
        Ok(())
    }

    /// Gives the thread back now rather than at expiry; a lease already lost stays
    /// with its new holder (the delete is conditional on our revision).
    pub async fn release(self) {
        let _ = self
            .store
            .delete_expect_revision(&self.key, Some(self.revision))
            .await;
    }
}

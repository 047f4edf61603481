//! The value of a `volk_ledger` key: the claim on one packet of one thread and cycle,
//! and where its reply is.

use serde::{Deserialize, Serialize};

/// Where the reply is stored: a message of `CXP_OUT`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reply {
    pub seq: u64,
    pub subject: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum Record {
    /// Claimed by `worker`; a redelivery that finds this takes `volk run`'s resume path.
    Started { worker: String },
    /// Answered; `reply` is absent for a packet that is not for the architect.
    Done {
        worker: String,
        #[serde(default)]
        reply: Option<Reply>,
    },
    /// Refused as `volk run` refuses bad input (exit 2); a resend is checked again.
    Refused { worker: String, reason: String },
}

impl Record {
    pub fn to_bytes(&self) -> bytes::Bytes {
        bytes::Bytes::from(serde_json::to_vec(self).unwrap_or_default())
    }

    /// `None` for a value volk never writes (someone else's key): treated as absent.
    pub fn parse(bytes: &[u8]) -> Option<Record> {
        serde_json::from_slice(bytes).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_value_says_started_or_done_and_where_the_reply_is() {
        let done = Record::Done {
            worker: "w1".into(),
            reply: Some(Reply {
                seq: 7,
                subject: "cxp.out.J_Junior.t.design_review".into(),
            }),
        };
        let text = String::from_utf8(done.to_bytes().to_vec()).unwrap();
        assert!(
            text.starts_with(r#"{"state":"done","worker":"w1","reply":{"seq":7"#),
            "{text}"
        );
        assert_eq!(Record::parse(text.as_bytes()), Some(done));
        assert_eq!(Record::parse(b"junk"), None);
    }
}

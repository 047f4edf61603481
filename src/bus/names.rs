//! Thread ids, agent names and subjects as NATS subject tokens and KV keys.
//!
//! A packet's strings are anything a sender wrote; a subject token may not hold `.`,
//! `*`, `>` or white space, and a KV key only `[-/_=.a-zA-Z0-9]`. Every other byte
//! (and `=` itself) is written `=XX`, its hex value, so the mapping is reversible and
//! two different ids never share a token. In agent names `:` is written `_`
//! (`J:Junior` → `J_Junior`), the form a subscriber types.

use crate::volk::ledger::Key;

/// `text` as one subject token and one KV key segment.
pub fn token(text: &str) -> String {
    if text.is_empty() {
        return "=".to_string();
    }
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'_' => out.push(byte as char),
            other => out.push_str(&format!("={other:02X}")),
        }
    }
    out
}

/// The inverse of [`token`]; `None` for a text [`token`] never writes.
pub fn untoken(token: &str) -> Option<String> {
    if token == "=" {
        return Some(String::new());
    }
    let bytes = token.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'=' {
            let hex = token.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// An agent name as a token: `:` becomes `_`, the rest as [`token`].
pub fn agent_token(agent: &str) -> String {
    token(&agent.replace(':', "_"))
}

/// `cxp.in.<thread>.<subject>` for a packet of a thread; `cxp.in._new.<digest>` for one
/// that opens a thread (a design subject).
pub fn inbound_subject(key: &Key, opens_thread: bool) -> String {
    if opens_thread {
        format!("cxp.in._new.{}", key.digest)
    } else {
        format!("cxp.in.{}.{}", token(&key.thread_id), token(&key.subject))
    }
}

/// `cxp.out.<to_agent>.<thread>.<subject>`.
pub fn outbound_subject(to_agent: &str, thread_id: &str, subject: &str) -> String {
    format!(
        "cxp.out.{}.{}.{}",
        agent_token(to_agent),
        token(thread_id),
        token(subject)
    )
}

/// The `volk_ledger` key `<thread>.<cycle>.<subject>.<digest>` (cycle `0` for a design
/// subject, which has none). Also the packet's `Nats-Msg-Id`: the payload digest alone
/// would let two threads that send the same payload (a bare READY for cycle 1) be taken
/// for one message.
pub fn ledger_key(key: &Key) -> String {
    format!(
        "{}.{}.{}.{}",
        token(&key.thread_id),
        key.design_cycle.unwrap_or(0),
        token(&key.subject),
        key.digest
    )
}

/// The `volk_leases` key of a thread.
pub fn lease_key(thread_id: &str) -> String {
    token(thread_id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_keep_the_safe_characters_and_encode_the_rest_reversibly() {
        assert_eq!(token("thread-042_a"), "thread-042_a");
        assert_eq!(token("a.b c*>"), "a=2Eb=20c=2A=3E");
        assert_eq!(token("x=y"), "x=3Dy");
        assert_eq!(token("é"), "=C3=A9");
        for text in ["a.b c*>", "x=y", "é/ü", "", "plain"] {
            assert_eq!(untoken(&token(text)).as_deref(), Some(text));
        }
        assert_ne!(token("a.b"), token("a=2Eb"));
        assert_eq!(agent_token("J:Junior"), "J_Junior");
        assert_eq!(
            outbound_subject("U:Cd", "t 1", "implement"),
            "cxp.out.U_Cd.t=201.implement"
        );
    }

    #[test]
    fn every_key_character_is_one_nats_allows() {
        let key = Key {
            subject: "design_feedback".into(),
            thread_id: "weird/ thread.*>\u{1b}".into(),
            design_cycle: Some(3),
            digest: "ab12".into(),
        };
        let k = ledger_key(&key);
        assert!(
            k.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-/_=.".contains(&b))
        );
        assert_eq!(k.split('.').count(), 4);
        assert!(inbound_subject(&key, false).starts_with("cxp.in.weird=2F"));
        assert_eq!(inbound_subject(&key, true), "cxp.in._new.ab12");
    }
}

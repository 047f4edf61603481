//! API keys. A key is read from the environment and only ever leaves this type as an
//! HTTP header value marked sensitive; its `Debug` hides it, it has no `Display`, and
//! every message built from a server's reply is scrubbed of it, because providers
//! sometimes echo (part of) the key they refused.

use std::fmt;
use std::sync::{Arc, OnceLock};

use crate::redact::Redactor;

/// A provider credential.
#[derive(Clone)]
pub struct ApiKey {
    value: String,
    /// The environment variable it came from, named in messages instead of the key.
    variable: String,
    /// Every recognisable form of the key, built on first use.
    redactor: OnceLock<Arc<Redactor>>,
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ApiKey(${}, hidden)", self.variable)
    }
}

impl ApiKey {
    /// Reads `variable`; an unset or blank variable is no key.
    pub fn from_env(variable: &str) -> Option<ApiKey> {
        let value = std::env::var(variable).ok()?;
        let value = value.trim().to_string();
        if value.is_empty() {
            return None;
        }
        Some(ApiKey::new(variable, value))
    }

    /// A key given directly (tests and embedding programs).
    pub fn new(variable: impl Into<String>, value: impl Into<String>) -> ApiKey {
        ApiKey {
            value: value.into(),
            variable: variable.into(),
            redactor: OnceLock::new(),
        }
    }

    pub fn variable(&self) -> &str {
        &self.variable
    }

    /// The key as a header value, marked sensitive so that no debug output shows it.
    pub(crate) fn header(&self, prefix: &str) -> Option<reqwest::header::HeaderValue> {
        let mut value =
            reqwest::header::HeaderValue::from_str(&format!("{prefix}{}", self.value)).ok()?;
        value.set_sensitive(true);
        Some(value)
    }

    /// Finds the key literally, in base64 (also of `Bearer KEY`), percent-encoded and
    /// hex; shared by the stream wrapper, the cassette and error messages.
    pub fn redactor(&self) -> Arc<Redactor> {
        self.redactor
            .get_or_init(|| Arc::new(Redactor::for_keys(&[self.value.as_str()])))
            .clone()
    }

    /// Makes every file writer, the log and the error line of this process scrub it.
    pub fn register(&self) {
        crate::redact::register(&self.value);
    }

    /// `text` with every form of the key, and any word that looks like a masked copy
    /// of it, replaced.
    pub fn scrub(&self, text: &str) -> String {
        scrub(&self.redactor().scrub(text), &self.value)
    }
}

/// Replaces `key` in `text`, then every word that starts with the key's first eight
/// characters or ends with its last six (the forms providers use to quote a key back).
fn scrub(text: &str, key: &str) -> String {
    if key.len() < 8 {
        return if key.is_empty() {
            text.to_string()
        } else {
            text.replace(key, "[redacted]")
        };
    }
    let replaced = text.replace(key, "[redacted]");
    let head = &key[..key.char_indices().nth(8).map_or(key.len(), |(i, _)| i)];
    let tail_start = key.char_indices().rev().nth(5).map_or(0, |(i, _)| i);
    let tail = &key[tail_start..];
    let mut out = String::with_capacity(replaced.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        let trimmed = word.trim_end_matches(|c: char| ".,;:'\")".contains(c));
        if !trimmed.is_empty() && (trimmed.starts_with(head) || trimmed.ends_with(tail)) {
            out.push_str("[redacted]");
            out.push_str(&word[trimmed.len()..]);
        } else {
            out.push_str(word);
        }
        word.clear();
    };
    for c in replaced.chars() {
        if c.is_whitespace() {
            flush(&mut word, &mut out);
            out.push(c);
        } else {
            word.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_hides_the_value() {
        let key = ApiKey::new("OPENAI_API_KEY", "sk-test-1234567890abcdef");
        let shown = format!("{key:?}");
        assert!(!shown.contains("1234567890"), "{shown}");
        assert!(shown.contains("OPENAI_API_KEY"));
    }

    #[test]
    fn scrub_removes_whole_and_masked_copies() {
        let key = ApiKey::new("K", "sk-proj-ABCDEFGHIJKLMNOP");
        let text = "Incorrect API key provided: sk-proj-****************KLMNOP. Also sk-proj-ABCDEFGHIJKLMNOP here";
        let out = key.scrub(text);
        assert!(!out.contains("ABCDEFGHIJKLMNOP"), "{out}");
        assert!(!out.contains("KLMNOP"), "{out}");
        assert!(
            out.contains("Incorrect API key provided: [redacted]."),
            "{out}"
        );
    }

    #[test]
    fn scrub_removes_encoded_copies() {
        let key = ApiKey::new("K", "sk-proj-ABCDEFGHIJKLMNOP");
        let text = "echo c2stcHJvai1BQkNERUZHSElKS0xNTk9Q and sk%2Dproj%2DABCDEFGHIJKLMNOP";
        let out = key.scrub(text);
        assert_eq!(out, "echo [redacted] and [redacted]");
    }

    #[test]
    fn scrub_leaves_other_text_alone() {
        let key = ApiKey::new("K", "secret-value-xyz-123");
        assert_eq!(key.scrub("model not found"), "model not found");
    }
}

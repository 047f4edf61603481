//! Bounded, unambiguous inbound packets: a size limit checked while reading (so a
//! 200 MB packet costs 8 MiB of memory, not 2 GB, and creates nothing), and duplicate
//! keys refused the way `volk plan check` refuses them (serde would keep the last one
//! silently, so two readers of one packet could disagree on what it says).

use std::io::Read as _;

use crate::BadInput;
use crate::plan::json::{Node, Value};

/// The default limit for an inbound packet: 8 MiB.
pub const DEFAULT_MAX_PACKET_BYTES: u64 = 8 * 1024 * 1024;

/// Reads the packet at `source` (`-` for standard input), at most `limit` bytes.
/// Returns the name used in messages and the text.
pub fn read_packet(source: &str, limit: u64) -> anyhow::Result<(String, String)> {
    let name = if source == "-" {
        "<stdin>".to_string()
    } else {
        source.to_string()
    };
    let reader: Box<dyn std::io::Read> = if source == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        let file = std::fs::File::open(source)
            .map_err(|e| BadInput::err(format!("{name}: cannot read: {e}")))?;
        if let Ok(meta) = file.metadata()
            && meta.is_file()
            && meta.len() > limit
        {
            return Err(too_big(&name, limit));
        }
        Box::new(file)
    };
    let mut bytes = Vec::new();
    reader
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| BadInput::err(format!("{name}: cannot read: {e}")))?;
    if bytes.len() as u64 > limit {
        return Err(too_big(&name, limit));
    }
    let text = String::from_utf8(bytes)
        .map_err(|e| BadInput::err(format!("{name}: not UTF-8 text: {e}")))?;
    Ok((name, text))
}

fn too_big(name: &str, limit: u64) -> anyhow::Error {
    BadInput::err(format!(
        "{name}: the packet is larger than {limit} bytes (--max-packet-bytes); nothing was created"
    ))
}

/// The first key that appears twice in one object of `text`: its JSON pointer, line and
/// column. `None` for a document without duplicates (or one that does not parse: the
/// syntax error is reported by the caller's own parser).
pub fn duplicate_key(text: &str) -> Option<(String, usize, usize)> {
    let root = crate::plan::json::parse(text).ok()?;
    let mut path = String::new();
    let offset = find(&root, &mut path)?;
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
    Some((path, line, column))
}

fn find(node: &Node<'_>, path: &mut String) -> Option<usize> {
    match &node.value {
        Value::Object(members) => {
            let mut seen = std::collections::HashSet::with_capacity(members.len());
            for member in members {
                if !seen.insert(member.key.as_ref()) {
                    path.push('/');
                    path.push_str(&member.key);
                    return Some(member.key_span.start);
                }
            }
            for member in members {
                let len = path.len();
                path.push('/');
                path.push_str(&member.key);
                if let Some(offset) = find(&member.value, path) {
                    return Some(offset);
                }
                path.truncate(len);
            }
            None
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let len = path.len();
                path.push_str(&format!("/{i}"));
                if let Some(offset) = find(item, path) {
                    return Some(offset);
                }
                path.truncate(len);
            }
            None
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_second_key_with_its_place() {
        let text = "{\"header\": {\"subject\": \"a\",\n \"subject\": \"b\"}}";
        assert_eq!(
            duplicate_key(text),
            Some(("/header/subject".to_string(), 2, 2))
        );
        assert_eq!(duplicate_key(r#"{"a": [{"b": 1}, {"b": 2}]}"#), None);
        assert_eq!(
            duplicate_key(r#"{"a": [{"b": 1, "b": 2}]}"#).map(|d| d.0),
            Some("/a/0/b".to_string())
        );
    }
}

//! Requirement and ADR ids as a person reads them: `FR-1`, `FR-01` and `FR-001` are one
//! id, so every comparison goes through [`Id`], never through the text.

use std::fmt;
use std::ops::Range;

/// The family of an id: the letters before the dash.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IdKind {
    /// `FR-`: a functional requirement.
    Functional,
    /// `NFR-`: a non-functional requirement.
    NonFunctional,
    /// `ERR-`: an error-handling requirement.
    Error,
    /// `ADR-`: an architecture decision record.
    Decision,
}

impl IdKind {
    pub fn prefix(self) -> &'static str {
        match self {
            IdKind::Functional => "FR",
            IdKind::NonFunctional => "NFR",
            IdKind::Error => "ERR",
            IdKind::Decision => "ADR",
        }
    }

    /// True for the three requirement families.
    pub fn is_requirement(self) -> bool {
        self != IdKind::Decision
    }

    fn from_prefix(prefix: &[u8]) -> Option<IdKind> {
        match prefix {
            b"FR" => Some(IdKind::Functional),
            b"NFR" => Some(IdKind::NonFunctional),
            b"ERR" => Some(IdKind::Error),
            b"ADR" => Some(IdKind::Decision),
            _ => None,
        }
    }
}

/// A normalised id: the family and the number, leading zeros gone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Id {
    pub kind: IdKind,
    pub number: u64,
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{:02}", self.kind.prefix(), self.number)
    }
}

impl Id {
    /// Reads a whole string as one id (`fr-7` is accepted: the command line is typed).
    pub fn parse(text: &str) -> Option<Id> {
        let upper = text.trim().to_ascii_uppercase();
        let found = scan(&upper);
        match found.as_slice() {
            [one] if one.span == (0..upper.len()) => Some(one.id),
            _ => None,
        }
    }
}

/// One id written in a text, with its byte range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdAt {
    pub id: Id,
    pub span: Range<usize>,
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Every id in `text`, in order. An id must stand as a word of its own: `XFR-1` and
/// `FR-1a` are not ids. Numbers too long for a `u64` are skipped, never a panic.
pub fn scan(text: &str) -> Vec<IdAt> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    for dash in memchr::memchr_iter(b'-', bytes) {
        let mut start = dash;
        while start > 0 && bytes[start - 1].is_ascii_uppercase() && dash - start < 3 {
            start -= 1;
        }
        let Some(kind) = IdKind::from_prefix(&bytes[start..dash]) else {
            continue;
        };
        if start > 0 && is_word_byte(bytes[start - 1]) {
            continue;
        }
        let digits = bytes[dash + 1..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        let end = dash + 1 + digits;
        if digits == 0 || (end < bytes.len() && is_word_byte(bytes[end])) {
            continue;
        }
        let Some(number) = text.get(dash + 1..end).and_then(|d| d.parse::<u64>().ok()) else {
            continue;
        };
        out.push(IdAt {
            id: Id { kind, number },
            span: start..end,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leading_zeros_do_not_matter() {
        let ids: Vec<Id> = scan("FR-1, FR-01 and FR-001")
            .into_iter()
            .map(|i| i.id)
            .collect();
        assert_eq!(ids.len(), 3);
        assert!(ids.iter().all(|i| *i == ids[0]));
        assert_eq!(ids[0].to_string(), "FR-01");
    }

    #[test]
    fn ids_are_whole_words() {
        assert!(scan("XFR-1 FR-1a FR- ADR-x").is_empty());
        let found = scan("(NFR-02) ERR-3; **ADR-004**");
        let kinds: Vec<IdKind> = found.iter().map(|i| i.id.kind).collect();
        assert_eq!(
            kinds,
            [IdKind::NonFunctional, IdKind::Error, IdKind::Decision]
        );
        assert_eq!(&"(NFR-02)"[found[0].span.clone()], "NFR-02");
    }

    #[test]
    fn parse_accepts_one_id_only() {
        assert_eq!(
            Id::parse("fr-007"),
            Some(Id {
                kind: IdKind::Functional,
                number: 7
            })
        );
        assert_eq!(Id::parse("FR-1 FR-2"), None);
        assert_eq!(Id::parse("FR-99999999999999999999999"), None);
    }
}

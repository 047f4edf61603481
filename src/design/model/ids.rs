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

/// A normalised id: the family and the number, leading zeros gone; `sub` is the
/// sub-requirement of a hierarchical id (`FR-3.1` is FR-3's first), 0 for none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Id {
    pub kind: IdKind,
    pub number: u64,
    pub sub: u64,
}

impl Id {
    /// The requirement a sub-requirement belongs to (itself when it is none).
    pub fn parent(self) -> Id {
        Id { sub: 0, ..self }
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{:02}", self.kind.prefix(), self.number)?;
        if self.sub > 0 {
            write!(f, ".{}", self.sub)?;
        }
        Ok(())
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
        let mut end = dash + 1 + digits;
        if digits == 0 || (end < bytes.len() && is_word_byte(bytes[end])) {
            continue;
        }
        let Some(number) = text.get(dash + 1..end).and_then(|d| d.parse::<u64>().ok()) else {
            continue;
        };
        // `FR-3.1`: a sub-requirement, when digits follow the dot and end the word.
        let mut sub = 0;
        if bytes.get(end) == Some(&b'.') {
            let sub_digits = bytes[end + 1..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
            let sub_end = end + 1 + sub_digits;
            let ends_word = sub_end >= bytes.len()
                || !(is_word_byte(bytes[sub_end])
                    || bytes[sub_end] == b'.'
                        && bytes.get(sub_end + 1).is_some_and(u8::is_ascii_digit));
            if sub_digits > 0
                && ends_word
                && let Some(n) = text
                    .get(end + 1..sub_end)
                    .and_then(|d| d.parse::<u64>().ok())
                && n > 0
            {
                sub = n;
                end = sub_end;
            }
        }
        out.push(IdAt {
            id: Id { kind, number, sub },
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
    fn sub_requirements_are_their_own_ids() {
        let found = scan("FR-3.1 and FR-3. then FR-03.2, [FR-01]");
        let ids: Vec<String> = found.iter().map(|i| i.id.to_string()).collect();
        assert_eq!(ids, ["FR-03.1", "FR-03", "FR-03.2", "FR-01"]);
        assert_eq!(found[0].id.parent(), found[1].id);
    }

    #[test]
    fn parse_accepts_one_id_only() {
        assert_eq!(
            Id::parse("fr-007"),
            Some(Id {
                kind: IdKind::Functional,
                number: 7,
                sub: 0
            })
        );
        assert_eq!(Id::parse("FR-1 FR-2"), None);
        assert_eq!(Id::parse("FR-99999999999999999999999"), None);
    }
}

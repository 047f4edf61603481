//! Candidate symbol names in requirements prose: CapWords, `backticked` identifiers
//! and dotted paths.
//!
//! Matching is exact against the index, so a candidate that names nothing costs
//! nothing; the rules below only keep ordinary English out (a capitalised word that
//! opens a sentence or a list item is prose, not a name).

use serde::Serialize;

/// At most this many distinct candidates are looked up; requirements naming more
/// types than this would overflow the prompt budget anyway.
const MAX_CANDIDATES: usize = 200;

/// Common words that look like identifiers inside backticks but never name a symbol
/// worth injecting.
const NOT_NAMES: [&str; 12] = [
    "self", "Self", "None", "none", "null", "nil", "true", "false", "True", "False", "this",
    "super",
];

/// Capitalised English function words that often open a clause mid-line ("… So that").
const COMMON_WORDS: [&str; 24] = [
    "The", "And", "But", "For", "With", "When", "Then", "Given", "After", "Before", "Each",
    "Every", "All", "Any", "This", "That", "These", "Those", "Not", "Yes", "Also", "Only", "Once",
    "While",
];

/// File extensions: in `config.toml` the last segment is not a name.
const EXTENSIONS: [&str; 18] = [
    "md", "txt", "json", "toml", "yaml", "yml", "rs", "py", "ts", "tsx", "js", "go", "java",
    "html", "css", "lock", "com", "org",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WordSource {
    /// `TaskQueue`, or a capitalised word inside a sentence.
    CapWord,
    /// Inside backticks: `` `task_queue::push` ``.
    Backticked,
    /// The last segment of a path written in prose: `billing.invoices.render`.
    DottedPath,
}

/// One name to look up, with the text it came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Candidate {
    pub name: String,
    pub source: WordSource,
    /// The text as written (the whole backticked span or dotted path).
    pub written: String,
}

/// The candidates of `text`, each name once, in order of first appearance.
pub fn candidates(text: &str) -> Vec<Candidate> {
    let mut out: Vec<Candidate> = Vec::new();
    let mut push = |name: &str, source: WordSource, written: &str| {
        if out.len() < MAX_CANDIDATES && !out.iter().any(|c| c.name == name) {
            out.push(Candidate {
                name: name.to_string(),
                source,
                written: written.to_string(),
            });
        }
    };
    let mut rest = text;
    let mut offset = 0;
    // Alternate between prose and backticked spans.
    while let Some(open) = rest.find('`') {
        prose(text, offset, &rest[..open], &mut push);
        let after = &rest[open + 1..];
        match after.find(['`', '\n']) {
            Some(close) if after[close..].starts_with('`') => {
                backticked(&after[..close], &mut push);
                let consumed = open + 1 + close + 1;
                offset += consumed;
                rest = &rest[consumed..];
            }
            _ => {
                offset += open + 1;
                rest = after;
            }
        }
    }
    prose(text, offset, rest, &mut push);
    out
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

fn is_identifier(s: &str) -> bool {
    s.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && s.chars().all(is_ident_char)
}

/// Starts with a capital and has a lowercase letter (so `HTTP`, `FR-1` are not).
fn is_capitalised(word: &str) -> bool {
    word.starts_with(|c: char| c.is_ascii_uppercase())
        && word.chars().any(|c| c.is_ascii_lowercase())
        && word.chars().all(is_ident_char)
}

/// More than one capitalised hump: `TaskQueue`, `HTTPServer`, `UserV2Store`.
fn is_compound(word: &str) -> bool {
    let chars: Vec<char> = word.chars().collect();
    (1..chars.len()).any(|i| {
        let c = chars[i];
        let before = chars[i - 1];
        let after = chars.get(i + 1).copied();
        c.is_ascii_uppercase()
            && (before.is_ascii_lowercase()
                || before.is_ascii_digit()
                || (before.is_ascii_uppercase() && after.is_some_and(|a| a.is_ascii_lowercase())))
    })
}

/// Whether the word at `start` of `text` opens a sentence, a line or a list item.
fn opens_sentence(text: &str, start: usize) -> bool {
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let prefix = &text[line_start..start];
    if prefix
        .chars()
        .all(|c| c.is_whitespace() || c.is_ascii_digit() || "-*+#>.)[]|•◦·–—".contains(c))
    {
        return true;
    }
    let last = prefix.trim_end().chars().last();
    matches!(last, Some('.' | '!' | '?' | ':' | '"' | '(' | '—'))
}

/// Whether the line around `start` is written in Title Case (a heading such as
/// "Initial Architecture Generation"), where capitals mark style, not names.
fn in_title_case_line(text: &str, start: usize) -> bool {
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    // Short lowercase words ("of", "the") are lowercase in Title Case too: not counted.
    let words: Vec<&str> = text[line_start..line_end]
        .split(|c: char| !c.is_alphabetic())
        .filter(|w| w.len() > 3 || w.starts_with(char::is_uppercase))
        .collect();
    let capitalised = words
        .iter()
        .filter(|w| w.starts_with(char::is_uppercase))
        .count();
    words.len() >= 3 && capitalised * 4 >= words.len() * 3
}

/// A single capitalised word is a name only when it is not ordinary English: not at
/// the start of a sentence, not a function word, not in a Title Case heading.
fn single_word_is_name(text: &str, start: usize, word: &str) -> bool {
    word.len() >= 3
        && !COMMON_WORDS.contains(&word)
        && !opens_sentence(text, start)
        && !in_title_case_line(text, start)
}

fn backticked(span: &str, push: &mut impl FnMut(&str, WordSource, &str)) {
    for segment in span.split(|c: char| !is_ident_char(c)) {
        if !is_identifier(segment) || NOT_NAMES.contains(&segment) {
            continue;
        }
        let long_enough =
            segment.len() >= 3 || segment.starts_with(|c: char| c.is_ascii_uppercase());
        if long_enough {
            push(segment, WordSource::Backticked, span);
        }
    }
}

/// The identifier-like tokens of `chunk` with their byte offsets: identifiers joined by
/// `.` or `::`. A lone `:` separates (`U:Ar` is two words, `core::Packet` one path).
fn tokens(chunk: &str) -> Vec<(usize, &str)> {
    let chars: Vec<(usize, char)> = chunk.char_indices().collect();
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    for (n, &(i, c)) in chars.iter().enumerate() {
        let doubled_colon = c == ':'
            && (chars.get(n + 1).is_some_and(|&(_, next)| next == ':')
                || n.checked_sub(1)
                    .and_then(|p| chars.get(p))
                    .is_some_and(|&(_, prev)| prev == ':'));
        let in_token = is_ident_char(c) || c == '.' || doubled_colon;
        match (in_token, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push((s, &chunk[s..i]));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, &chunk[s..]));
    }
    out
}

/// Candidates in a stretch of prose that starts at byte `base` of `text`.
fn prose(text: &str, base: usize, chunk: &str, push: &mut impl FnMut(&str, WordSource, &str)) {
    for (offset, raw) in tokens(chunk) {
        let start = base + offset;
        let trimmed_front = raw.trim_start_matches(['.', ':']);
        let token = trimmed_front.trim_end_matches(['.', ':']);
        if token.is_empty() {
            continue;
        }
        let segments: Vec<&str> = token.split(['.', ':']).filter(|s| !s.is_empty()).collect();
        if segments.len() > 1 {
            for segment in &segments {
                if is_capitalised(segment) {
                    push(segment, WordSource::CapWord, token);
                }
            }
            if let Some(last) = segments.last()
                && last.len() >= 3
                && !EXTENSIONS.contains(last)
                && segments.iter().all(|s| is_identifier(s))
            {
                push(last, WordSource::DottedPath, token);
            }
            continue;
        }
        if !is_capitalised(token) {
            continue;
        }
        let word_start = start + (raw.len() - trimmed_front.len());
        if is_compound(token) || single_word_is_name(text, word_start, token) {
            push(token, WordSource::CapWord, token);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str) -> Vec<String> {
        candidates(text).into_iter().map(|c| c.name).collect()
    }

    #[test]
    fn plain_lowercase_request_has_no_candidates() {
        assert!(names("add a task").is_empty());
    }

    #[test]
    fn compound_capwords_are_found_anywhere() {
        assert_eq!(
            names("TaskQueue must call HTTPServer. Retry later."),
            vec!["TaskQueue", "HTTPServer"]
        );
    }

    #[test]
    fn single_capitalised_words_count_only_inside_a_sentence() {
        assert_eq!(names("Users can ask the Scheduler."), vec!["Scheduler"]);
        assert_eq!(
            names("- Scheduler runs nightly\n1. Add it"),
            Vec::<String>::new()
        );
    }

    #[test]
    fn backticked_identifiers_and_paths() {
        assert_eq!(
            names("use `task_queue::push` and `build_context(root)`, not `id`"),
            vec!["task_queue", "push", "build_context", "root"]
        );
    }

    #[test]
    fn dotted_paths_give_their_last_segment_and_capwords() {
        assert_eq!(
            names("call billing.invoices.render_pdf or core.Packet; see config.toml"),
            vec!["render_pdf", "Packet"]
        );
    }

    #[test]
    fn each_name_once_in_order_of_appearance() {
        assert_eq!(
            names("the TaskQueue and `TaskQueue` again"),
            vec!["TaskQueue"]
        );
    }

    #[test]
    fn headings_bullets_and_function_words_are_prose() {
        let text = "US-001: Initial Architecture Generation (Critical)\n\n\
                    As a user I want it So that the Ar works\n\
                    • All sections written. The parser uses the Scheduler and the TaskQueue.";
        assert_eq!(names(text), vec!["Scheduler", "TaskQueue"]);
        assert!(names("• Updated design docs written").is_empty());
        assert!(names("US-003: Monorepo Context Injection (Critical)").is_empty());
        assert_eq!(names("sent to J:Junior by U:Ar"), Vec::<String>::new());
    }

    proptest::proptest! {
        /// Any text, however odd its characters, gives candidates without panicking.
        #[test]
        fn never_panics(text in proptest::prelude::any::<String>()) {
            let _ = candidates(&text);
            let _ = candidates(&format!("• Über {text} `Ça::Va` x.Größe — TaskQueue"));
        }
    }

    #[test]
    fn unclosed_backtick_is_prose() {
        assert_eq!(names("a `TaskQueue without end"), vec!["TaskQueue"]);
    }
}

//! What the offline drafter reads from a scope a person wrote: the requirement items
//! (list items, grouped by the heading above them) and the kind of system. A scope is
//! a Markdown document with headings, prose, bullets and numbered lists; only list
//! items are requirements, and their text is kept exactly as written, because the
//! drafted requirements are what the reviewer checks against what they asked for.

/// The family a requirement item belongs to, from the heading it sits under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    Functional,
    NonFunctional,
    Error,
}

/// One requirement item as the person wrote it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    pub family: Family,
    /// The item's words without its list marker; the lines of an item that runs
    /// over several lines are joined with one space, as Markdown reads them.
    pub text: String,
}

/// What a heading (or a label line such as `Functional:`) says about the items under it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Section {
    Items(Family),
    /// Context, out-of-scope lists, questions: not requirements.
    Skip,
}

fn classify(heading: &str) -> Section {
    let h = heading.to_ascii_lowercase();
    let any = |words: &[&str]| words.iter().any(|w| h.contains(w));
    if any(&[
        "non-functional",
        "nonfunctional",
        "non functional",
        "quality",
        "constraint",
        "performance",
    ]) {
        Section::Items(Family::NonFunctional)
    } else if any(&["error", "failure"]) {
        Section::Items(Family::Error)
    } else if [
        "out of scope",
        "not in scope",
        "non-goal",
        "non goal",
        "background",
        "context",
        "glossary",
        "reference",
        "open question",
        "question",
        "note",
    ]
    .iter()
    .any(|w| h.starts_with(w))
    {
        Section::Skip
    } else {
        Section::Items(Family::Functional)
    }
}

/// The text after a list marker (`- `, `* `, `+ `, `1. `, `1) `), if `line` is a list item.
fn list_item(line: &str) -> Option<&str> {
    let t = line.trim_start();
    let rest = if let Some(r) = t.strip_prefix(['-', '*', '+']) {
        r
    } else {
        let digits = t.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 || digits > 9 {
            return None;
        }
        t[digits..].strip_prefix(['.', ')'])?
    };
    if !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
        return None;
    }
    Some(rest.trim())
}

/// A Markdown heading's words, or a short line that only labels what follows
/// (`Functional requirements:`, `**Non-functional**`).
fn heading(line: &str) -> Option<&str> {
    let t = line.trim();
    let hashes = t.bytes().take_while(|b| *b == b'#').count();
    if (1..=6).contains(&hashes) && t[hashes..].starts_with(' ') {
        return Some(t[hashes..].trim().trim_end_matches('#').trim());
    }
    let bold = t
        .strip_prefix("**")
        .and_then(|b| b.strip_suffix("**").or_else(|| b.strip_suffix("**:")));
    if let Some(label) = bold.filter(|b| !b.contains("**")) {
        return Some(label.trim().trim_end_matches(':'));
    }
    (t.ends_with(':') && t.len() <= 60 && !t[..t.len() - 1].contains([':', '.']))
        .then(|| t.trim_end_matches(':'))
}

fn is_fence(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("```") || t.starts_with("~~~")
}

/// Every requirement item of `scope`, in order. A scope without any list item is read
/// one requirement per line of prose (headings and fenced code still skipped).
pub fn requirement_items(scope: &str) -> Vec<Item> {
    let listed = read(scope, true);
    if listed.is_empty() {
        read(scope, false)
    } else {
        listed
    }
}

fn read(scope: &str, lists_only: bool) -> Vec<Item> {
    let mut out: Vec<Item> = Vec::new();
    let mut section = Section::Items(Family::Functional);
    let mut in_fence = false;
    // The last line was part of an item, so a following prose line continues it.
    let mut open_item = false;
    for line in scope.lines() {
        if is_fence(line) {
            in_fence = !in_fence;
            open_item = false;
            continue;
        }
        if in_fence {
            continue;
        }
        if line.trim().is_empty() {
            open_item = false;
            continue;
        }
        if list_item(line).is_none()
            && let Some(h) = heading(line)
        {
            section = classify(h);
            open_item = false;
            continue;
        }
        let Section::Items(family) = section else {
            continue;
        };
        let text = match list_item(line) {
            Some(text) => text,
            None if open_item && lists_only => {
                if let Some(last) = out.last_mut() {
                    last.text.push(' ');
                    last.text.push_str(line.trim());
                }
                continue;
            }
            None if lists_only => continue,
            None => line.trim(),
        };
        if text.is_empty() {
            continue;
        }
        out.push(Item {
            family,
            text: text.to_string(),
        });
        open_item = true;
    }
    out
}

/// The kind of system a scope asks for, which decides the drafted entry point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SystemKind {
    /// A command-line program: `Cli` and `main(argv)`.
    Cli,
    /// A service answering HTTP requests: `Api`, `serve` and `handle`.
    WebService,
}

/// Counts the words that name each kind; a scope that names neither is drafted as a
/// command-line program.
pub fn system_kind(scope: &str) -> SystemKind {
    let mut web = 0;
    let mut cli = 0;
    for word in scope
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '-')
        .map(str::to_ascii_lowercase)
    {
        match word.as_str() {
            "http" | "https" | "web" | "api" | "rest" | "endpoint" | "endpoints" | "url"
            | "urls" | "browser" | "website" | "server" | "service" | "redirect" | "redirects"
            | "html" | "webhook" => web += 1,
            "cli" | "command" | "commands" | "command-line" | "terminal" | "shell" => cli += 1,
            _ => {}
        }
    }
    if web > cli {
        SystemKind::WebService
    } else {
        SystemKind::Cli
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCOPE: &str = "# URL shortener\n\nA small web service.\n\n## Functional requirements\n\n- Shorten a long URL\n  into a code\n1. Redirect a code to its URL\n\n## Non-functional\n\n* 2,000 redirects/s on one core\n\n## Out of scope\n\n- Accounts\n\n```\n- not an item\n```\n";

    #[test]
    fn only_list_items_are_requirements_and_their_text_is_kept() {
        let items = requirement_items(SCOPE);
        let got: Vec<(Family, &str)> = items.iter().map(|i| (i.family, i.text.as_str())).collect();
        assert_eq!(
            got,
            [
                (Family::Functional, "Shorten a long URL into a code"),
                (Family::Functional, "Redirect a code to its URL"),
                (Family::NonFunctional, "2,000 redirects/s on one core"),
            ]
        );
    }

    #[test]
    fn prose_lines_are_the_fallback_and_labels_are_headings() {
        let items = requirement_items("Functional:\nAdd tasks\nList tasks\n");
        let got: Vec<&str> = items.iter().map(|i| i.text.as_str()).collect();
        assert_eq!(got, ["Add tasks", "List tasks"]);
        assert!(list_item("2,000 redirects/s").is_none());
        assert_eq!(list_item("12) Export"), Some("Export"));
        assert!(list_item("-x").is_none());
    }

    #[test]
    fn the_kind_of_system_comes_from_the_scope() {
        assert_eq!(system_kind(SCOPE), SystemKind::WebService);
        assert_eq!(system_kind("Build a task CLI"), SystemKind::Cli);
        assert_eq!(system_kind("Mark tasks complete"), SystemKind::Cli);
    }
}

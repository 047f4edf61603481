//! Mermaid `classDiagram`: classes, members and relationships, each with its place,
//! and the first syntax fault with its place. Written by hand because the Mermaid
//! crates on crates.io are renderers that report class-diagram faults without a
//! position (see docs/architecture.md). The reader is tolerant: after a fault it goes
//! on, so the workbench and the rules still see every class it can recognise.

use foldhash::fast::FixedState;
use std::collections::HashMap;
use std::ops::Range;

use super::text::{is_fence, is_ident_char, lines};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MemberKind {
    Method,
    Attribute,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// The method or attribute name (`save`, `path`).
    pub name: String,
    pub kind: MemberKind,
    /// As written, without the visibility mark.
    pub text: String,
    /// `+`, `-`, `#`, `~` or nothing.
    pub visibility: Option<char>,
    pub span: Range<usize>,
    /// The capitalised type names it uses (parameters, return, attribute type), with
    /// their places, for D033.
    pub types: Vec<(String, Range<usize>)>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiagramClass {
    pub name: String,
    pub members: Vec<Member>,
    pub annotations: Vec<String>,
    /// The first place the class is named.
    pub span: Range<usize>,
}

/// The kinds of relationship Mermaid draws, each with its own arrow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RelationKind {
    /// `<|--`: the marked end is the parent.
    Inheritance,
    /// `<|..`: the marked end is the interface.
    Realization,
    /// `*--`: the marked end is the whole.
    Composition,
    /// `o--`: the marked end is the whole.
    Aggregation,
    /// `-->`: the marked end is the target.
    Association,
    /// `..>`: the marked end is what is depended on.
    Dependency,
    /// `--`: a solid line without ends.
    Link,
    /// `..`: a dashed line without ends.
    DashedLink,
}

/// Which end of a relationship carries the marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Head {
    Left,
    Right,
    Both,
    Neither,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Relation {
    pub left: String,
    pub right: String,
    pub kind: RelationKind,
    pub head: Head,
    pub label: Option<String>,
    /// The arrow as written.
    pub arrow: String,
    /// The whole statement.
    pub span: Range<usize>,
}

impl Relation {
    /// For inheritance and realization: (child, parent). `None` for other kinds or a
    /// relationship marked at both ends.
    pub fn child_parent(&self) -> Option<(&str, &str)> {
        if !matches!(
            self.kind,
            RelationKind::Inheritance | RelationKind::Realization
        ) {
            return None;
        }
        match self.head {
            Head::Left => Some((&self.right, &self.left)),
            Head::Right => Some((&self.left, &self.right)),
            Head::Both | Head::Neither => None,
        }
    }
}

/// A syntax fault: what is wrong and where (byte range in the artifact).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    pub message: String,
    pub span: Range<usize>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClassDiagram {
    pub classes: Vec<DiagramClass>,
    pub relations: Vec<Relation>,
    /// The first fault, as Mermaid reports one.
    pub error: Option<SyntaxError>,
    /// True when the diagram was inside a ```` ```mermaid ```` fence.
    pub fenced: bool,
}

impl ClassDiagram {
    pub fn class(&self, name: &str) -> Option<&DiagramClass> {
        self.classes.iter().find(|c| c.name == name)
    }
}

const IGNORED_STATEMENTS: &[&str] = &[
    "note", "click", "link", "callback", "cssClass", "style", "classDef", "accTitle", "accDescr",
    "title",
];

struct Reader<'a> {
    diagram: ClassDiagram,
    /// Class name to its index in `diagram.classes`.
    index: HashMap<&'a str, usize, FixedState>,
    /// Open class body: index of the class and the place of its `{`.
    body: Option<(usize, Range<usize>)>,
    namespaces: Vec<Range<usize>>,
    seen_header: bool,
}

impl<'a> Reader<'a> {
    fn fault(&mut self, message: impl Into<String>, span: Range<usize>) {
        if self.diagram.error.is_none() {
            self.diagram.error = Some(SyntaxError {
                message: message.into(),
                span,
            });
        }
    }

    fn class_index(&mut self, name: &'a str, span: Range<usize>) -> usize {
        if let Some(i) = self.index.get(name) {
            return *i;
        }
        self.diagram.classes.push(DiagramClass {
            name: name.to_string(),
            members: Vec::new(),
            annotations: Vec::new(),
            span,
        });
        let i = self.diagram.classes.len() - 1;
        self.index.insert(name, i);
        i
    }

    /// One line outside any class body. `at` is the offset of `text` in the artifact.
    fn statement(&mut self, text: &'a str, at: usize) {
        if !self.seen_header {
            self.seen_header = true;
            if text.starts_with("classDiagram") {
                return;
            }
            self.fault(
                format!(
                    "expected `classDiagram` as the first statement, found `{}`",
                    first_word(text)
                ),
                at..at + first_word(text).len().max(1),
            );
        }
        let word = first_word(text);
        match word {
            "classDiagram" | "classDiagram-v2" => {}
            "direction" => {
                let dir = text["direction".len()..].trim();
                if !matches!(dir, "TB" | "TD" | "BT" | "LR" | "RL") {
                    let col = text.len() - text["direction".len()..].trim_start().len();
                    self.fault(
                        format!("unknown direction `{dir}` (TB, BT, LR or RL)"),
                        at + col..at + text.len().max(col + 1),
                    );
                }
            }
            "class" => self.class_statement(text, at),
            "namespace" => {
                if !text.ends_with('{') {
                    self.fault(
                        "a namespace opens with `{` at the end of its line",
                        at..at + text.len(),
                    );
                } else {
                    self.namespaces.push(at..at + text.len());
                }
            }
            "}" if !self.namespaces.is_empty() => {
                self.namespaces.pop();
            }
            w if IGNORED_STATEMENTS.contains(&w) => {}
            _ if text.starts_with("<<") => self.annotation_statement(text, at),
            _ => self.relation_or_member(text, at),
        }
    }

    fn class_statement(&mut self, text: &'a str, at: usize) {
        let after = &text["class".len()..];
        let name_at = text.len() - after.trim_start().len();
        let Some((name, len)) = class_name(&text[name_at..]) else {
            self.fault(
                "expected a class name after `class`",
                at + name_at..at + text.len().max(name_at + 1),
            );
            return;
        };
        let index = self.class_index(name, at + name_at..at + name_at + len);
        let mut rest_at = name_at + len;
        let mut rest = &text[rest_at..];
        loop {
            let trimmed = rest.trim_start();
            rest_at += rest.len() - trimmed.len();
            rest = trimmed;
            if rest.is_empty() {
                return;
            }
            if let Some(label) = rest.strip_prefix("[\"") {
                match label.find("\"]") {
                    Some(end) => {
                        rest_at += 2 + end + 2;
                        rest = &text[rest_at..];
                        continue;
                    }
                    None => {
                        self.fault(
                            "a class label `[\"…\"]` is not closed",
                            at + rest_at..at + text.len(),
                        );
                        return;
                    }
                }
            }
            if let Some(style) = rest.strip_prefix(":::") {
                let len = style
                    .chars()
                    .take_while(|c| is_ident_char(*c) || *c == '-')
                    .map(char::len_utf8)
                    .sum::<usize>();
                rest_at += 3 + len;
                rest = &text[rest_at..];
                continue;
            }
            if let Some(annotation) = rest.strip_prefix("<<") {
                match annotation.find(">>") {
                    Some(end) => {
                        let a = annotation[..end].trim().to_string();
                        self.diagram.classes[index].annotations.push(a);
                        rest_at += 2 + end + 2;
                        rest = &text[rest_at..];
                        continue;
                    }
                    None => {
                        self.fault(
                            "an annotation `<<…>>` is not closed",
                            at + rest_at..at + text.len(),
                        );
                        return;
                    }
                }
            }
            if let Some(body) = rest.strip_prefix('{') {
                let open = at + rest_at..at + rest_at + 1;
                self.body = Some((index, open));
                let body_at = at + rest_at + 1;
                if !body.trim().is_empty() {
                    self.body_line(body, body_at);
                }
                return;
            }
            let bad = rest.chars().next().map_or(1, char::len_utf8);
            self.fault(
                format!(
                    "unexpected `{}` after the class name `{name}`",
                    &rest[..bad]
                ),
                at + rest_at..at + rest_at + bad,
            );
            return;
        }
    }

    /// A line inside `class X { … }`; `at` is the offset of `text`.
    fn body_line(&mut self, text: &'a str, at: usize) {
        let Some((index, _)) = self.body.clone() else {
            return;
        };
        let (member, closes) = match text.find('}') {
            Some(close) => (&text[..close], Some(close)),
            None => (text, None),
        };
        if let Some(open) = member.find('{') {
            self.fault(
                "`{` inside a class body: a member cannot contain braces (the body ends at the first `}`)",
                at + open..at + open + 1,
            );
        }
        let lead = member.len() - member.trim_start().len();
        let m = member.trim();
        if !m.is_empty() && !m.chars().all(|c| c == '-') {
            if let Some(a) = m.strip_prefix("<<").and_then(|a| a.strip_suffix(">>")) {
                self.diagram.classes[index]
                    .annotations
                    .push(a.trim().to_string());
            } else if let Some(parsed) = member_of(m, at + lead) {
                self.diagram.classes[index].members.push(parsed);
            }
        }
        if let Some(close) = closes {
            self.body = None;
            let tail = text[close + 1..].trim();
            if !tail.is_empty() {
                let tail_at = at
                    + close
                    + 1
                    + (text[close + 1..].len() - text[close + 1..].trim_start().len());
                self.statement(tail, tail_at);
            }
        }
    }

    fn annotation_statement(&mut self, text: &'a str, at: usize) {
        let Some(end) = text.find(">>") else {
            self.fault("an annotation `<<…>>` is not closed", at..at + text.len());
            return;
        };
        let annotation = text[2..end].trim().to_string();
        let rest = &text[end + 2..];
        let name_at = end + 2 + (rest.len() - rest.trim_start().len());
        match class_name(&text[name_at..]) {
            Some((name, len)) if text[name_at + len..].trim().is_empty() => {
                let index = self.class_index(name, at + name_at..at + name_at + len);
                self.diagram.classes[index].annotations.push(annotation);
            }
            _ => self.fault(
                "expected `<<annotation>> ClassName`",
                at + name_at..at + text.len().max(name_at + 1),
            ),
        }
    }

    fn relation_or_member(&mut self, text: &'a str, at: usize) {
        let Some((left, left_len)) = class_name(text) else {
            let bad = text.chars().next().map_or(1, char::len_utf8);
            self.fault(
                format!(
                    "expected a class, relationship or member statement, found `{}`",
                    &text[..bad]
                ),
                at..at + bad,
            );
            return;
        };
        let mut i = left_len;
        let skip_ws = |i: usize| i + (text[i..].len() - text[i..].trim_start().len());
        i = skip_ws(i);
        // `Name : member`
        if let Some(member) = text[i..].strip_prefix(':') {
            let lead = member.len() - member.trim_start().len();
            let member_at = at + i + 1 + lead;
            let index = self.class_index(left, at..at + left_len);
            match member_of(member.trim(), member_at) {
                Some(m) => self.diagram.classes[index].members.push(m),
                None => self.fault("expected a member after `:`", member_at..member_at + 1),
            }
            return;
        }
        if text.len() == left_len {
            self.fault(
                format!("a bare name `{left}` is not a statement: write `class {left}`"),
                at..at + left_len,
            );
            return;
        }
        // Optional cardinality before the arrow.
        i = skip_quoted(text, i);
        i = skip_ws(i);
        let Some((kind, head, arrow_len)) = arrow(&text[i..]) else {
            let bad = text[i..].chars().next().map_or(1, char::len_utf8);
            self.fault(
                format!(
                    "expected a relationship arrow (`<|--`, `*--`, `o--`, `-->`, `..>`, `..|>`, `--`, `..`) after `{left}`"
                ),
                at + i..at + i + bad,
            );
            return;
        };
        let arrow_text = text[i..i + arrow_len].to_string();
        i = skip_ws(i + arrow_len);
        i = skip_ws(skip_quoted(text, i));
        let Some((right, right_len)) = class_name(&text[i..]) else {
            self.fault(
                format!("expected a class name after `{arrow_text}`"),
                at + i..at + i + 1,
            );
            return;
        };
        let right_at = i;
        i = skip_ws(i + right_len);
        let label = match text[i..].strip_prefix(':') {
            Some(l) => Some(l.trim().to_string()).filter(|l| !l.is_empty()),
            None if text[i..].is_empty() => None,
            None => {
                let bad = text[i..].chars().next().map_or(1, char::len_utf8);
                self.fault(
                    format!(
                        "unexpected `{}` after the relationship (a label starts with `:`)",
                        &text[i..i + bad]
                    ),
                    at + i..at + i + bad,
                );
                None
            }
        };
        self.class_index(left, at..at + left_len);
        self.class_index(right, at + right_at..at + right_at + right_len);
        self.diagram.relations.push(Relation {
            left: left.to_string(),
            right: right.to_string(),
            kind,
            head,
            label,
            arrow: arrow_text,
            span: at..at + text.len(),
        });
    }
}

fn first_word(text: &str) -> &str {
    text.split_whitespace().next().unwrap_or("")
}

/// `Name`, `Name~T~` or `` `Name with spaces` ``: the name (without generics) and the
/// bytes it takes.
fn class_name(text: &str) -> Option<(&str, usize)> {
    if let Some(quoted) = text.strip_prefix('`') {
        let end = quoted.find('`')?;
        return Some((&quoted[..end], end + 2));
    }
    let len: usize = text
        .chars()
        .take_while(|c| is_ident_char(*c))
        .map(char::len_utf8)
        .sum();
    if len == 0 {
        return None;
    }
    let mut total = len;
    if let Some(generic) = text[len..].strip_prefix('~') {
        let end = generic.find('~')?;
        total += end + 2;
    }
    Some((&text[..len], total))
}

/// Skips a `"1..*"` cardinality at `i`.
fn skip_quoted(text: &str, i: usize) -> usize {
    match text[i..].strip_prefix('"') {
        Some(rest) => rest.find('"').map_or(i, |end| i + end + 2),
        None => i,
    }
}

/// The arrow at the start of `text`.
fn arrow(text: &str) -> Option<(RelationKind, Head, usize)> {
    let (left, after_left) = if let Some(r) = text.strip_prefix("<|") {
        (Some('|'), r)
    } else if let Some(r) = text.strip_prefix('<') {
        (Some('<'), r)
    } else if let Some(r) = text.strip_prefix('*') {
        (Some('*'), r)
    } else if let Some(r) = text.strip_prefix('o') {
        (Some('o'), r)
    } else {
        (None, text)
    };
    let (dashed, after_line) = if let Some(r) = after_left.strip_prefix("--") {
        (false, r)
    } else if let Some(r) = after_left.strip_prefix("..") {
        (true, r)
    } else {
        return None;
    };
    let (right, rest) = if let Some(r) = after_line.strip_prefix("|>") {
        (Some('|'), r)
    } else if let Some(r) = after_line.strip_prefix('>') {
        (Some('<'), r)
    } else if let Some(r) = after_line.strip_prefix('*') {
        (Some('*'), r)
    } else if let Some(r) = after_line
        .strip_prefix('o')
        .filter(|r| r.starts_with([' ', '"']) || r.is_empty())
    {
        (Some('o'), r)
    } else {
        (None, after_line)
    };
    if rest.starts_with(['-', '.', '>', '|', '<']) {
        return None;
    }
    let len = text.len() - rest.len();
    let head = match (left, right) {
        (Some(_), Some(_)) => Head::Both,
        (Some(_), None) => Head::Left,
        (None, Some(_)) => Head::Right,
        (None, None) => Head::Neither,
    };
    let marker = left.or(right);
    let kind = match (marker, dashed) {
        (Some('|'), false) => RelationKind::Inheritance,
        (Some('|'), true) => RelationKind::Realization,
        (Some('*'), _) => RelationKind::Composition,
        (Some('o'), _) => RelationKind::Aggregation,
        (Some(_), false) => RelationKind::Association,
        (Some(_), true) => RelationKind::Dependency,
        (None, false) => RelationKind::Link,
        (None, true) => RelationKind::DashedLink,
    };
    Some((kind, head, len))
}

/// `+save(record) int`, `-String name`, `path: str`, `+async run()$`.
fn member_of(text: &str, at: usize) -> Option<Member> {
    let visibility = text
        .chars()
        .next()
        .filter(|c| matches!(c, '+' | '-' | '#' | '~'));
    let body = match visibility {
        Some(v) => &text[v.len_utf8()..],
        None => text,
    };
    let body = body.trim_start_matches(['$', '*']).trim();
    if body.is_empty() {
        return None;
    }
    let body_at = at + (body.as_ptr() as usize - text.as_ptr() as usize);
    let (name, kind) = match body.find('(') {
        Some(paren) => {
            let before = &body[..paren];
            let name = before
                .rsplit(|c: char| !is_ident_char(c))
                .find(|w| !w.is_empty())?;
            (name.to_string(), MemberKind::Method)
        }
        None => {
            let decl = body.split(['=', '$']).next().unwrap_or(body);
            let name = match decl.split_once(':') {
                Some((n, _)) => n.trim(),
                None => decl.split_whitespace().last().unwrap_or(decl),
            };
            let name: String = name.chars().filter(|c| is_ident_char(*c)).collect();
            if name.is_empty() {
                return None;
            }
            (name, MemberKind::Attribute)
        }
    };
    // Mermaid writes generics as `List~Order~`: the tildes separate like brackets.
    // An attribute without a colon (`+Addr string`, `-UUID id`) does not say which
    // word is the type, so only `name: Type` attributes are read.
    let plain = body.replace('~', " ");
    let mut types = match kind {
        MemberKind::Method => {
            let paren = plain.find('(').unwrap_or(0);
            super::lang::signature_types(
                &plain[paren..],
                body_at + paren,
                super::lang::Lang::Unknown,
            )
        }
        MemberKind::Attribute => match plain.find(':') {
            Some(colon) => super::lang::type_names(&plain[colon + 1..], body_at + colon + 1),
            None => Vec::new(),
        },
    };
    types.retain(|(t, _)| *t != name);
    Some(Member {
        name,
        kind,
        text: body.to_string(),
        visibility,
        span: at..at + text.len(),
        types,
    })
}

/// Reads a class diagram, bare or inside a ```` ```mermaid ```` fence (then only the
/// fenced lines count, so prose around the fence is allowed).
pub fn parse(text: &str) -> ClassDiagram {
    let fenced = lines(text).any(|l| {
        let t = l.text.trim();
        is_fence(t) && t[3..].trim().eq_ignore_ascii_case("mermaid")
    });
    let mut reader = Reader {
        diagram: ClassDiagram {
            fenced,
            ..ClassDiagram::default()
        },
        index: HashMap::default(),
        body: None,
        namespaces: Vec::new(),
        seen_header: false,
    };
    let mut inside = !fenced;
    let mut front_matter = false;
    let mut last_end = 0;
    for line in lines(text) {
        let trimmed = line.text.trim();
        last_end = line.start + line.text.len();
        if fenced && is_fence(trimmed) {
            if inside {
                break;
            }
            inside = trimmed[3..].trim().eq_ignore_ascii_case("mermaid");
            continue;
        }
        if !inside {
            continue;
        }
        if !reader.seen_header && trimmed == "---" {
            front_matter = !front_matter;
            continue;
        }
        if front_matter || trimmed.is_empty() || trimmed.starts_with("%%") {
            continue;
        }
        let at = line.start + (line.text.len() - line.text.trim_start().len());
        if reader.body.is_some() {
            reader.body_line(trimmed, at);
        } else {
            reader.statement(trimmed, at);
        }
    }
    if let Some((_, open)) = reader.body.take() {
        reader.fault("this class body is never closed with `}`", open);
    }
    if let Some(open) = reader.namespaces.pop() {
        reader.fault("this namespace is never closed with `}`", open);
    }
    if !reader.seen_header && reader.diagram.error.is_none() {
        reader.fault(
            "the class diagram is empty: expected `classDiagram`",
            last_end..last_end,
        );
    }
    reader.diagram
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line_col(text: &str, offset: usize) -> (usize, usize) {
        let before = &text[..offset];
        let line = before.matches('\n').count() + 1;
        let col = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
        (line, col)
    }

    #[test]
    fn classes_members_and_relations() {
        let t = "classDiagram\n  direction LR\n  class Store {\n    <<service>>\n    +save(record) int\n    -String path\n  }\n  class Cli\n  Cli --> Store : uses\n  Base <|-- Store\n  Store \"1\" *-- \"many\" Task\n  Task : +String title\n  Shape <|.. Circle\n  A ..> B\n  A -- B\n";
        let d = parse(t);
        assert_eq!(d.error, None);
        let store = d.class("Store").unwrap();
        assert_eq!(store.annotations, ["service"]);
        assert_eq!(store.members[0].name, "save");
        assert_eq!(store.members[0].kind, MemberKind::Method);
        assert_eq!(store.members[1].name, "path");
        let kinds: Vec<RelationKind> = d.relations.iter().map(|r| r.kind).collect();
        assert_eq!(
            kinds,
            [
                RelationKind::Association,
                RelationKind::Inheritance,
                RelationKind::Composition,
                RelationKind::Realization,
                RelationKind::Dependency,
                RelationKind::Link
            ]
        );
        assert_eq!(d.relations[1].child_parent(), Some(("Store", "Base")));
        assert_eq!(d.relations[0].label.as_deref(), Some("uses"));
        assert_eq!(d.class("Task").unwrap().members[0].name, "title");
    }

    #[test]
    fn fenced_and_bare_read_the_same() {
        let bare = "classDiagram\n  A <|-- B\n";
        let fenced = "Here it is:\n\n```mermaid\nclassDiagram\n  A <|-- B\n```\nDone.\n";
        let (a, b) = (parse(bare), parse(fenced));
        assert!(b.fenced && !a.fenced);
        assert_eq!(a.relations.len(), b.relations.len());
        assert_eq!(b.error, None);
    }

    #[test]
    fn faults_have_line_and_column() {
        for (text, line, col) in [
            ("graph TD\n  A --> B\n", 1, 1),
            ("classDiagram\n  A -> B\n", 2, 5),
            ("classDiagram\n  class A {\n    +x\n", 2, 11),
            ("classDiagram\n  class A {\n    m: dict = {}\n  }\n", 3, 15),
            ("classDiagram\n  A --> \n", 2, 8),
            ("classDiagram\n  class A B\n", 2, 11),
            ("classDiagram\n  Lonely\n", 2, 3),
        ] {
            let d = parse(text);
            let e = d.error.unwrap_or_else(|| panic!("no error for {text:?}"));
            assert_eq!(
                line_col(text, e.span.start),
                (line, col),
                "{text:?}: {}",
                e.message
            );
        }
    }
}

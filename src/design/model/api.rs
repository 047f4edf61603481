//! The API spec: modules, their classes (with bases and methods) and functions, with
//! signatures. Models and architects write it many ways: `Module: x.py` lines,
//! headings naming one file or several, Java and Go package sections, a path comment
//! opening a code block, fenced code in each language's own syntax, bullet lists of
//! signatures, symbol tables and bold names in prose. The reader keys on the shapes
//! that carry meaning and skips the prose between them.

use std::ops::Range;

use super::lang::{Lang, signature_types};
use super::names::{looks_like_module, source_extension};
use super::text::{content_start, heading_level, is_fence, is_ident_char, lines};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signature {
    pub name: String,
    /// The signature as written, decoration removed.
    pub text: String,
    pub span: Range<usize>,
    /// The capitalised type names after the name, with their places (for D033).
    pub types: Vec<(String, Range<usize>)>,
    pub lang: Lang,
}

/// What a declaration declares; the test rule needs no test for the declarative
/// kinds, and the diagram need not draw a name only mentioned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ClassKind {
    Class,
    Struct,
    Interface,
    Trait,
    Enum,
    Record,
    Object,
    /// `type X = …`, `typealias`, Go `type X int`.
    Alias,
    /// Named in a symbol table or a bold name in prose, not declared in code: it is
    /// specified (D030, D033) but the diagram need not draw it (D031).
    Mentioned,
}

impl ClassKind {
    /// Declares a contract or data, never behaviour: no test of its own.
    pub fn is_declarative(self) -> bool {
        matches!(
            self,
            ClassKind::Interface
                | ClassKind::Trait
                | ClassKind::Enum
                | ClassKind::Alias
                | ClassKind::Mentioned
        )
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiClass {
    pub name: String,
    pub kind: ClassKind,
    pub bases: Vec<String>,
    /// Type parameters (`T` of `Repo<T>`), which signatures may use unspecified.
    pub generics: Vec<String>,
    pub methods: Vec<Signature>,
    /// Types of a record's or primary constructor's parameters (`Money` in
    /// `record Line(Money Price)`).
    pub header_types: Vec<(String, Range<usize>)>,
    pub lang: Lang,
    pub span: Range<usize>,
}

impl ApiClass {
    /// Has methods other than constructors: something a test can exercise.
    pub fn has_behaviour(&self) -> bool {
        !self.kind.is_declarative()
            && self
                .methods
                .iter()
                .any(|m| m.name != "__init__" && m.name != "constructor" && m.name != self.name)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiModule {
    /// As written (`src/taskman/store.py`, `taskman.store`).
    pub name: String,
    pub classes: Vec<ApiClass>,
    pub functions: Vec<Signature>,
    pub span: Range<usize>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ApiSpec {
    pub modules: Vec<ApiModule>,
    /// Names the spec's code imports (`import java.time.Clock;`, `from x import Y`).
    pub imported: Vec<String>,
}

impl ApiSpec {
    pub fn classes(&self) -> impl Iterator<Item = &ApiClass> {
        self.modules.iter().flat_map(|m| m.classes.iter())
    }

    pub fn class(&self, name: &str) -> Option<&ApiClass> {
        self.classes().find(|c| c.name == name)
    }

    /// Every signature: functions and methods.
    pub fn signatures(&self) -> impl Iterator<Item = &Signature> {
        self.modules.iter().flat_map(|m| {
            m.functions
                .iter()
                .chain(m.classes.iter().flat_map(|c| c.methods.iter()))
        })
    }
}

const MODULE_WORDS: &[&str] = &["module", "file", "package", "mod", "path"];

/// Words that may stand before a function name and are not it (outside code, where
/// only these are allowed; in code any type may stand there).
const FUNCTION_PREFIXES: &[&str] = &[
    "def",
    "async",
    "fn",
    "pub",
    "pub(crate)",
    "func",
    "fun",
    "suspend",
    "function",
    "static",
    "export",
    "public",
    "private",
    "protected",
    "internal",
    "const",
    "unsafe",
    "abstract",
    "override",
    "virtual",
    "open",
    "classmethod",
    "staticmethod",
    "method",
    "function:",
    "method:",
];

/// Words in front of a parenthesis that make a line a statement, not a signature.
const STATEMENT_WORDS: &[&str] = &[
    "return", "new", "throw", "await", "if", "else", "while", "for", "switch", "case", "yield",
    "raise", "assert", "print", "var", "val", "let", "catch", "when", "match", "elif", "with",
    "and", "or", "not", "is", "the", "a", "an", "see", "of", "to", "in",
];

/// Statement words that are also method names people declare: a NestJS exception
/// filter's `catch(exception, host)`, Java's `Money of(BigDecimal)`, a matcher's
/// `match(input)`. In code they name a method when the line is shaped like a
/// declaration (a return type or `;` after the parameters, or a type before the name);
/// a statement (`catch (e) {`) is neither.
const METHOD_STATEMENT_WORDS: &[&str] = &[
    "catch", "match", "print", "when", "with", "of", "to", "is", "and", "or", "not", "in",
    "assert", "yield",
];

/// Does the text after a name's opening parenthesis close it and go on as a
/// declaration does (`): void`, `);`, `) -> int`, `)` at the end, `) string`)?
fn declares_after(params: &str) -> bool {
    let Some((_, tail)) = balanced(params, '(', ')') else {
        return false;
    };
    let tail = tail.trim_start();
    tail.is_empty()
        || tail.starts_with([':', ';', '/'])
        || tail.starts_with("->")
        || tail.starts_with(|c: char| c.is_alphabetic() || c == '*' || c == '[')
            && !tail.starts_with("when")
}

/// Modifiers before a class word.
const CLASS_MODIFIERS: &[&str] = &[
    "pub(crate)",
    "pub",
    "export",
    "default",
    "public",
    "private",
    "protected",
    "internal",
    "abstract",
    "final",
    "sealed",
    "static",
    "partial",
    "readonly",
    "data",
    "open",
    "inner",
    "value",
    "declare",
    "unsafe",
    "annotation",
    "fun",
    "frozen",
];

/// Strips `**`, backticks and a trailing colon around a token.
fn clean_token(token: &str) -> &str {
    token
        .trim_matches(|c| c == '*' || c == '`' || c == '"' || c == '\'')
        .trim_end_matches(':')
        .trim_matches(|c| c == '*' || c == '`')
}

/// `Module: src/x.py`, `## Module \`x.y\``, `### src/x.py`, `**x/y.py**`: the name
/// and its byte range within `content`.
fn module_header(content: &str, is_heading: bool) -> Option<(String, Range<usize>)> {
    let mut words = content.split_whitespace();
    let first = words.next()?;
    let first_clean = clean_token(first);
    let (token, keyword) = if MODULE_WORDS
        .iter()
        .any(|w| w.eq_ignore_ascii_case(first_clean))
    {
        (words.next()?, true)
    } else {
        (first, false)
    };
    let name = if keyword {
        clean_token(token)
    } else {
        first_clean
    };
    // The cheap tests first: this runs on every line of the spec, and a path or a
    // file name holds a `/` or a `.`.
    let pathlike = || {
        memchr::memchr2(b'/', b'.', name.as_bytes()).is_some()
            && (name.contains('/') || source_extension(name).is_some())
    };
    if !(keyword || is_heading || pathlike()) {
        return None;
    }
    let tail = words.next();
    let plausible = (keyword
        || is_heading
        || tail.is_none()
        || tail.is_some_and(|t| t.starts_with(['—', '-', '(', '#'])))
        && looks_like_module(name);
    if !plausible || name.is_empty() || name.contains('(') || name.starts_with('/') {
        return None;
    }
    // `name` is a slice of `content`; the range is that of its first occurrence,
    // which can only start at or before it (a naive search: the span is a few bytes).
    let own = name.as_ptr() as usize - content.as_ptr() as usize;
    let at = (0..=own).find(|i| content.as_bytes()[*i..].starts_with(name.as_bytes()))?;
    Some((name.to_string(), at..at + name.len()))
}

/// The backticked paths of a heading (`## \`a.py\`, \`b.py\``, `## Types (\`src/t.ts\`)`),
/// each with its range within `content`.
fn heading_paths(content: &str) -> Vec<(String, Range<usize>)> {
    let mut out = Vec::new();
    let mut rest = content;
    let mut base = 0;
    while let Some(open) = rest.find('`') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('`') else {
            break;
        };
        let token = &after[..close];
        if token.contains('/') && looks_like_module(token) || source_extension(token).is_some() {
            let start = base + open + 1;
            out.push((
                token.trim_end_matches('/').to_string(),
                start..start + token.len(),
            ));
        }
        let used = open + 1 + close + 1;
        base += used;
        rest = &rest[used..];
    }
    out
}

/// Skips a balanced `<…>` or `[…]` at the start of `text`; returns the inside and the rest.
fn balanced(text: &str, open: char, close: char) -> Option<(&str, &str)> {
    let rest = text.strip_prefix(open)?;
    let mut depth = 1;
    for (i, c) in rest.char_indices() {
        if c == open {
            depth += 1;
        } else if c == close {
            depth -= 1;
            if depth == 0 {
                return Some((&rest[..i], &rest[i + 1..]));
            }
        }
    }
    None
}

/// The names of a type parameter list (`T extends {id: string}, K` gives `T`, `K`).
fn generic_names(inner: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0;
    let mut at_start = true;
    for (i, c) in inner.char_indices() {
        match c {
            '<' | '[' | '{' | '(' => depth += 1,
            '>' | ']' | '}' | ')' => depth -= 1,
            ',' if depth == 0 => at_start = true,
            c if at_start && depth == 0 && (is_ident_char(c) || c == '\'') => {
                let word: String = inner[i..]
                    .chars()
                    .take_while(|c| is_ident_char(*c) || *c == '\'')
                    .collect();
                out.push(word.trim_start_matches('\'').to_string());
                at_start = false;
            }
            _ => {}
        }
    }
    out
}

/// A base name as the diagram writes it: `SqlRepository[Patient]`, `Repo<T>`,
/// `abc.ABC` give `SqlRepository`, `Repo`, `ABC`.
fn base_name(text: &str) -> String {
    let text = clean_token(text.trim());
    let end = text.find(['<', '[', '(', '{', ' ']).unwrap_or(text.len());
    let name = &text[..end];
    name.rsplit(['.', ':']).next().unwrap_or("").to_string()
}

/// Strips decorators, annotations and attributes written before a declaration on
/// its own line (`@dataclass(frozen=True) class Link`, `[Serializable] public class`).
fn strip_decorations(mut rest: &str) -> &str {
    loop {
        let trimmed = rest.trim_start();
        if let Some(after) = trimmed.strip_prefix('@') {
            let name_len = after
                .find(|c: char| !is_ident_char(c) && c != '.')
                .unwrap_or(after.len());
            let after = &after[name_len..];
            rest = match after.strip_prefix('(') {
                Some(_) => balanced(after, '(', ')').map_or("", |(_, r)| r),
                None => after,
            };
        } else if trimmed.starts_with("#[") {
            rest = balanced(&trimmed[1..], '[', ']').map_or("", |(_, r)| r);
        } else if trimmed.starts_with('[')
            && trimmed[1..].starts_with(|c: char| c.is_ascii_uppercase())
        {
            rest = balanced(trimmed, '[', ']').map_or("", |(_, r)| r);
        } else {
            return trimmed;
        }
    }
}

struct ClassHeader {
    name: String,
    kind: ClassKind,
    bases: Vec<String>,
    generics: Vec<String>,
    /// Where the name starts within the content.
    at: usize,
    /// Constructor parameters (`(val id: NoteId)`), where they start in the content.
    params: Option<(usize, usize)>,
}

fn class_kind(word: &str) -> Option<ClassKind> {
    // runs on most lines of a spec: no allocation for the words that are none
    if word.len() > 9 || word.len() < 4 {
        return None;
    }
    let mut lower = [0u8; 9];
    lower[..word.len()].copy_from_slice(word.as_bytes());
    lower.make_ascii_lowercase();
    Some(
        match std::str::from_utf8(&lower[..word.len()]).unwrap_or("") {
            "class" | "dataclass" | "name" => ClassKind::Class,
            "struct" => ClassKind::Struct,
            "interface" | "protocol" => ClassKind::Interface,
            "trait" => ClassKind::Trait,
            "enum" => ClassKind::Enum,
            "record" => ClassKind::Record,
            "object" => ClassKind::Object,
            "type" | "typealias" => ClassKind::Alias,
            _ => return None,
        },
    )
}

/// `class Store(Base):`, `pub struct Store`, `public sealed record Line(…)`, `type
/// Store interface {`, `export class Repo<T extends {id: string}> implements X<T>`,
/// `Name: Settings`.
fn class_header(content: &str) -> Option<ClassHeader> {
    let mut rest = strip_decorations(content.trim_start_matches(['*', '`']));
    // Every modifier and class word starts with one of these letters: most lines of a
    // spec are signatures and stop here.
    let first = rest.as_bytes().first()?.to_ascii_lowercase();
    if !matches!(
        first,
        b'p' | b'e'
            | b'a'
            | b'f'
            | b'd'
            | b'c'
            | b's'
            | b't'
            | b'i'
            | b'r'
            | b'o'
            | b'v'
            | b'n'
            | b'u'
    ) {
        return None;
    }
    // Modifiers are whole words: compare the first word, not every modifier as a prefix.
    while let Some(end) = rest.find(' ')
        && CLASS_MODIFIERS.contains(&&rest[..end])
    {
        rest = rest[end..].trim_start();
    }
    let word_end = rest.find(|c: char| !c.is_ascii_alphabetic())?;
    let word = &rest[..word_end];
    let mut kind = class_kind(word)?;
    let keyed = rest[word_end..].starts_with(':');
    if word.eq_ignore_ascii_case("name") && !keyed {
        return None;
    }
    if kind == ClassKind::Alias && word == "type" && !rest[word_end..].starts_with(' ') {
        return None;
    }
    let mut after = rest[word_end..].trim_start_matches([':', '*', '`', ' ']);
    // `record struct`, `enum class`, `record class`
    if let Some(second_end) = after.find(|c: char| !c.is_ascii_alphabetic())
        && let Some(second) = class_kind(&after[..second_end])
        && matches!(second, ClassKind::Struct | ClassKind::Class)
        && after[second_end..].starts_with(' ')
    {
        after = after[second_end..].trim_start();
        if kind == ClassKind::Class {
            kind = second;
        }
    }
    let name_len = after
        .char_indices()
        .find(|(_, c)| !is_ident_char(*c))
        .map_or(after.len(), |(i, _)| i);
    let name = &after[..name_len];
    let go_type = word == "type";
    if name.is_empty()
        || !(name.starts_with(|c: char| c.is_ascii_uppercase())
            || go_type && name.starts_with(|c: char| c.is_ascii_lowercase()))
    {
        return None;
    }
    let name_at = content.len() - after.len();
    let mut tail = &after[name_len..];
    let mut generics = Vec::new();
    for (open, close) in [('<', '>'), ('[', ']')] {
        if let Some((inner, r)) = balanced(tail, open, close) {
            generics = generic_names(inner);
            tail = r;
        }
    }
    if go_type {
        // `struct {`, `struct{ ID string }`, `interface{}`
        let next = tail.split_whitespace().next().unwrap_or("");
        let word = next.split('{').next().unwrap_or(next);
        kind = match word {
            "struct" => ClassKind::Struct,
            "interface" => ClassKind::Interface,
            _ => ClassKind::Alias,
        };
        // `type X = …` in TypeScript, `type X string` in Go: an alias.
        return Some(ClassHeader {
            name: name.to_string(),
            kind,
            bases: Vec::new(),
            generics,
            at: name_at,
            params: None,
        });
    }
    let mut bases = Vec::new();
    let mut params = None;
    if tail.starts_with('(') {
        let (inner, r) = balanced(tail, '(', ')').unwrap_or((&tail[1..], ""));
        let parts: Vec<&str> = inner.split(',').map(str::trim).collect();
        let is_params = parts
            .iter()
            .any(|p| p.contains([' ', ':']) && !p.contains('='))
            || kind == ClassKind::Record;
        if is_params {
            let start = content.len() - tail.len() + 1;
            params = Some((start, start + inner.len()));
        } else {
            bases.extend(
                parts
                    .iter()
                    .filter(|b| !b.is_empty() && !b.contains('='))
                    .map(|b| base_name(b))
                    .filter(|b| !b.is_empty()),
            );
        }
        tail = r;
    }
    let tail = tail.split(['{', '=']).next().unwrap_or("");
    let tail = tail.split(" where ").next().unwrap_or(tail);
    let mut depth = 0;
    let mut list = String::new();
    let mut take = false;
    for c in tail.chars() {
        match c {
            '<' | '[' | '(' => depth += 1,
            '>' | ']' | ')' => depth -= 1,
            _ => {}
        }
        if depth == 0 {
            list.push(c);
        } else {
            list.push(' ');
        }
    }
    for w in list.split(|c: char| c.is_whitespace() || c == ',' || c == '+') {
        match w {
            "extends" | "implements" | ":" | "with" => take = true,
            "" | "*" | "`" => {}
            w if w.starts_with(':') => {
                take = true;
                let b = base_name(&w[1..]);
                if !b.is_empty() {
                    bases.push(b);
                }
            }
            w if take => {
                let b = base_name(w);
                if b.starts_with(|c: char| c.is_ascii_uppercase()) {
                    bases.push(b);
                }
            }
            _ => {}
        }
    }
    bases.dedup();
    if kind == ClassKind::Class
        && bases
            .iter()
            .any(|b| matches!(b.as_str(), "Protocol" | "ABC"))
    {
        kind = ClassKind::Interface;
    }
    if kind == ClassKind::Class
        && bases
            .iter()
            .any(|b| matches!(b.as_str(), "Enum" | "StrEnum" | "IntEnum" | "Flag"))
    {
        kind = ClassKind::Enum;
    }
    Some(ClassHeader {
        name: name.to_string(),
        kind,
        bases,
        generics,
        at: name_at,
        params,
    })
}

/// A heading that names a class without the keyword: `### \`OrderService\``,
/// `### OrderRepository (interface)`, `### PaymentGateway — port`. A plain word
/// (`### Errors`) is a heading, not a class, unless it is backticked.
fn heading_class(content: &str, backticked: bool) -> Option<ClassHeader> {
    let name_len = content
        .char_indices()
        .find(|(_, c)| !is_ident_char(*c))
        .map_or(content.len(), |(i, _)| i);
    let name = &content[..name_len];
    let rest = content[name_len..].trim_start_matches(['`', '*']).trim();
    let lower = rest.to_ascii_lowercase();
    let says_class = [
        "class",
        "interface",
        "service",
        "struct",
        "record",
        "trait",
        "enum",
    ]
    .iter()
    .any(|w| lower.contains(w));
    let camel = name.chars().filter(char::is_ascii_uppercase).count() >= 2
        && name.bytes().any(|b| b.is_ascii_lowercase());
    if !name.starts_with(|c: char| c.is_ascii_uppercase())
        || !(rest.is_empty() || rest.starts_with(['(', '—', '–', '-', ':']))
        || !(camel || backticked || says_class)
    {
        return None;
    }
    let kind =
        if lower.contains("interface") || lower.contains("port") || lower.contains("protocol") {
            ClassKind::Interface
        } else if lower.contains("enum") {
            ClassKind::Enum
        } else {
            ClassKind::Class
        };
    Some(ClassHeader {
        name: name.to_string(),
        kind,
        bases: Vec::new(),
        generics: Vec::new(),
        at: 0,
        params: None,
    })
}

/// `save(self, record) -> int`, `def save(...)`, `+save(record) int`, `pub fn
/// save(&self)`, and in code any return type first (`Optional<Order> findById(UUID
/// id)`, `Task<Invoice?> GetAsync(Guid id)`): the function name and where it starts
/// within `content`.
fn function_header(content: &str, code: bool) -> Option<(String, usize)> {
    let paren = content.find('(')?;
    let before = &content[..paren];
    let name_word = before.split_whitespace().next_back()?;
    let trimmed = name_word.trim_start_matches(['+', '-', '#', '~', '`', '*', '@']);
    // `parse<'a>`, `Application.module`, `Route.syncRoutes`
    let trimmed = trimmed.split('<').next().unwrap_or(trimmed);
    let name = trimmed.rsplit('.').next().unwrap_or(trimmed);
    let method_word = code
        && METHOD_STATEMENT_WORDS.contains(&name)
        && (before.split_whitespace().nth(1).is_some() || declares_after(&content[paren..]));
    if name.is_empty()
        || !name.chars().all(is_ident_char)
        || name.chars().next().is_some_and(|c| c.is_ascii_digit())
        || STATEMENT_WORDS.contains(&name) && !method_word
        || matches!(
            name,
            "function" | "func" | "fn" | "def" | "fun" | "sizeof" | "typeof"
        )
    {
        return None;
    }
    if before.contains('=') {
        return None;
    }
    let prefix_words = before.split_whitespace().rev().skip(1);
    for w in prefix_words {
        let w = clean_token(w);
        if w.is_empty() || w.starts_with('@') || w.starts_with('+') {
            continue;
        }
        if FUNCTION_PREFIXES.iter().any(|p| p.eq_ignore_ascii_case(w)) {
            continue;
        }
        let typeish = w
            .chars()
            .all(|c| is_ident_char(c) || "<>[]?,.*&:'|".contains(c));
        if !(code && typeish) || STATEMENT_WORDS.contains(&w) {
            return None;
        }
    }
    // `name` is a slice of `before`: its offset is the distance between the two.
    let at = name.as_ptr() as usize - before.as_ptr() as usize;
    Some((name.to_string(), at))
}

/// Where a class's methods end: a heading class lasts until a heading as high; an
/// indented class until a line as far left; a class line in prose waits for the
/// next line to tell which.
#[derive(Debug, Clone, Copy)]
enum Scope {
    Heading(usize),
    Indent(usize),
    Pending(usize),
}

/// Fence tags whose content is not source code (OpenAPI `paths:` are endpoints, not
/// modules; a shell session names no class).
fn is_data_tag(tag: &str) -> bool {
    matches!(
        tag.to_ascii_lowercase().as_str(),
        "yaml"
            | "yml"
            | "json"
            | "jsonc"
            | "http"
            | "sql"
            | "bash"
            | "sh"
            | "shell"
            | "console"
            | "toml"
            | "xml"
            | "ini"
            | "mermaid"
            | "plantuml"
            | "graphql"
            | "proto"
            | "protobuf"
            | "dockerfile"
            | "env"
            | "csv"
            | "diff"
            | "hcl"
            | "terraform"
            | "make"
            | "makefile"
    )
}

#[derive(Default)]
struct Fence {
    lang: Option<Lang>,
    data: bool,
    first: bool,
}

/// A symbol table (`| module | class | kind |`): which column names a class and
/// which its kind.
struct Table {
    class: Option<usize>,
    kind: Option<usize>,
    header: bool,
}

struct Reader {
    spec: ApiSpec,
    /// (module, class, scope) of the class whose methods are being read.
    class: Option<(usize, usize, Scope)>,
    /// The directory of the package section being read (`internal/store`).
    package_dir: Option<String>,
    default_lang: Lang,
}

impl Reader {
    /// A class named at `at` in prose or a table, with nothing declared of it.
    fn mention(&mut self, at: usize, name: String, lang: Lang) {
        let m = self.module(at);
        self.spec.modules[m].classes.push(ApiClass {
            span: at..at + name.len(),
            name,
            kind: ClassKind::Mentioned,
            bases: Vec::new(),
            generics: Vec::new(),
            methods: Vec::new(),
            header_types: Vec::new(),
            lang,
        });
    }

    fn module(&mut self, at: usize) -> usize {
        if self.spec.modules.is_empty() {
            self.spec.modules.push(ApiModule {
                name: String::new(),
                classes: Vec::new(),
                functions: Vec::new(),
                span: at..at,
            });
        }
        self.spec.modules.len() - 1
    }

    fn push_module(&mut self, name: String, span: Range<usize>) {
        let name = match &self.package_dir {
            Some(dir) if !name.contains('/') && source_extension(&name).is_some() => {
                let dir = if dir.contains('/') {
                    dir.clone()
                } else {
                    dir.replace('.', "/")
                };
                format!("{dir}/{name}")
            }
            _ => {
                self.package_dir = source_extension(&name).is_none().then(|| name.clone());
                name
            }
        };
        self.spec.modules.push(ApiModule {
            name,
            classes: Vec::new(),
            functions: Vec::new(),
            span,
        });
        self.class = None;
    }

    fn lang(&self, fence: Option<&Fence>) -> Lang {
        if let Some(l) = fence.and_then(|f| f.lang) {
            return l;
        }
        self.spec
            .modules
            .last()
            .and_then(|m| Lang::from_path(&m.name))
            .unwrap_or(self.default_lang)
    }
}

/// The code of a signature line: the first backticked span of a list item, or the
/// line without its trailing comment or prose.
fn code_part(content: &str, backticked: bool) -> (usize, &str) {
    if backticked {
        let end = content.find('`').unwrap_or(content.len());
        return (0, &content[..end]);
    }
    // one pass over the bytes that can start a marker (`//`, ` # `, `  #`, ` — `,
    // ` – `, a tab and `#`), not a substring search per marker
    let bytes = content.as_bytes();
    let end = memchr::memchr3_iter(b'/', b' ', b'\t', bytes)
        .find(|&i| {
            let rest = &bytes[i..];
            match bytes[i] {
                b'/' => rest.starts_with(b"//"),
                b'\t' => rest.get(1) == Some(&b'#'),
                _ => {
                    rest.starts_with(" # ".as_bytes())
                        || rest.starts_with("  #".as_bytes())
                        || rest.starts_with(" — ".as_bytes())
                        || rest.starts_with(" – ".as_bytes())
                }
            }
        })
        .unwrap_or(content.len());
    (0, &content[..end])
}

fn is_list_item(text: &str) -> bool {
    let t = text.trim_start();
    t.starts_with("- ") || t.starts_with("* ") || t.starts_with("+ ") || {
        let digits = t.bytes().take_while(u8::is_ascii_digit).count();
        digits > 0 && matches!(t.as_bytes().get(digits), Some(b'.' | b')'))
    }
}

/// Reads a spec whose architecture states no stack (the tests' shorthand).
#[cfg(test)]
pub fn parse(text: &str) -> ApiSpec {
    parse_in(text, Lang::Unknown)
}

/// Reads the spec; `default_lang` is the stack the architecture states, used where
/// neither a fence tag nor a file extension says.
pub fn parse_in(text: &str, default_lang: Lang) -> ApiSpec {
    let mut r = Reader {
        spec: ApiSpec::default(),
        class: None,
        package_dir: None,
        default_lang,
    };
    let mut fence: Option<Fence> = None;
    let mut table: Option<Table> = None;
    // The backticked spans after the first on a list item (`- \`type Clock func()\`;
    // \`type Limits struct {…}\``): read once the first has set the class they follow.
    let mut later: Vec<Range<usize>> = Vec::new();
    for line in lines(text) {
        for span in later.drain(..) {
            let lang = r.lang(None);
            read_later_span(&mut r, &text[span.clone()], span.start, lang);
        }
        let trimmed = line.text.trim();
        if is_fence(trimmed) {
            fence = match fence {
                Some(_) => None,
                None => {
                    let tag = trimmed.trim_start_matches(['`', '~']).trim();
                    Some(Fence {
                        lang: Lang::from_tag(tag),
                        data: is_data_tag(tag.split([' ', '{']).next().unwrap_or("")),
                        first: true,
                    })
                }
            };
            continue;
        }
        if trimmed.is_empty() || trimmed == "{" || fence.as_ref().is_some_and(|f| f.data) {
            continue;
        }
        let first_in_fence = fence.as_ref().is_some_and(|f| f.first);
        if let Some(f) = fence.as_mut() {
            f.first = false;
        }
        let in_fence = fence.is_some();
        let level = if in_fence {
            None
        } else {
            heading_level(line.text)
        };
        let indent = line.indent();
        if let Some((m, c, Scope::Pending(i))) = r.class {
            r.class = if indent > i {
                Some((m, c, Scope::Indent(i)))
            } else if is_list_item(line.text) && level.is_none() {
                Some((m, c, Scope::Heading(7)))
            } else {
                None
            };
        }
        if let Some((_, _, scope)) = r.class {
            let ends = match (scope, level) {
                (Scope::Heading(l), Some(h)) => h <= l,
                (Scope::Heading(_), None) => false,
                (Scope::Indent(i), _) => indent <= i,
                (Scope::Pending(_), _) => false,
            };
            if ends {
                r.class = None;
            }
        }
        if !trimmed.starts_with('|') {
            table = None;
        }
        let offset = content_start(line.text);
        let content = line.text[offset..].trim_end();
        // A path comment opening a code block names its module.
        if first_in_fence {
            let comment = ["//", "#", "--"]
                .iter()
                .find_map(|c| trimmed.strip_prefix(c).filter(|r| !r.starts_with('[')));
            if let Some(rest) = comment {
                let rest_trimmed = rest.trim();
                if let Some((name, range)) = module_header(rest_trimmed, false) {
                    let within = rest_trimmed.as_ptr() as usize - line.text.as_ptr() as usize;
                    let start = line.start + within + range.start;
                    r.push_module(name, start..start + range.len());
                    continue;
                }
            }
        }
        if level.is_some() {
            let heading = line.text.trim_start().trim_start_matches('#');
            let heading_at = line.text.len() - heading.len();
            let paths = heading_paths(heading);
            if !paths.is_empty() {
                for (name, range) in paths {
                    let start = line.start + heading_at + range.start;
                    r.push_module(name, start..start + range.len());
                }
                continue;
            }
        }
        if !in_fence && read_imports_line(&mut r.spec, content) {
            continue;
        }
        let backticked = offset > 0 && line.text.as_bytes()[offset - 1] == b'`';
        if !in_fence && backticked && is_list_item(line.text) {
            later = later_spans(line.text, line.start);
        }
        if !in_fence && let Some((name, range)) = module_header(content, level.is_some()) {
            let start = line.start + offset + range.start;
            r.push_module(name, start..start + range.len());
            continue;
        }
        if !in_fence && trimmed.starts_with('|') {
            read_table_row(&mut r, &mut table, line.text, line.start);
            continue;
        }
        if in_fence {
            if read_import(&mut r.spec, trimmed) {
                continue;
            }
            if is_comment(trimmed) {
                continue;
            }
        }
        let lang = r.lang(fence.as_ref());
        if !in_fence && let Some((name, at)) = bold_name(content) {
            let start = line.start + offset + at;
            r.mention(start, name, lang);
            continue;
        }
        if !in_fence
            && backticked
            && let Some(name) = shape_name(content)
        {
            let start = line.start + offset;
            r.mention(start, name.to_string(), lang);
            continue;
        }
        let header = class_header(content)
            .or_else(|| level.and_then(|_| heading_class(content, line.text.contains('`'))));
        if let Some(h) = header {
            let start = line.start + offset + h.at;
            let header_types = h
                .params
                .map(|(a, b)| {
                    signature_types(
                        &content[a - 1..=b.min(content.len() - 1)],
                        line.start + offset + a - 1,
                        lang,
                    )
                })
                .unwrap_or_default();
            let methods = inline_members(content, h.at, line.start + offset, lang);
            let m = r.module(start);
            let module = &mut r.spec.modules[m];
            module.classes.push(ApiClass {
                span: start..start + h.name.len(),
                name: h.name,
                kind: h.kind,
                bases: h.bases,
                generics: h.generics,
                methods,
                header_types,
                lang,
            });
            let scope = match level {
                Some(l) => Scope::Heading(l),
                None if in_fence || is_list_item(line.text) => Scope::Indent(indent),
                None => Scope::Pending(indent),
            };
            r.class = Some((m, module.classes.len() - 1, scope));
            continue;
        }
        if let Some(target) = impl_target(content) {
            if let Some((m, c)) = find_class(&r.spec, target) {
                r.class = Some((m, c, Scope::Indent(indent)));
            }
            continue;
        }
        let code = in_fence || backticked;
        let decorated = strip_decorations(content);
        if decorated.is_empty() {
            continue;
        }
        // The name is read after any annotation on the same line (`@Post() create(…)`,
        // `@Transactional(readOnly = true) public Loan lend(…)`); `decorated` is a
        // suffix of `content`, so offsets stay relative to `content`.
        let decorated_at = content.len() - decorated.len();
        let (receiver, rest, rest_at) = go_receiver(decorated);
        let rest_at = decorated_at + rest_at;
        let Some((name, at)) = function_header(rest, code) else {
            if !in_fence && later.is_empty() {
                inline_declarations(&mut r, line.text, line.start, lang);
            }
            continue;
        };
        let at = rest_at + at;
        let start = line.start + offset + at;
        let (code_at, code_text) = code_part(content, backticked);
        let name_end = at + name.len();
        let types = if name_end >= code_at && name_end <= code_at + code_text.len() {
            let after = &content[name_end..code_at + code_text.len()];
            signature_types(after, line.start + offset + name_end, lang)
        } else {
            Vec::new()
        };
        let signature = Signature {
            span: start..start + name.len(),
            name,
            text: content.trim_matches('`').to_string(),
            types,
            lang,
        };
        if let Some(receiver) = receiver {
            let (m, c) = match find_class(&r.spec, receiver) {
                Some(found) => found,
                None => {
                    let m = r.module(start);
                    r.spec.modules[m].classes.push(ApiClass {
                        name: receiver.to_string(),
                        kind: ClassKind::Struct,
                        bases: Vec::new(),
                        generics: Vec::new(),
                        methods: Vec::new(),
                        header_types: Vec::new(),
                        lang,
                        span: signature.span.clone(),
                    });
                    (m, r.spec.modules[m].classes.len() - 1)
                }
            };
            r.spec.modules[m].classes[c].methods.push(signature);
            continue;
        }
        let m = r.module(start);
        match r.class {
            Some((cm, c, _)) => match r
                .spec
                .modules
                .get_mut(cm)
                .and_then(|x| x.classes.get_mut(c))
            {
                Some(class) => class.methods.push(signature),
                None => r.spec.modules[m].functions.push(signature),
            },
            None => r.spec.modules[m].functions.push(signature),
        }
    }
    for span in later {
        let lang = r.lang(None);
        read_later_span(&mut r, &text[span.clone()], span.start, lang);
    }
    r.spec
}

/// The backticked spans of a list item after its first, as ranges of the artifact.
fn later_spans(line: &str, line_start: usize) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut ticks = memchr::memchr_iter(b'`', line.as_bytes());
    // the first span: its opening and closing ticks
    if ticks.next().is_none() || ticks.next().is_none() {
        return out;
    }
    while let (Some(open), Some(close)) = (ticks.next(), ticks.next()) {
        out.push(line_start + open + 1..line_start + close);
    }
    out
}

/// A declaration in a later backticked span of a list item: a class (mentioned, as
/// declarations in prose are) or a signature (a Go method goes to its receiver's type, any other to the class
/// being read). A call (`repo.insert(x)`) is not a signature: only spans with typed
/// parameters or a return type are read.
fn read_later_span(r: &mut Reader, code: &str, at: usize, lang: Lang) {
    // `@IsInt() @Min(1)`: annotations, not a declaration
    let bare = strip_decorations(code.trim_end());
    if bare.is_empty() {
        return;
    }
    // `bare` is a suffix of `code` without its trailing space
    let at = at + (code.trim_end().len() - bare.len());
    let code = bare;
    if let Some(h) = class_header(code) {
        let methods = inline_members(code, h.at, at, lang);
        let start = at + h.at;
        let m = r.module(start);
        r.spec.modules[m].classes.push(ApiClass {
            span: start..start + h.name.len(),
            name: h.name,
            // as a declaration in prose: specified, and the diagram need not draw it
            kind: ClassKind::Mentioned,
            bases: h.bases,
            generics: h.generics,
            methods,
            header_types: Vec::new(),
            lang,
        });
        return;
    }
    let (receiver, rest, rest_at) = go_receiver(code);
    let Some(paren) = rest.find('(') else {
        return;
    };
    let typed = balanced(&rest[paren..], '(', ')')
        .is_some_and(|(inner, tail)| inner.contains([':', ' ']) || !tail.trim().is_empty());
    if !typed {
        return;
    }
    let Some(sig) = signature_in(rest, at + rest_at, lang) else {
        return;
    };
    let target = match receiver {
        Some(ty) => find_class(&r.spec, ty),
        None => r.class.map(|(m, c, _)| (m, c)),
    };
    match target {
        Some((m, c)) if r.spec.modules.get(m).is_some_and(|x| c < x.classes.len()) => {
            r.spec.modules[m].classes[c].methods.push(sig);
        }
        _ => {
            let m = r.module(sig.span.start);
            r.spec.modules[m].functions.push(sig);
        }
    }
}

/// A prose line saying what a module imports (`Imports: \`net/http\`, \`Store\` from
/// \`internal/store\``, `**Uses:** …`): its capitalised names come from elsewhere,
/// like an import statement's. Nothing on it is a module, a class or a function.
fn read_imports_line(spec: &mut ApiSpec, content: &str) -> bool {
    let bare = content.trim_start_matches(['*', '_']);
    let Some(colon) = bare.find(':') else {
        return false;
    };
    let label = bare[..colon].trim_end_matches(['*', '_']).trim();
    let is_label = [
        "imports",
        "import",
        "uses",
        "depends on",
        "dependencies",
        "requires",
    ]
    .iter()
    .any(|w| label.eq_ignore_ascii_case(w));
    if !is_label {
        return false;
    }
    for word in bare[colon..].split(|c: char| !is_ident_char(c)) {
        if word.starts_with(|c: char| c.is_ascii_uppercase()) {
            spec.imported.push(word.to_string());
        }
    }
    true
}

/// A type written as its shape in a list item (`` `CreateEventDto { title: string }` ``,
/// `` `Page<T> { items: T[] }` ``): the name, specified but not drawn.
fn shape_name(content: &str) -> Option<&str> {
    let end = content
        .find(|c: char| !is_ident_char(c))
        .unwrap_or(content.len());
    let name = &content[..end];
    if !name.starts_with(|c: char| c.is_ascii_uppercase()) {
        return None;
    }
    let mut rest = &content[end..];
    if let Some((_, r)) = balanced(rest, '<', '>') {
        rest = r;
    }
    rest.trim_start().starts_with('{').then_some(name)
}

/// The methods of a body closed on its declaration's line (`type Store interface {
/// Get(id string) (Link, error); Put(l Link) error }`, `interface Clock { now():
/// Date }`): each `;`-separated member shaped like a signature. Fields (`Code, URL
/// string`, `id: string`) have no parameter list and are left out.
fn inline_members(
    content: &str,
    name_at: usize,
    content_start: usize,
    lang: Lang,
) -> Vec<Signature> {
    let Some(open) = content[name_at..].find('{').map(|i| name_at + i) else {
        return Vec::new();
    };
    let Some((body, _)) = balanced(&content[open..], '{', '}') else {
        return Vec::new();
    };
    let body_at = open + 1;
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut part_start = 0;
    for (i, c) in body
        .char_indices()
        .chain(std::iter::once((body.len(), ';')))
    {
        match c {
            '(' | '<' | '[' | '{' => depth += 1,
            ')' | '>' | ']' | '}' => depth = depth.saturating_sub(1),
            ';' if depth == 0 => {
                let part = &body[part_start..i];
                let lead = part.len() - part.trim_start().len();
                let member = strip_decorations(part.trim());
                let member_at = body_at + part_start + lead + (part.trim().len() - member.len());
                if let Some(sig) = signature_in(member, content_start + member_at, lang) {
                    out.push(sig);
                }
                part_start = i + 1;
            }
            _ => {}
        }
    }
    out
}

/// A signature read from a piece of code that starts at `at` in the artifact, with
/// the types after its name.
fn signature_in(code: &str, at: usize, lang: Lang) -> Option<Signature> {
    let (name, name_at) = function_header(code, true)?;
    let name_end = name_at + name.len();
    Some(Signature {
        span: at + name_at..at + name_end,
        types: signature_types(&code[name_end..], at + name_end, lang),
        text: code.to_string(),
        name,
        lang,
    })
}

/// Declarations in backticks inside prose (`` `TicketResponse` is a `record
/// TicketResponse(String id)` ``): mentioned classes, specified but not required
/// in the diagram.
fn inline_declarations(r: &mut Reader, text: &str, line_start: usize, lang: Lang) {
    let mut base = 0;
    let mut rest = text;
    while let Some(open) = rest.find('`') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('`') else {
            return;
        };
        let span = &after[..close];
        if let Some(h) = class_header(span) {
            let at = line_start + base + open + 1 + h.at;
            let m = r.module(at);
            r.spec.modules[m].classes.push(ApiClass {
                span: at..at + h.name.len(),
                name: h.name,
                kind: ClassKind::Mentioned,
                bases: h.bases,
                generics: h.generics,
                methods: Vec::new(),
                header_types: Vec::new(),
                lang,
            });
        }
        let used = open + 1 + close + 1;
        base += used;
        rest = &rest[used..];
    }
}

/// The class of that name, latest first (a Go method may follow its type's section).
fn find_class(spec: &ApiSpec, name: &str) -> Option<(usize, usize)> {
    spec.modules
        .iter()
        .enumerate()
        .rev()
        .find_map(|(m, module)| {
            module
                .classes
                .iter()
                .position(|c| c.name == name)
                .map(|c| (m, c))
        })
}

/// Go's `func (s *Store) Get(…)`: the receiver's type, and the rest from the name on
/// with its offset in `content`.
fn go_receiver(content: &str) -> (Option<&str>, &str, usize) {
    let Some(rest) = content
        .trim_start_matches('`')
        .strip_prefix("func")
        .map(str::trim_start)
    else {
        return (None, content, 0);
    };
    let Some((inner, after)) = balanced(rest, '(', ')') else {
        return (None, content, 0);
    };
    let ty = inner
        .split_whitespace()
        .next_back()
        .unwrap_or("")
        .trim_start_matches('*');
    let ty = ty.split('[').next().unwrap_or(ty);
    if ty.is_empty() || !ty.chars().all(is_ident_char) {
        return (None, content, 0);
    }
    let after = after.trim_start();
    (Some(ty), after, content.len() - after.len())
}

fn is_comment(trimmed: &str) -> bool {
    trimmed.starts_with("//")
        || trimmed.starts_with("/*")
        || trimmed.starts_with("* ")
        || trimmed == "*/"
        || trimmed.starts_with("\"\"\"")
        || trimmed.starts_with("'''")
        || (trimmed.starts_with('#') && !trimmed.starts_with("#["))
        || trimmed.starts_with("-- ")
        || trimmed.starts_with("namespace ")
        || trimmed.starts_with("package ")
}

/// Import lines of the spec's code: the capitalised names they bring in.
fn read_import(spec: &mut ApiSpec, trimmed: &str) -> bool {
    let is_import = ["import ", "from ", "use ", "using ", "pub use "]
        .iter()
        .any(|p| trimmed.starts_with(p));
    if !is_import {
        return false;
    }
    for word in trimmed.split(|c: char| !is_ident_char(c)) {
        if word.starts_with(|c: char| c.is_ascii_uppercase()) {
            spec.imported.push(word.to_string());
        }
    }
    true
}

/// `**Order** — aggregate root …`, `- **Bookmark**: …`: a name the spec specifies in
/// prose, with its offset in `content`.
fn bold_name(content: &str) -> Option<(String, usize)> {
    memchr::memchr(b'*', content.as_bytes())?;
    let inner = content.strip_prefix("**").or_else(|| {
        // content_start has already skipped a leading `**`
        content
            .find("**")
            .filter(|_| content.starts_with(|c: char| c.is_ascii_uppercase()))
            .map(|_| content)
    })?;
    let end = inner.find("**")?;
    let name = inner[..end].trim_matches('`');
    if name.is_empty()
        || !name.starts_with(|c: char| c.is_ascii_uppercase())
        || !name.chars().all(is_ident_char)
        || !name.bytes().any(|b| b.is_ascii_lowercase())
    {
        return None;
    }
    let tail = inner[end + 2..].trim_start();
    if !(tail.is_empty() || tail.starts_with(['—', '–', '-', ':', '(', ','])) {
        return None;
    }
    let at = content.len() - inner.len()
        + (inner[..end].len() - inner[..end].trim_start_matches('`').len());
    Some((name.to_string(), at))
}

/// One row of a symbol table; the header row says which column holds classes.
fn read_table_row(r: &mut Reader, table: &mut Option<Table>, text: &str, line_start: usize) {
    let cells: Vec<(usize, &str)> = {
        let mut out = Vec::new();
        let mut at = 0;
        for (i, cell) in text.split('|').enumerate() {
            if i > 0 {
                out.push((at, cell));
            }
            at += cell.len() + 1;
        }
        if text.trim_end().ends_with('|') {
            out.pop();
        }
        out
    };
    let Some(t) = table.as_mut() else {
        let names: Vec<String> = cells
            .iter()
            .map(|(_, c)| clean_token(c.trim()).to_ascii_lowercase())
            .collect();
        let find = |words: &[&str]| names.iter().position(|n| words.contains(&n.as_str()));
        *table = Some(Table {
            class: find(&[
                "class", "type", "symbol", "classes", "types", "name", "struct",
            ]),
            kind: find(&["kind", "type kind", "category"]),
            header: true,
        });
        return;
    };
    if t.header {
        t.header = false;
        if cells
            .iter()
            .all(|(_, c)| c.trim().chars().all(|c| matches!(c, '-' | ':')))
        {
            return;
        }
    }
    let Some(col) = t.class else {
        return;
    };
    let Some((cell_at, cell)) = cells.get(col) else {
        return;
    };
    if let Some(kind_col) = t.kind {
        let kind = cells.get(kind_col).map_or("", |(_, c)| c.trim());
        if ["function", "method", "endpoint", "route", "module"]
            .iter()
            .any(|w| kind.eq_ignore_ascii_case(w))
        {
            return;
        }
    }
    let name = clean_token(cell.trim());
    if name.is_empty()
        || !name.starts_with(|c: char| c.is_ascii_uppercase())
        || !name.chars().all(is_ident_char)
    {
        return;
    }
    let lead = cell.len() - cell.trim_start().len();
    let inner = cell.trim_start();
    let at = line_start + cell_at + lead + inner.find(name).unwrap_or(0);
    let lang = r.lang(None);
    r.mention(at, name.to_string(), lang);
}

/// `impl Store {`, `impl Display for Store {`, `impl<S: Storage> Journal<S>`: the
/// methods that follow are Store's (Journal's).
fn impl_target(content: &str) -> Option<&str> {
    let rest = content.strip_prefix("impl")?;
    if !rest.starts_with([' ', '<']) {
        return None;
    }
    let rest = match balanced(rest, '<', '>') {
        Some((_, r)) => r,
        None => rest,
    };
    let rest = rest.trim_end_matches('{').trim();
    let target = rest.rsplit(" for ").next().unwrap_or(rest).trim();
    let name = target
        .split(|c: char| !is_ident_char(c))
        .find(|w| !w.is_empty())?;
    Some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn volk_style_spec() {
        let t = "Module: src/tm/cli.py\n  main(argv: list[str] | None = None) -> int\n\nModule: src/tm/store.py\n  class Store(Base):\n    __init__(self, path: str) -> None\n    save(self, record) -> int\n  helper() -> None\n";
        let spec = parse(t);
        assert_eq!(spec.modules.len(), 2);
        assert_eq!(spec.modules[0].functions[0].name, "main");
        let store = &spec.modules[1].classes[0];
        assert_eq!(store.name, "Store");
        assert_eq!(store.bases, ["Base"]);
        let methods: Vec<&str> = store.methods.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(methods, ["__init__", "save"]);
        assert_eq!(spec.modules[1].functions[0].name, "helper");
        assert_eq!(&t[store.span.clone()], "Store");
        assert_eq!(&t[spec.modules[1].span.clone()], "src/tm/store.py");
    }

    #[test]
    fn headings_and_fenced_code() {
        let t = "# API\n\n## Module `taskman.storage`\n\nStores tasks.\n\n### class `TaskStore`\n\n- `add(task: Task) -> int`\n- `all() -> list[Task]`\n\n### Functions\n\n- `open_store(path: str) -> TaskStore`\n\n## `taskman/cli.py`\n\n```python\nclass Cli:\n    def run(self, argv: list[str]) -> int: ...\n\ndef main() -> int: ...\n```\n";
        let spec = parse(t);
        let names: Vec<&str> = spec.modules.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["taskman.storage", "taskman/cli.py"]);
        let store = &spec.modules[0].classes[0];
        assert_eq!(store.methods.len(), 2);
        assert_eq!(spec.modules[0].functions[0].name, "open_store");
        let cli = &spec.modules[1];
        assert_eq!(cli.classes[0].methods[0].name, "run");
        assert_eq!(cli.functions[0].name, "main");
    }

    #[test]
    fn rust_impl_blocks_hold_methods() {
        let t = "## src/store.rs
```rust
pub struct Store { path: PathBuf }
impl Store {
    pub fn open(path: &Path) -> Result<Store>
}
pub fn helper() -> u32
```
";
        let spec = parse(t);
        let m = &spec.modules[0];
        assert_eq!(m.classes[0].methods[0].name, "open");
        assert_eq!(m.functions[0].name, "helper");
    }

    fn names(spec: &ApiSpec) -> Vec<(String, Vec<String>)> {
        spec.classes()
            .map(|c| {
                (
                    c.name.clone(),
                    c.methods.iter().map(|m| m.name.clone()).collect(),
                )
            })
            .collect()
    }

    #[test]
    fn methods_behind_annotations_with_arguments_are_read() {
        let t = "```java\npublic class LoanService {\n    @Transactional(readOnly = true)\n    public Loan find(UUID id);\n    @Transactional(propagation = Propagation.REQUIRED) public Loan lend(UUID book) // FR-01\n}\n```\n```ts\nexport class EventsController {\n  @Post() @UseGuards(JwtAuthGuard) create(@Body() dto: CreateEventDto): Promise<EventView>;\n  list(): Promise<EventView[]>;\n}\n```\n";
        let spec = parse(t);
        let got = names(&spec);
        let want: Vec<(String, Vec<String>)> = [
            ("LoanService", vec!["find", "lend"]),
            ("EventsController", vec!["create", "list"]),
        ]
        .into_iter()
        .map(|(n, m)| (n.to_string(), m.into_iter().map(str::to_string).collect()))
        .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn declarations_in_each_language() {
        let t = "```java\npublic interface Repo extends JpaRepository<Order, UUID> {\n    Optional<Order> findById(UUID id);\n    public <T> List<T> all(Class<T> type);\n}\n```\n```csharp\npublic readonly record struct Money(decimal Amount, string Currency);\npublic sealed class Svc\n{\n    Task<Invoice?> GetAsync(Guid id);\n}\n```\n```go\ntype Store interface {\n\tGet(ctx context.Context) ([]byte, error)\n}\ntype Bucket struct {\n\tName string\n}\nfunc (b *Bucket) Put(key string) error\n```\n```rust\npub struct Journal<S: Storage> { s: S }\nimpl<S: Storage> Journal<S> {\n    pub fn select<'q>(&self, q: &Query<'q>) -> Vec<&Entry>;\n}\n```\n```python\n@dataclass(frozen=True)\nclass Link:\n    url: str\nclass Repo(SqlRepository[Patient]):\n    def by_name(self, p: str) -> list[Patient]: ...\n```\n```ts\nexport class InMemoryRepo<T extends { id: string }> implements Repo<T> {\n  get(id: string): Promise<T | undefined>;\n}\n```\n";
        let spec = parse(t);
        let got = names(&spec);
        let want: Vec<(String, Vec<String>)> = [
            ("Repo", vec!["findById", "all"]),
            ("Money", vec![]),
            ("Svc", vec!["GetAsync"]),
            ("Store", vec!["Get"]),
            ("Bucket", vec!["Put"]),
            ("Journal", vec!["select"]),
            ("Link", vec![]),
            ("Repo", vec!["by_name"]),
            ("InMemoryRepo", vec!["get"]),
        ]
        .into_iter()
        .map(|(n, m)| (n.to_string(), m.into_iter().map(str::to_string).collect()))
        .collect();
        assert_eq!(got, want);
        let classes: Vec<&ApiClass> = spec.classes().collect();
        assert_eq!(classes[0].kind, ClassKind::Interface);
        assert_eq!(classes[0].bases, ["JpaRepository"]);
        assert_eq!(classes[1].kind, ClassKind::Record);
        assert_eq!(classes[3].kind, ClassKind::Interface);
        assert_eq!(classes[7].bases, ["SqlRepository"]);
        assert_eq!(classes[8].bases, ["Repo"]);
        assert_eq!(classes[8].generics, ["T"]);
        let types: Vec<&str> = classes[2].methods[0]
            .types
            .iter()
            .map(|(n, _)| n.as_str())
            .collect();
        assert_eq!(types, ["Guid"]);
    }

    #[test]
    fn modules_from_path_comments_packages_and_multi_file_headings() {
        let t = "## Package store (`internal/store`)\n\n### store.go\n\n```go\ntype Store interface {}\n```\n\n```ts\n// src/orders/orders.service.ts\nexport class OrdersService {}\n```\n\n### `a/source.py`, `a/parser.py`\n\n```yaml\npaths:\n  /orders/{id}:\n    get: {}\n```\n";
        let spec = parse(t);
        let names: Vec<&str> = spec.modules.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "internal/store",
                "internal/store/store.go",
                "src/orders/orders.service.ts",
                "a/source.py",
                "a/parser.py"
            ]
        );
        assert_eq!(
            &t[spec.modules[2].span.clone()],
            "src/orders/orders.service.ts"
        );
    }

    #[test]
    fn symbol_tables_and_bold_names_mention_classes() {
        let t = "| module | class | kind |\n|---|---|---|\n| orders | `Order` | class |\n| orders | place | function |\n\n- **Bookmark** — `{ id: number }`\n";
        let spec = parse(t);
        let got: Vec<(&str, ClassKind)> =
            spec.classes().map(|c| (c.name.as_str(), c.kind)).collect();
        assert_eq!(
            got,
            [
                ("Order", ClassKind::Mentioned),
                ("Bookmark", ClassKind::Mentioned)
            ]
        );
        assert_eq!(&t[spec.modules[0].classes[0].span.clone()], "Order");
    }

    #[test]
    fn a_heading_may_name_a_class() {
        let t = "## `src/orders/service.ts`\n\n### OrderService\n\n- `place(cmd: PlaceOrder): Order`\n\n### Errors\n\n- `fail(): void`\n";
        let spec = parse(t);
        assert_eq!(
            names(&spec),
            [("OrderService".to_string(), vec!["place".to_string()])]
        );
        assert_eq!(spec.modules[0].functions[0].name, "fail");
    }

    #[test]
    fn one_line_bodies_later_list_spans_imports_lines_and_catch_are_read() {
        let t = "```go\ntype Store interface { Get(id string) (Link, error); Put(l Link) error }\ntype NotFound struct{ ID string }\nfunc (e NotFound) Error() string\n```\n\n- `func NewMem(c Clock) *Mem` and `type Mem struct`\n- `type Clock func() time.Time`; `type Limits struct { Max int }` (NFR-1)\n- `save(x: Link): void` calls `repo.insert(x)`\n\nImports: `ArgumentsHost` from `@nestjs/common` (see `Store`).\n\n```ts\nexport class Filter implements ExceptionFilter {\n  catch(exception: DomainException, host: ArgumentsHost): void;\n  run(): void {\n    try { go(); }\n    catch (err) {\n    } catch (e) { }\n  }\n}\n```\n- `CreateDto { title: string; when: Date }`\n";
        let spec = parse(t);
        let got: Vec<(String, ClassKind, Vec<String>)> = spec
            .classes()
            .map(|c| {
                (
                    c.name.clone(),
                    c.kind,
                    c.methods.iter().map(|m| m.name.clone()).collect(),
                )
            })
            .collect();
        let want: Vec<(String, ClassKind, Vec<String>)> = [
            ("Store", ClassKind::Interface, vec!["Get", "Put"]),
            ("NotFound", ClassKind::Struct, vec!["Error"]),
            ("Mem", ClassKind::Mentioned, vec![]),
            ("Clock", ClassKind::Alias, vec![]),
            ("Limits", ClassKind::Mentioned, vec![]),
            ("Filter", ClassKind::Class, vec!["catch", "run"]),
            ("CreateDto", ClassKind::Mentioned, vec![]),
        ]
        .into_iter()
        .map(|(n, k, m)| {
            (
                n.to_string(),
                k,
                m.into_iter().map(str::to_string).collect(),
            )
        })
        .collect();
        assert_eq!(got, want);
        let functions: Vec<&str> = spec
            .signatures()
            .filter(|f| spec.classes().all(|c| !c.methods.contains(f)))
            .map(|f| f.name.as_str())
            .collect();
        assert_eq!(functions, ["NewMem", "save"]);
        assert!(spec.imported.iter().any(|n| n == "ArgumentsHost"));
        let store = &spec.modules[0].classes[0];
        let get_types: Vec<&str> = store.methods[0]
            .types
            .iter()
            .map(|(n, _)| n.as_str())
            .collect();
        assert_eq!(get_types, ["Link"]);
        assert_eq!(&t[store.methods[1].span.clone()], "Put");
        let catch = &spec
            .class("Filter")
            .map(|c| c.methods[0].types.clone())
            .unwrap_or_default();
        let catch: Vec<&str> = catch.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(catch, ["DomainException", "ArgumentsHost"]);
    }

    #[test]
    fn prose_with_parentheses_is_not_a_function() {
        let spec = parse("Module: a.py\nThe store (see below) keeps data.\n");
        assert!(spec.modules[0].functions.is_empty());
    }
}

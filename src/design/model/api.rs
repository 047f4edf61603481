//! The API spec: modules, their classes (with bases and methods) and functions, with
//! signatures. Models write it many ways (`Module: x.py` lines, headings, fenced
//! Python or Rust, bullet lists of signatures); the reader keys on the shapes that
//! carry meaning and skips the prose between them.

use std::ops::Range;

use super::names::{looks_like_module, source_extension};
use super::text::{content_start, heading_level, is_fence, is_ident_char, lines};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signature {
    pub name: String,
    /// The signature as written, decoration removed.
    pub text: String,
    pub span: Range<usize>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiClass {
    pub name: String,
    pub bases: Vec<String>,
    pub methods: Vec<Signature>,
    pub span: Range<usize>,
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
}

impl ApiSpec {
    pub fn classes(&self) -> impl Iterator<Item = &ApiClass> {
        self.modules.iter().flat_map(|m| m.classes.iter())
    }

    pub fn class(&self, name: &str) -> Option<&ApiClass> {
        self.classes().find(|c| c.name == name)
    }
}

const CLASS_WORDS: &[&str] = &[
    "class",
    "struct",
    "trait",
    "interface",
    "enum",
    "record",
    "protocol",
    "abstract class",
    "dataclass",
];

const MODULE_WORDS: &[&str] = &["module", "file", "package", "mod"];

/// Words that may stand before a function name and are not it.
const FUNCTION_PREFIXES: &[&str] = &[
    "def",
    "async",
    "fn",
    "pub",
    "pub(crate)",
    "func",
    "function",
    "static",
    "export",
    "public",
    "private",
    "protected",
    "const",
    "unsafe",
    "abstract",
    "override",
    "classmethod",
    "staticmethod",
    "method",
    "function:",
    "method:",
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
    if !plausible || name.is_empty() || name.contains('(') {
        return None;
    }
    // `name` is a slice of `content`; the range is that of its first occurrence,
    // which can only start at or before it (a naive search: the span is a few bytes).
    let own = name.as_ptr() as usize - content.as_ptr() as usize;
    let at = (0..=own).find(|i| content.as_bytes()[*i..].starts_with(name.as_bytes()))?;
    Some((name.to_string(), at..at + name.len()))
}

/// `class Store(Base):`, `pub struct Store`, `class Dog extends Animal implements Pet`.
fn class_header(content: &str) -> Option<(String, Vec<String>, usize)> {
    let mut rest = content.trim_start_matches(['*', '`']);
    // Every prefix and class word starts with one of these letters: most lines of a
    // spec are signatures and stop here.
    let first = rest.as_bytes().first()?.to_ascii_lowercase();
    if !matches!(
        first,
        b'p' | b'e' | b'a' | b'f' | b'd' | b'c' | b's' | b't' | b'i' | b'r'
    ) {
        return None;
    }
    for prefix in [
        "pub(crate) ",
        "pub ",
        "export ",
        "public ",
        "abstract ",
        "final ",
        "data ",
    ] {
        rest = rest.strip_prefix(prefix).unwrap_or(rest);
    }
    let word_end = rest.find(|c: char| !c.is_ascii_alphabetic())?;
    let word = &rest[..word_end];
    if !CLASS_WORDS.iter().any(|w| w.eq_ignore_ascii_case(word)) {
        return None;
    }
    let after = rest[word_end..].trim_start_matches([':', '*', '`', ' ']);
    let name_len = after
        .char_indices()
        .find(|(_, c)| !is_ident_char(*c))
        .map_or(after.len(), |(i, _)| i);
    let name = &after[..name_len];
    if !name.chars().next().is_some_and(|c| c.is_ascii_uppercase()) {
        return None;
    }
    let name_at = content.len() - after.len();
    let tail = &after[name_len..];
    let mut bases = Vec::new();
    if let Some(inner) = tail.strip_prefix('(') {
        let inner = inner.split(')').next().unwrap_or("");
        bases.extend(
            inner
                .split(',')
                .map(|b| {
                    clean_token(b.trim())
                        .rsplit('.')
                        .next()
                        .unwrap_or("")
                        .to_string()
                })
                .filter(|b| !b.is_empty() && !b.contains('=')),
        );
    } else {
        let words: Vec<&str> = tail
            .split(|c: char| c.is_whitespace() || c == ',')
            .collect();
        let mut take = false;
        for w in words {
            match w {
                "extends" | "implements" | ":" => take = true,
                "{" | "" => {}
                w if take => bases.push(clean_token(w).to_string()),
                _ => {}
            }
        }
        if let Some(list) = tail.trim_start().strip_prefix(':') {
            bases.extend(
                list.split(['+', ',', '{'])
                    .map(|b| clean_token(b.trim()).to_string())
                    .filter(|b| b.chars().next().is_some_and(|c| c.is_ascii_uppercase())),
            );
        }
    }
    bases.dedup();
    Some((name.to_string(), bases, name_at))
}

/// `save(self, record) -> int`, `def save(...)`, `+save(record) int`, `pub fn save(&self)`:
/// the function name and where it starts within `content`.
fn function_header(content: &str) -> Option<(String, usize)> {
    let paren = content.find('(')?;
    let before = &content[..paren];
    let name_word = before.split_whitespace().next_back()?;
    let name = name_word.trim_start_matches(['+', '-', '#', '~', '`', '*', '@']);
    if name.is_empty()
        || !name.chars().all(is_ident_char)
        || name.chars().next().is_some_and(|c| c.is_ascii_digit())
    {
        return None;
    }
    let prefix_words = before.split_whitespace().rev().skip(1);
    for w in prefix_words {
        let w = clean_token(w);
        if !FUNCTION_PREFIXES.iter().any(|p| p.eq_ignore_ascii_case(w))
            && !w.starts_with('@')
            && !w.starts_with('+')
            && !w.is_empty()
        {
            return None;
        }
    }
    // `name` is a slice of `before`: its offset is the distance between the two.
    let at = name.as_ptr() as usize - before.as_ptr() as usize;
    Some((name.to_string(), at))
}

/// Where a class's methods end: a heading class lasts until a heading as high; an
/// indented class until a line as far left.
#[derive(Debug, Clone, Copy)]
enum Scope {
    Heading(usize),
    Indent(usize),
}

pub fn parse(text: &str) -> ApiSpec {
    let mut modules: Vec<ApiModule> = Vec::new();
    let mut class: Option<(usize, Scope)> = None;
    let mut in_fence = false;
    for line in lines(text) {
        let trimmed = line.text.trim();
        if is_fence(trimmed) {
            in_fence = !in_fence;
            continue;
        }
        if trimmed.is_empty() {
            continue;
        }
        let level = if in_fence {
            None
        } else {
            heading_level(line.text)
        };
        let indent = line.indent();
        let offset = content_start(line.text);
        let content = line.text[offset..].trim_end();
        if let Some((_, scope)) = class {
            let ends = match (scope, level) {
                (Scope::Heading(l), Some(h)) => h <= l,
                (Scope::Heading(_), None) => false,
                (Scope::Indent(i), _) => indent <= i,
            };
            if ends {
                class = None;
            }
        }
        if let Some((name, range)) = module_header(content, level.is_some()) {
            let start = line.start + offset + range.start;
            modules.push(ApiModule {
                name,
                classes: Vec::new(),
                functions: Vec::new(),
                span: start..start + range.len(),
            });
            class = None;
            continue;
        }
        if let Some((name, bases, at)) = class_header(content) {
            let start = line.start + offset + at;
            let module = current_module(&mut modules, start);
            module.classes.push(ApiClass {
                span: start..start + name.len(),
                name,
                bases,
                methods: Vec::new(),
            });
            let scope = match level {
                Some(l) => Scope::Heading(l),
                None => Scope::Indent(indent),
            };
            class = Some((module.classes.len() - 1, scope));
            continue;
        }
        if let Some(target) = impl_target(content) {
            let module = current_module(&mut modules, line.start);
            if let Some(index) = module.classes.iter().position(|c| c.name == target) {
                class = Some((index, Scope::Indent(indent)));
            }
            continue;
        }
        if let Some((name, at)) = function_header(content) {
            let start = line.start + offset + at;
            let signature = Signature {
                span: start..start + name.len(),
                name,
                text: content.trim_matches('`').to_string(),
            };
            let module = current_module(&mut modules, start);
            match class {
                Some((index, _)) => match module.classes.get_mut(index) {
                    Some(c) => c.methods.push(signature),
                    None => module.functions.push(signature),
                },
                None => module.functions.push(signature),
            }
        }
    }
    ApiSpec { modules }
}

/// `impl Store {` or `impl Display for Store {`: the methods that follow are Store's.
fn impl_target(content: &str) -> Option<&str> {
    let rest = content.strip_prefix("impl")?;
    if !rest.starts_with([' ', '<']) {
        return None;
    }
    let rest = rest.trim_end_matches('{').trim();
    let target = rest.rsplit(" for ").next().unwrap_or(rest).trim();
    let name = target
        .split(|c: char| !is_ident_char(c))
        .find(|w| !w.is_empty())?;
    Some(name)
}

/// The module being read; signatures before any module header go to an unnamed one.
fn current_module(modules: &mut Vec<ApiModule>, at: usize) -> &mut ApiModule {
    if modules.is_empty() {
        modules.push(ApiModule {
            name: String::new(),
            classes: Vec::new(),
            functions: Vec::new(),
            span: at..at,
        });
    }
    let last = modules.len() - 1;
    &mut modules[last]
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

    #[test]
    fn prose_with_parentheses_is_not_a_function() {
        let spec = parse("Module: a.py\nThe store (see below) keeps data.\n");
        assert!(spec.modules[0].functions.is_empty());
    }
}

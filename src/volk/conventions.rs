//! The conventions the first design prompt states because the design compiler checks
//! them: the target language a scope names (and the stack around it), and the test
//! layout and naming that D022 ("every source module has a test file") accepts for
//! that language. [`test_convention`] is the one place that wording lives; it must say
//! what `design::model::names` accepts.

/// A language whose test convention the prompt can state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    Python,
    Go,
    TypeScript,
    JavaScript,
    Java,
    CSharp,
    Rust,
}

impl Language {
    pub fn name(self) -> &'static str {
        match self {
            Language::Python => "Python",
            Language::Go => "Go",
            Language::TypeScript => "TypeScript",
            Language::JavaScript => "JavaScript",
            Language::Java => "Java",
            Language::CSharp => "C#",
            Language::Rust => "Rust",
        }
    }

    const ALL: [Language; 7] = [
        Language::Python,
        Language::Go,
        Language::TypeScript,
        Language::JavaScript,
        Language::Java,
        Language::CSharp,
        Language::Rust,
    ];

    /// The file extension of its source files, for counting them in the context.
    fn extension(self) -> &'static str {
        match self {
            Language::Python => ".py",
            Language::Go => ".go",
            Language::TypeScript => ".ts",
            Language::JavaScript => ".js",
            Language::Java => ".java",
            Language::CSharp => ".cs",
            Language::Rust => ".rs",
        }
    }
}

/// The test layout and naming D022 accepts for `language`, in the design compiler's own
/// words (`design::lint::test_convention`, the rule it enforces), with the files that need
/// none; for a design whose language is still open, every ecosystem's, to pick from.
pub fn test_convention(language: Option<Language>) -> String {
    use crate::design::lint::{DECLARATIVE_FILES, test_convention as checked};
    use crate::design::model::Lang;
    let lang = |l: Language| match l {
        Language::Python => Lang::Python,
        Language::Go => Lang::Go,
        Language::TypeScript | Language::JavaScript => Lang::TypeScript,
        Language::Java => Lang::Java,
        Language::CSharp => Lang::CSharp,
        Language::Rust => Lang::Rust,
    };
    let rule = match language {
        Some(l) => format!(
            "FILE_TREE lists a test for every source module that has behaviour (an exception or error type with methods has), named the {} way. {}",
            l.name(),
            checked(lang(l))
        ),
        None => {
            let all: Vec<&str> = Lang::ALL.iter().map(|l| checked(*l)).collect();
            format!(
                "FILE_TREE lists a test for every source module that has behaviour (an exception or error type with methods has), named the way of the language you choose. {}",
                all.join(" ")
            )
        }
    };
    format!("{rule} {DECLARATIVE_FILES}")
}

/// True when `text` has `word` with no letter or digit on either side (ASCII case
/// folded).
fn has_word(text: &str, word: &str) -> Option<usize> {
    let lower = text.to_ascii_lowercase();
    let mut from = 0;
    while let Some(at) = lower[from..].find(word) {
        let start = from + at;
        let end = start + word.len();
        let before = lower[..start].chars().next_back();
        let after = lower[end..].chars().next();
        let edge = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric() && c != '_');
        // `node.js` and `.net` keep their dots; a word ending in `#` needs no edge.
        if edge(before) && (edge(after) || word.ends_with('#')) {
            return Some(start);
        }
        from = end;
    }
    None
}

/// Where `text` names `language`, if it does. "Go" only counts written as `Go` after
/// a word like "in", "with" or "using", or as `golang`: the verb is far more common.
fn named_at(text: &str, language: Language) -> Option<usize> {
    let words: &[&str] = match language {
        Language::Python => &["python", "python3"],
        Language::Go => &["golang"],
        Language::TypeScript => &["typescript", "deno"],
        Language::JavaScript => &["javascript", "node.js", "nodejs"],
        Language::Java => &["java", "jvm"],
        Language::CSharp => &["c#", "csharp", ".net", "dotnet", "asp.net"],
        Language::Rust => &["rust", "cargo"],
    };
    let mut found = words.iter().filter_map(|w| has_word(text, w)).min();
    if language == Language::Go {
        for lead in [
            "in Go",
            "with Go",
            "using Go",
            "on Go",
            "written in Go",
            "Go 1.",
        ] {
            if let Some(at) = text.find(lead) {
                let end = at + lead.len();
                let after = text[end..].chars().next();
                if lead.ends_with('.') || after.is_none_or(|c| !c.is_alphanumeric()) {
                    found = Some(found.map_or(at, |f| f.min(at)));
                }
            }
        }
    }
    found
}

/// The language the scope names, with the line that names it; the earliest mention
/// wins when it names several.
pub fn language_in_scope(texts: &[&str]) -> Option<(Language, String)> {
    for text in texts {
        let best = Language::ALL
            .iter()
            .filter_map(|l| named_at(text, *l).map(|at| (at, *l)))
            .min_by_key(|(at, _)| *at);
        if let Some((at, language)) = best {
            let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
            let line_end = text[at..].find('\n').map_or(text.len(), |i| at + i);
            let line = text[line_start..line_end].trim();
            return Some((language, line.to_string()));
        }
    }
    None
}

/// The language most of the existing sources in the context are written in.
pub fn language_in_context(context: &str) -> Option<Language> {
    Language::ALL
        .iter()
        .map(|l| {
            let ext = l.extension();
            let count = context
                .match_indices(ext)
                .filter(|(at, _)| {
                    let after = context[at + ext.len()..].chars().next();
                    after.is_none_or(|c| !c.is_alphanumeric())
                })
                .count();
            (count, *l)
        })
        .filter(|(count, _)| *count > 0)
        .max_by_key(|(count, _)| *count)
        .map(|(_, l)| l)
}

/// Storage, frameworks and platforms a scope names, in the order they first appear.
pub fn stack_in_scope(texts: &[&str]) -> Vec<&'static str> {
    const STACK: &[(&str, &str)] = &[
        ("sqlite", "SQLite"),
        ("postgresql", "PostgreSQL"),
        ("postgres", "PostgreSQL"),
        ("mysql", "MySQL"),
        ("redis", "Redis"),
        ("mongodb", "MongoDB"),
        ("kafka", "Kafka"),
        ("rabbitmq", "RabbitMQ"),
        ("fastapi", "FastAPI"),
        ("flask", "Flask"),
        ("django", "Django"),
        ("tokio", "Tokio"),
        ("axum", "Axum"),
        ("grpc", "gRPC"),
        ("graphql", "GraphQL"),
        ("docker", "Docker"),
        ("kubernetes", "Kubernetes"),
        ("standard library only", "the standard library only"),
        ("s3", "S3"),
    ];
    // Everyday words that also name frameworks ("react", "rest", "spring", "express")
    // are left out: in a scope they far more often mean the word.
    let text = texts.join("\n");
    let mut found: Vec<(usize, &'static str)> = STACK
        .iter()
        .filter_map(|(word, name)| has_word(&text, word).map(|at| (at, *name)))
        .collect();
    found.sort_by_key(|(at, _)| *at);
    let mut names: Vec<&'static str> = Vec::new();
    for (_, name) in found {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_language_a_scope_names_is_found_with_its_line() {
        let (l, line) = language_in_scope(&[
            "A CLI",
            "Runs on Python 3.11+ with the standard library only",
        ])
        .unwrap();
        assert_eq!(l, Language::Python);
        assert_eq!(line, "Runs on Python 3.11+ with the standard library only");
        assert_eq!(
            language_in_scope(&["A service written in Go, on Redis."])
                .unwrap()
                .0,
            Language::Go
        );
        assert_eq!(language_in_scope(&["Go to the page and trust it."]), None);
        assert_eq!(
            language_in_scope(&["a JavaScript front end"]).unwrap().0,
            Language::JavaScript
        );
        assert_eq!(
            language_in_scope(&["an ASP.NET API in C#"]).unwrap().0,
            Language::CSharp
        );
        assert_eq!(
            language_in_context("src/a.rs\nsrc/b.rs\nlib/c.py"),
            Some(Language::Rust)
        );
        assert_eq!(language_in_context("no code"), None);
    }

    #[test]
    fn the_stack_keeps_its_order_and_skips_inner_words() {
        assert_eq!(
            stack_in_scope(&["Store it in SQLite; cache with Redis", "not interesting"]),
            ["SQLite", "Redis"]
        );
        assert!(stack_in_scope(&["a restful interest"]).is_empty());
    }

    #[test]
    fn every_language_has_its_convention() {
        assert!(test_convention(Some(Language::Python)).contains("test_<module>.py"));
        assert!(test_convention(Some(Language::Go)).contains("<file>_test.go"));
        assert!(test_convention(Some(Language::Rust)).contains("#[cfg(test)]"));
        let open = test_convention(None);
        for needle in [
            "test_<module>.py",
            "<module>_test.py",
            "_test.go",
            ".spec.ts",
            ".test.ts",
            "Tests.java",
            "Tests.cs",
            "Declarative files need no test",
            "#[cfg(test)]",
        ] {
            assert!(open.contains(needle), "{needle}: {open}");
        }
    }
}

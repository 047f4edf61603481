//! The languages the symbol index understands, recognised by file extension.

use std::path::Path;

use serde::{Deserialize, Serialize};

/// A source language with a tree-sitter grammar. TypeScript and TSX are separate
/// grammars (JSX syntax is not valid TypeScript), so they are separate variants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    Rust,
    Python,
    TypeScript,
    Tsx,
    JavaScript,
    Go,
    Java,
}

impl Language {
    pub const ALL: [Language; 7] = [
        Language::Rust,
        Language::Python,
        Language::TypeScript,
        Language::Tsx,
        Language::JavaScript,
        Language::Go,
        Language::Java,
    ];

    /// The language of a file, from its extension; `None` for anything else, which the
    /// walker then never opens.
    pub fn of_path(path: &Path) -> Option<Language> {
        let ext = path.extension()?.to_str()?;
        Some(match ext {
            "rs" => Language::Rust,
            "py" | "pyi" => Language::Python,
            "ts" | "mts" | "cts" => Language::TypeScript,
            "tsx" => Language::Tsx,
            "js" | "mjs" | "cjs" | "jsx" => Language::JavaScript,
            "go" => Language::Go,
            "java" => Language::Java,
            _ => return None,
        })
    }

    /// The tag used for Markdown code fences in the injected block.
    pub fn fence(self) -> &'static str {
        match self {
            Language::Rust => "rust",
            Language::Python => "python",
            Language::TypeScript => "typescript",
            Language::Tsx => "tsx",
            Language::JavaScript => "javascript",
            Language::Go => "go",
            Language::Java => "java",
        }
    }

    pub fn grammar(self) -> tree_sitter::Language {
        match self {
            Language::Rust => tree_sitter_rust::LANGUAGE.into(),
            Language::Python => tree_sitter_python::LANGUAGE.into(),
            Language::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Language::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Language::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Language::Go => tree_sitter_go::LANGUAGE.into(),
            Language::Java => tree_sitter_java::LANGUAGE.into(),
        }
    }
}

/// One tree-sitter parser per language, created on first use. Parsers are not `Sync`,
/// so each walker thread owns a set.
#[derive(Default)]
pub struct Parsers {
    slots: [Option<tree_sitter::Parser>; 7],
}

impl Parsers {
    /// The parser for `language`; fails only when the grammar's ABI does not match the
    /// tree-sitter library (a build problem, reported per file and skipped).
    pub fn get(
        &mut self,
        language: Language,
    ) -> Result<&mut tree_sitter::Parser, tree_sitter::LanguageError> {
        let slot = &mut self.slots[language as usize];
        match slot {
            Some(parser) => Ok(parser),
            None => {
                let mut parser = tree_sitter::Parser::new();
                parser.set_language(&language.grammar())?;
                Ok(slot.insert(parser))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_grammar_loads_into_a_parser() {
        let mut parsers = Parsers::default();
        for language in Language::ALL {
            assert!(parsers.get(language).is_ok(), "{language:?}");
        }
    }

    #[test]
    fn extensions_map_to_languages() {
        assert_eq!(Language::of_path(Path::new("a/b.rs")), Some(Language::Rust));
        assert_eq!(Language::of_path(Path::new("x.tsx")), Some(Language::Tsx));
        assert_eq!(
            Language::of_path(Path::new("x.mjs")),
            Some(Language::JavaScript)
        );
        assert_eq!(Language::of_path(Path::new("README.md")), None);
        assert_eq!(Language::of_path(Path::new("Makefile")), None);
    }
}

//! Top-level definitions of one source file, read from its tree-sitter syntax tree.
//!
//! Only the outermost declarations count (plus the bodies of inline Rust modules and
//! TypeScript `declare` blocks): they are what another module can import, and what a
//! design should reuse. Methods live inside their type's source, which is injected whole.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tree_sitter::Node;

use super::language::{Language, Parsers};

/// How long one file may take to parse before it is skipped, so that a pathological
/// file cannot stall the design.
const PARSE_BUDGET: Duration = Duration::from_secs(2);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SymbolKind {
    Class,
    Struct,
    Union,
    Enum,
    Trait,
    Interface,
    TypeAlias,
    Function,
}

impl SymbolKind {
    pub fn label(self) -> &'static str {
        match self {
            SymbolKind::Class => "class",
            SymbolKind::Struct => "struct",
            SymbolKind::Union => "union",
            SymbolKind::Enum => "enum",
            SymbolKind::Trait => "trait",
            SymbolKind::Interface => "interface",
            SymbolKind::TypeAlias => "type",
            SymbolKind::Function => "fn",
        }
    }

    /// Types come before functions in the project tree: they say more about a package.
    pub fn is_type(self) -> bool {
        self != SymbolKind::Function
    }
}

/// One definition: its name, what it is, and its lines (1-based, inclusive).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Symbol {
    pub name: String,
    pub kind: SymbolKind,
    pub start_line: u32,
    pub end_line: u32,
}

#[derive(Debug, thiserror::Error)]
pub enum ExtractError {
    #[error("the {0:?} grammar cannot be loaded: {1}")]
    Grammar(Language, tree_sitter::LanguageError),
    #[error("parsing took longer than {0:?}")]
    TooSlow(Duration),
}

/// Parses `source` and lists its top-level definitions. A file with syntax errors still
/// yields the definitions tree-sitter could recover; only a grammar failure or a parse
/// over budget is an error.
pub fn extract(
    parsers: &mut Parsers,
    language: Language,
    source: &[u8],
) -> Result<Vec<Symbol>, ExtractError> {
    let parser = parsers
        .get(language)
        .map_err(|e| ExtractError::Grammar(language, e))?;
    let started = Instant::now();
    let mut over_budget = |_: &tree_sitter::ParseState| started.elapsed() > PARSE_BUDGET;
    let options = tree_sitter::ParseOptions::new().progress_callback(&mut over_budget);
    let tree = parser.parse_with_options(
        &mut |offset, _| source.get(offset..).unwrap_or_default(),
        None,
        Some(options),
    );
    // A cancelled parse leaves state behind; the next file must start clean.
    parser.reset();
    let tree = tree.ok_or(ExtractError::TooSlow(PARSE_BUDGET))?;
    let mut out = Vec::new();
    let collector = Collector { source, language };
    collector.items(tree.root_node(), &mut out);
    Ok(out)
}

struct Collector<'s> {
    source: &'s [u8],
    language: Language,
}

impl Collector<'_> {
    /// Every named child of `container` that is a definition.
    fn items(&self, container: Node, out: &mut Vec<Symbol>) {
        let mut cursor = container.walk();
        for child in container.named_children(&mut cursor) {
            self.item(child, child, out);
        }
    }

    /// `node` is the declaration; `span` is the outermost node that belongs to it (an
    /// `export` or a decorator list), whose lines are the ones shown.
    fn item(&self, node: Node, span: Node, out: &mut Vec<Symbol>) {
        match self.language {
            Language::Rust => self.rust(node, span, out),
            Language::Python => self.python(node, span, out),
            Language::TypeScript | Language::Tsx | Language::JavaScript => {
                self.script(node, span, out)
            }
            Language::Go => self.go(node, span, out),
            Language::Java => self.java(node, span, out),
        }
    }

    fn rust(&self, node: Node, span: Node, out: &mut Vec<Symbol>) {
        let kind = match node.kind() {
            "struct_item" => SymbolKind::Struct,
            "enum_item" => SymbolKind::Enum,
            "union_item" => SymbolKind::Union,
            "trait_item" => SymbolKind::Trait,
            "type_item" => SymbolKind::TypeAlias,
            "function_item" => SymbolKind::Function,
            "mod_item" => {
                if let Some(body) = node.child_by_field_name("body") {
                    self.items(body, out);
                }
                return;
            }
            _ => return,
        };
        self.named(node, span, kind, out);
    }

    fn python(&self, node: Node, span: Node, out: &mut Vec<Symbol>) {
        let kind = match node.kind() {
            "class_definition" => SymbolKind::Class,
            "function_definition" => SymbolKind::Function,
            "decorated_definition" => {
                if let Some(inner) = node.child_by_field_name("definition") {
                    self.python(inner, span, out);
                }
                return;
            }
            _ => return,
        };
        self.named(node, span, kind, out);
    }

    fn script(&self, node: Node, span: Node, out: &mut Vec<Symbol>) {
        let kind = match node.kind() {
            "class_declaration" | "abstract_class_declaration" => SymbolKind::Class,
            "interface_declaration" => SymbolKind::Interface,
            "type_alias_declaration" => SymbolKind::TypeAlias,
            "enum_declaration" => SymbolKind::Enum,
            "function_declaration" | "generator_function_declaration" | "function_signature" => {
                SymbolKind::Function
            }
            "export_statement" => {
                if let Some(inner) = node.child_by_field_name("declaration") {
                    self.script(inner, span, out);
                }
                return;
            }
            "ambient_declaration" => {
                let mut cursor = node.walk();
                for inner in node.named_children(&mut cursor) {
                    self.script(inner, span, out);
                }
                return;
            }
            "lexical_declaration" | "variable_declaration" => {
                self.bound_functions(node, span, out);
                return;
            }
            _ => return,
        };
        self.named(node, span, kind, out);
    }

    /// `const handler = () => …` and `let Widget = class …` are definitions too.
    fn bound_functions(&self, node: Node, span: Node, out: &mut Vec<Symbol>) {
        let mut cursor = node.walk();
        for declarator in node.named_children(&mut cursor) {
            if declarator.kind() != "variable_declarator" {
                continue;
            }
            let Some(value) = declarator.child_by_field_name("value") else {
                continue;
            };
            let kind = match value.kind() {
                "arrow_function" | "function_expression" | "function" | "generator_function" => {
                    SymbolKind::Function
                }
                "class" => SymbolKind::Class,
                _ => continue,
            };
            self.named(declarator, span, kind, out);
        }
    }

    fn go(&self, node: Node, span: Node, out: &mut Vec<Symbol>) {
        match node.kind() {
            "function_declaration" => self.named(node, span, SymbolKind::Function, out),
            "type_declaration" => {
                let mut cursor = node.walk();
                let specs: Vec<Node> = node.named_children(&mut cursor).collect();
                // A grouped `type ( … )` shows each spec alone; a single one shows the
                // whole declaration with its doc comment position.
                let grouped = specs.len() > 1;
                for spec in specs {
                    let kind = match spec.kind() {
                        "type_alias" => SymbolKind::TypeAlias,
                        "type_spec" => match spec.child_by_field_name("type").map(|t| t.kind()) {
                            Some("struct_type") => SymbolKind::Struct,
                            Some("interface_type") => SymbolKind::Interface,
                            _ => SymbolKind::TypeAlias,
                        },
                        _ => continue,
                    };
                    self.named(spec, if grouped { spec } else { span }, kind, out);
                }
            }
            _ => {}
        }
    }

    fn java(&self, node: Node, span: Node, out: &mut Vec<Symbol>) {
        let kind = match node.kind() {
            "class_declaration" | "record_declaration" => SymbolKind::Class,
            "interface_declaration" | "annotation_type_declaration" => SymbolKind::Interface,
            "enum_declaration" => SymbolKind::Enum,
            _ => return,
        };
        self.named(node, span, kind, out);
    }

    /// Records `node` under the text of its `name` field, if it has a usable one.
    fn named(&self, node: Node, span: Node, kind: SymbolKind, out: &mut Vec<Symbol>) {
        if node.has_error() && node.child_by_field_name("name").is_none() {
            return;
        }
        let Some(name_node) = node.child_by_field_name("name") else {
            return;
        };
        let Ok(name) = name_node.utf8_text(self.source) else {
            return;
        };
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
        {
            return;
        }
        let start = span.start_position().row;
        let end_point = span.end_position();
        // A node that ends at column 0 ends on the previous line.
        let end = if end_point.column == 0 && end_point.row > start {
            end_point.row - 1
        } else {
            end_point.row
        };
        out.push(Symbol {
            name: name.to_string(),
            kind,
            start_line: line_number(start),
            end_line: line_number(end),
        });
    }
}

fn line_number(row: usize) -> u32 {
    u32::try_from(row.saturating_add(1)).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(language: Language, source: &str) -> Vec<(String, SymbolKind, u32, u32)> {
        let mut parsers = Parsers::default();
        extract(&mut parsers, language, source.as_bytes())
            .unwrap()
            .into_iter()
            .map(|s| (s.name, s.kind, s.start_line, s.end_line))
            .collect()
    }

    #[test]
    fn rust_items_and_inline_modules() {
        let src = "pub struct Task {\n    id: u32,\n}\nenum State { A }\ntrait Run {}\n\
                   type Id = u32;\nfn main() {}\nmod inner {\n    pub fn helper() {}\n}\n\
                   impl Task { fn method(&self) {} }\n";
        let got = names(Language::Rust, src);
        assert_eq!(
            got,
            vec![
                ("Task".into(), SymbolKind::Struct, 1, 3),
                ("State".into(), SymbolKind::Enum, 4, 4),
                ("Run".into(), SymbolKind::Trait, 5, 5),
                ("Id".into(), SymbolKind::TypeAlias, 6, 6),
                ("main".into(), SymbolKind::Function, 7, 7),
                ("helper".into(), SymbolKind::Function, 9, 9),
            ]
        );
    }

    #[test]
    fn python_decorators_belong_to_the_definition() {
        let src = "import os\n\n@dataclass\nclass Task:\n    id: int\n\ndef run():\n    pass\n";
        let got = names(Language::Python, src);
        assert_eq!(
            got,
            vec![
                ("Task".into(), SymbolKind::Class, 3, 5),
                ("run".into(), SymbolKind::Function, 7, 8),
            ]
        );
    }

    #[test]
    fn typescript_exports_and_bound_functions() {
        let src = "export interface Task { id: number }\nexport type Id = string;\n\
                   export const makeTask = (id: Id): Task => ({ id: 1 });\n\
                   export default class Queue {}\nenum Color { Red }\nconst x = 3;\n";
        let got = names(Language::TypeScript, src);
        let kinds: Vec<_> = got.iter().map(|g| (g.0.as_str(), g.1)).collect();
        assert_eq!(
            kinds,
            vec![
                ("Task", SymbolKind::Interface),
                ("Id", SymbolKind::TypeAlias),
                ("makeTask", SymbolKind::Function),
                ("Queue", SymbolKind::Class),
                ("Color", SymbolKind::Enum),
            ]
        );
    }

    #[test]
    fn go_type_specs_and_functions() {
        let src = "package q\n\ntype Task struct {\n\tID int\n}\n\ntype (\n\tRunner interface{ Run() }\n\tID = int\n)\n\nfunc New() *Task { return nil }\n\nfunc (t *Task) Run() {}\n";
        let got = names(Language::Go, src);
        let kinds: Vec<_> = got.iter().map(|g| (g.0.as_str(), g.1)).collect();
        assert_eq!(
            kinds,
            vec![
                ("Task", SymbolKind::Struct),
                ("Runner", SymbolKind::Interface),
                ("ID", SymbolKind::TypeAlias),
                ("New", SymbolKind::Function),
            ]
        );
    }

    #[test]
    fn java_top_level_types_only() {
        let src = "package a;\npublic class Task {\n  static class Inner {}\n}\ninterface Runner {}\nenum Color { RED }\n";
        let got = names(Language::Java, src);
        let kinds: Vec<_> = got.iter().map(|g| (g.0.as_str(), g.1)).collect();
        assert_eq!(
            kinds,
            vec![
                ("Task", SymbolKind::Class),
                ("Runner", SymbolKind::Interface),
                ("Color", SymbolKind::Enum),
            ]
        );
    }

    #[test]
    fn broken_syntax_keeps_what_can_be_recovered() {
        let src = "struct Good { a: u8 }\nfn broken( {{{ \nstruct Also;\n";
        let got = names(Language::Rust, src);
        assert!(got.iter().any(|g| g.0 == "Good"), "{got:?}");
    }
}

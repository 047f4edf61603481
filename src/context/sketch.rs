//! A cheap pre-filter for the tree-sitter index: the names that follow a declaration
//! keyword in a file, hashed.
//!
//! Parsing every file with tree-sitter costs tens of times more than reading it,
//! so the walk only records this sketch, and a file is parsed the first time a looked-up
//! name is in its sketch. The sketch may hold names that are not definitions (a keyword
//! in a comment, a method, a local binding): that only costs a parse. It must never miss
//! a name tree-sitter would report, so it errs on the generous side: every identifier
//! after a keyword, and for Go every identifier that starts a line (the specs of a
//! grouped `type ( … )` have no keyword of their own).

use super::language::Language;

/// The 32-bit FNV-1a hash of a name: small enough to keep one per sketched name in the
/// cache, and collisions only cost a needless parse.
pub fn name_hash(name: &str) -> u32 {
    bytes_hash(name.as_bytes())
}

fn bytes_hash(bytes: &[u8]) -> u32 {
    let mut hash: u32 = 0x811c_9dc5;
    for &byte in bytes {
        hash ^= u32::from(byte);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    hash
}

fn keywords(language: Language) -> &'static [&'static [u8]] {
    match language {
        Language::Rust => &[b"struct", b"enum", b"union", b"trait", b"type", b"fn"],
        Language::Python => &[b"class", b"def"],
        Language::TypeScript | Language::Tsx | Language::JavaScript => &[
            b"class",
            b"interface",
            b"type",
            b"enum",
            b"function",
            b"const",
            b"let",
            b"var",
        ],
        Language::Go => &[b"type", b"func"],
        Language::Java => &[b"class", b"interface", b"enum", b"record"],
    }
}

/// Bytes of non-ASCII characters count as identifier bytes, so `class Café` sketches
/// the whole name.
fn starts_identifier(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b == b'$' || b >= 0x80
}

fn continues_identifier(b: u8) -> bool {
    starts_identifier(b) || b.is_ascii_digit()
}

/// The sorted, distinct hashes of the names declared (or possibly declared) in `source`.
pub fn sketch(language: Language, source: &[u8]) -> Vec<u32> {
    let keywords = keywords(language);
    let line_starts_count = language == Language::Go;
    let mut out = Vec::new();
    let mut after_keyword = false;
    let mut at_line_start = true;
    let mut i = 0;
    while i < source.len() {
        let b = source[i];
        if starts_identifier(b) {
            let start = i;
            while i < source.len() && continues_identifier(source[i]) {
                i += 1;
            }
            let word = &source[start..i];
            if after_keyword || (line_starts_count && at_line_start) {
                out.push(bytes_hash(word));
            }
            after_keyword = keywords.contains(&word);
            at_line_start = false;
            continue;
        }
        if b.is_ascii_digit() {
            // A number is not a name; skip it whole so `1fn` is not read as `fn`.
            while i < source.len() && continues_identifier(source[i]) {
                i += 1;
            }
            after_keyword = false;
            at_line_start = false;
            continue;
        }
        match b {
            b'\n' => at_line_start = true,
            // Whitespace and the `*` of `function*` keep a pending keyword.
            b' ' | b'\t' | b'\r' | b'*' => {}
            _ => {
                after_keyword = false;
                at_line_start = false;
            }
        }
        i += 1;
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Whether a sketch holds the hash of a name.
pub fn holds(sketch: &[u32], hash: u32) -> bool {
    sketch.binary_search(&hash).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::language::Parsers;
    use crate::context::symbols::extract;

    fn has(language: Language, source: &str, name: &str) -> bool {
        holds(&sketch(language, source.as_bytes()), name_hash(name))
    }

    #[test]
    fn declared_names_are_in_the_sketch_and_mere_uses_are_not() {
        let src = "pub struct TaskQueue { inner: Vec<Item> }\nfn main() { let q = Item::new(); }\n";
        assert!(has(Language::Rust, src, "TaskQueue"));
        assert!(has(Language::Rust, src, "main"));
        assert!(!has(Language::Rust, src, "Item"));
        assert!(!has(Language::Rust, src, "inner"));
    }

    #[test]
    fn go_grouped_types_and_generator_functions_are_covered() {
        let go = "package a\n\ntype (\n\tRunner interface{}\n\tID = int\n)\n";
        assert!(has(Language::Go, go, "Runner"));
        assert!(has(Language::Go, go, "ID"));
        let js = "export function* walk(tree) {}\nexport const make = () => 1;\n";
        assert!(has(Language::JavaScript, js, "walk"));
        assert!(has(Language::JavaScript, js, "make"));
    }

    /// The promise the index relies on: nothing tree-sitter reports is missing here.
    #[test]
    fn every_extracted_symbol_is_in_the_sketch() {
        let samples = [
            (
                Language::Rust,
                "mod m {\n    pub(crate) unsafe fn inner() {}\n}\npub type Id = u32;\nunion U { a: u8 }\n",
            ),
            (
                Language::Python,
                "@dataclass\nclass Task:\n    pass\n\nasync def run():\n    pass\n\nclass Café:\n    pass\n",
            ),
            (
                Language::TypeScript,
                "export default class Queue {}\nexport abstract class Base {}\ndeclare function f(): void;\nexport type Id = string;\n",
            ),
            (
                Language::Tsx,
                "export const Badge = (p: P) => <b/>;\nexport enum Color { Red }\n",
            ),
            (
                Language::JavaScript,
                "var Widget = class {};\nlet handler = function () {};\n",
            ),
            (
                Language::Go,
                "package a\ntype T struct{}\ntype (\n\tA int\n\tB = string\n)\nfunc New() T { return T{} }\n",
            ),
            (
                Language::Java,
                "public final class A {}\n@interface Marker {}\nrecord Point(int x) {}\nenum E { X }\n",
            ),
        ];
        let mut parsers = Parsers::default();
        for (language, source) in samples {
            let symbols = extract(&mut parsers, language, source.as_bytes()).unwrap();
            assert!(!symbols.is_empty(), "{language:?}");
            let sketch = sketch(language, source.as_bytes());
            for symbol in symbols {
                assert!(
                    holds(&sketch, name_hash(&symbol.name)),
                    "{language:?}: {}",
                    symbol.name
                );
            }
        }
    }
}

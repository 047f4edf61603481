//! The file tree artifact: paths drawn as a tree (`├──`, `└──`, `│`), indented, or
//! listed flat. Whatever the drawing, each entry becomes a full path with the place
//! it was written.

use std::ops::Range;

use super::text::{is_fence, lines};

/// One file or directory of the tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeEntry {
    /// Full path, `/`-separated, without a trailing slash.
    pub path: String,
    /// True when written with a trailing `/` or when later entries sit under it.
    pub is_dir: bool,
    /// The name as written on its line.
    pub span: Range<usize>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileTree {
    pub entries: Vec<TreeEntry>,
}

impl FileTree {
    pub fn files(&self) -> impl Iterator<Item = &TreeEntry> {
        self.entries.iter().filter(|e| !e.is_dir)
    }
}

/// Characters of the tree drawing (box drawing and its ASCII imitations).
fn is_drawing(c: char) -> bool {
    matches!(
        c,
        '├' | '└'
            | '│'
            | '─'
            | '┬'
            | '┼'
            | '┌'
            | '╰'
            | '╭'
            | '┃'
            | '┣'
            | '┗'
            | '━'
            | '|'
            | '`'
            | '+'
            | '-'
            | '*'
            | '•'
    ) || c.is_whitespace()
}

fn is_path_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | '@' | '+' | '~' | '$' | '[' | ']')
}

/// Text after the name that marks a comment rather than more of the name.
fn is_comment_tail(rest: &str) -> bool {
    let trimmed = rest.trim_start();
    trimmed.is_empty()
        || rest.starts_with("  ")
        || rest.starts_with('\t')
        || [
            "#", "//", "<-", "←", "—", "–", "- ", "(", ":", "=", "`", "*",
        ]
        .iter()
        .any(|m| trimmed.starts_with(m))
}

/// Reads the tree. Lines that read as prose (a word followed by more words) are
/// skipped, so a model's commentary around the tree costs nothing.
pub fn parse(text: &str) -> FileTree {
    // (column of the name, path of the entry); an entry is the parent of later
    // entries written further right.
    let mut stack: Vec<(usize, usize)> = Vec::new();
    let mut entries: Vec<TreeEntry> = Vec::new();
    for line in lines(text) {
        let trimmed = line.text.trim();
        if trimmed.is_empty() || is_fence(trimmed) || trimmed.starts_with('#') {
            continue;
        }
        let Some((offset, _)) = line.text.char_indices().find(|(_, c)| !is_drawing(*c)) else {
            continue;
        };
        let column = line.text[..offset].chars().count();
        let rest = &line.text[offset..];
        let name_len = rest
            .char_indices()
            .find(|(_, c)| !is_path_char(*c))
            .map_or(rest.len(), |(i, _)| i);
        let mut name = &rest[..name_len];
        if name.is_empty() || !is_comment_tail(&rest[name_len..]) {
            continue;
        }
        if name.ends_with(':') {
            name = &name[..name.len() - 1];
        }
        let dir_written = name.ends_with('/');
        let clean = name.trim_matches('/');
        if clean.is_empty() || clean == "." || clean == ".." {
            continue;
        }
        while stack.last().is_some_and(|(col, _)| *col >= column) {
            stack.pop();
        }
        if let Some((_, parent)) = stack.last() {
            entries[*parent].is_dir = true;
        }
        let path = match stack.last() {
            Some((_, parent)) => {
                let parent = &entries[*parent].path;
                let mut path = String::with_capacity(parent.len() + 1 + clean.len());
                path.push_str(parent);
                path.push('/');
                path.push_str(clean);
                path
            }
            None => clean.to_string(),
        };
        let start = line.start + offset;
        entries.push(TreeEntry {
            path,
            is_dir: dir_written,
            span: start..start + name.len(),
        });
        stack.push((column, entries.len() - 1));
    }
    FileTree { entries }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(text: &str) -> Vec<String> {
        parse(text).files().map(|e| e.path.clone()).collect()
    }

    #[test]
    fn tree_drawing() {
        let t = "src/\n└── taskman/\n    ├── __init__.py\n    ├── cli.py   # entry\n    └── store.py\ntests/\n├── test_cli.py\n└── test_store.py\n";
        assert_eq!(
            files(t),
            [
                "src/taskman/__init__.py",
                "src/taskman/cli.py",
                "src/taskman/store.py",
                "tests/test_cli.py",
                "tests/test_store.py"
            ]
        );
    }

    #[test]
    fn indentation_and_flat_paths_and_prose() {
        let t = "The layout:\n\n```\nproj/\n  src/\n    app.py\n  README.md\n```\nsrc/lib/util.rs — helpers\n";
        assert_eq!(
            files(t),
            ["proj/src/app.py", "proj/README.md", "src/lib/util.rs"]
        );
    }

    #[test]
    fn directory_without_slash_is_a_directory_when_it_has_children() {
        let t = "pkg\n|-- a.py\n`-- sub\n    `-- b.py\n";
        assert_eq!(files(t), ["pkg/a.py", "pkg/sub/b.py"]);
        let span = parse(t).entries[1].span.clone();
        assert_eq!(&t[span], "a.py");
    }
}

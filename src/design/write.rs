//! Writes the artifacts to `PROJECT/design/`, one Markdown file each.

use std::io;
use std::path::{Path, PathBuf};

use crate::design::{Artifacts, Section};

/// Writes each non-empty section to `design_dir/<name>.md` (temp file + rename) and
/// removes the file of a section that became empty, so the directory always shows
/// exactly the current cycle. Returns the paths written.
///
/// A `design` link, or a link, FIFO or directory in place of a file, is refused (with
/// the path) and nothing is written through it.
pub fn write_design_docs(design_dir: &Path, artifacts: &Artifacts) -> io::Result<Vec<PathBuf>> {
    let root = project_root(design_dir);
    crate::confined::create_dir_all(root, design_dir)
        .map_err(|e| crate::confined::at(design_dir, e))?;
    let mut written = Vec::new();
    for section in Section::ALL {
        let path = design_dir.join(section.file_name());
        let text = artifacts.get(section);
        let located = |e| crate::confined::at(&path, e);
        if text.is_empty() {
            crate::confined::remove_file(root, &path).map_err(located)?;
            continue;
        }
        crate::confined::write_atomic(root, &path, file_body(section, text).as_bytes())
            .map_err(located)?;
        written.push(path);
    }
    Ok(written)
}

/// The file's text for a section: the class diagram goes inside a ```` ```mermaid ````
/// fence (unless the architect fenced it already) so GitHub and editors draw it.
pub fn file_body(section: Section, text: &str) -> String {
    let mut body = String::with_capacity(text.len() + 16);
    let fence = section == Section::ClassDiagram
        && !text.lines().any(|l| l.trim_start().starts_with("```"));
    if fence {
        body.push_str("```mermaid\n");
    }
    body.push_str(text);
    body.push('\n');
    if fence {
        body.push_str("```\n");
    }
    body
}

/// The artifacts as [`write_design_docs`] puts them on disk (without the final newline).
pub fn as_written(artifacts: &Artifacts) -> Artifacts {
    let mut out = artifacts.clone();
    for section in Section::ALL {
        let text = artifacts.get(section);
        if !text.is_empty() {
            let body = file_body(section, text);
            out.set(section, body.trim_end_matches('\n').to_string());
        }
    }
    out
}

/// Removes the fence [`file_body`] added, so a written design reads back unchanged.
fn unfence(section: Section, text: &str) -> &str {
    if section != Section::ClassDiagram {
        return text;
    }
    match text
        .strip_prefix("```mermaid\n")
        .and_then(|t| t.strip_suffix("\n```"))
    {
        Some(inner) if !inner.contains("```") => inner,
        _ => text,
    }
}

/// The project a `design/` directory belongs to: the root its paths are confined to.
pub fn project_root(design_dir: &Path) -> &Path {
    match design_dir.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    }
}

/// Reads one artifact file of `design_dir` as written: only a regular file inside a real
/// `design/` directory, at most [`crate::confined::Limit::DESIGN`] bytes, and UTF-8 (an
/// error names the byte offset). `Ok(None)` when it does not exist.
pub fn read_design_file(design_dir: &Path, section: Section) -> io::Result<Option<String>> {
    let path = design_dir.join(section.file_name());
    crate::confined::read_text(
        project_root(design_dir),
        &path,
        crate::confined::Limit::DESIGN,
    )
    .map_err(|e| crate::confined::at(&path, e))
}

/// Reads back the artifacts of `design_dir` (missing files are empty sections).
pub fn read_design_docs(design_dir: &Path) -> io::Result<Artifacts> {
    let mut artifacts = Artifacts::default();
    for section in Section::ALL {
        if let Some(text) = read_design_file(design_dir, section)? {
            artifacts.set(section, unfence(section, text.trim_end()).to_string());
        }
    }
    Ok(artifacts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn full() -> Artifacts {
        let mut a = Artifacts::default();
        for s in Section::ALL {
            a.set(s, format!("{} — ünïcode", s.title()));
        }
        a
    }

    #[test]
    fn writes_five_files_when_all_present() {
        let dir = tempfile::tempdir().unwrap();
        let written = write_design_docs(dir.path(), &full()).unwrap();
        assert_eq!(written.len(), 5);
        assert_eq!(read_design_docs(dir.path()).unwrap(), full());
    }

    #[test]
    fn the_class_diagram_is_written_inside_a_mermaid_fence() {
        let dir = tempfile::tempdir().unwrap();
        let mut a = full();
        a.class_diagram = "classDiagram\n  A <|-- B".into();
        write_design_docs(dir.path(), &a).unwrap();
        let text = std::fs::read_to_string(dir.path().join("class_diagram.md")).unwrap();
        assert_eq!(text, "```mermaid\nclassDiagram\n  A <|-- B\n```\n");
        assert_eq!(read_design_docs(dir.path()).unwrap(), a);
        a.class_diagram = "```mermaid\nclassDiagram\n```".into();
        assert_eq!(
            file_body(Section::ClassDiagram, &a.class_diagram),
            "```mermaid\nclassDiagram\n```\n"
        );
    }

    #[test]
    fn empty_sections_write_no_file_and_remove_stale_ones() {
        let dir = tempfile::tempdir().unwrap();
        write_design_docs(dir.path(), &full()).unwrap();
        let mut a = full();
        a.file_tree.clear();
        let written = write_design_docs(dir.path(), &a).unwrap();
        assert_eq!(written.len(), 4);
        assert!(!dir.path().join("file_tree.md").exists());
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 4, "no temp files left behind");
    }
}

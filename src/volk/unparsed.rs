//! Answers with no recognisable section are kept, never thrown away: a paid call's
//! text is the person's to read, reuse or report, even when volk cannot use it.

use std::path::{Path, PathBuf};

/// Where an unusable answer of `cycle` goes, relative to the project directory. The
/// name carries a hash of the text, so two different answers never overwrite each
/// other and the state machine can name the file before it is written.
pub fn relative_path(cycle: u32, text: &str) -> String {
    format!(
        ".volk/unparsed/cycle-{cycle}-{:08x}.md",
        fnv1a(text.as_bytes())
    )
}

/// Writes the answer under the project directory; returns the full path.
pub fn keep(project_dir: &Path, relative: &str, text: &str) -> std::io::Result<PathBuf> {
    let path = project_dir.join(relative);
    if let Some(dir) = path.parent() {
        crate::confined::create_private_dir(project_dir, dir)?;
    }
    crate::confined::write_atomic(project_dir, &path, text.as_bytes())?;
    Ok(path)
}

/// 32-bit FNV-1a: stable across builds and platforms, which a file name needs.
fn fnv1a(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5, |hash: u32, b| {
        (hash ^ u32::from(*b)).wrapping_mul(0x0100_0193)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn different_answers_get_different_files_and_are_written_whole() {
        let a = relative_path(2, "## Overview\nno markers here\n");
        let b = relative_path(2, "## Overview\nno markers there\n");
        assert_ne!(a, b);
        assert!(a.starts_with(".volk/unparsed/cycle-2-"), "{a}");
        let dir = tempfile::tempdir().unwrap();
        let path = keep(dir.path(), &a, "## Overview\nno markers here\n").unwrap();
        assert_eq!(
            std::fs::read_to_string(path).unwrap(),
            "## Overview\nno markers here\n"
        );
    }
}

//! Project directory names.

/// Lowercase; every run of characters outside `a-z0-9` becomes one `-`; trimmed of
/// `-`; at most 50 characters; `project` when nothing is left. The result can never
/// contain a path separator or `..`, so no name escapes the workspace.
pub fn slugify(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(64));
    let mut dash = false;
    for c in text.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            if dash && !out.is_empty() {
                out.push('-');
            }
            dash = false;
            out.push(c);
            if out.len() >= 50 {
                out.truncate(50);
                break;
            }
        } else {
            dash = true;
        }
    }
    let trimmed = out.trim_matches('-');
    if trimmed.is_empty() {
        "project".to_string()
    } else {
        trimmed.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::slugify;

    #[test]
    fn spec_cases() {
        assert_eq!(slugify("Hello World!"), "hello-world");
        assert_eq!(slugify(""), "project");
        assert!(slugify(&"A".repeat(60)).len() <= 50);
        assert_eq!(slugify("foo___bar"), "foo-bar");
        assert_eq!(slugify("--leading--trailing--"), "leading-trailing");
    }

    #[test]
    fn path_escapes_are_neutralised() {
        assert_eq!(slugify("../../etc/passwd"), "etc-passwd");
        assert_eq!(slugify("/"), "project");
        assert_eq!(slugify(".."), "project");
        assert_eq!(slugify("Ünïcode Ñame"), "n-code-ame");
    }

    #[test]
    fn never_ends_with_dash_after_truncation() {
        let s = slugify(&format!("{}-b", "a".repeat(49)));
        assert!(!s.ends_with('-'));
        assert!(s.len() <= 50);
    }
}

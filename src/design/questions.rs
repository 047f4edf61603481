//! The architect's own open questions: the numbered list under the `## Open questions`
//! heading that the prompts ask it to end the architecture with, so a reviewer can
//! answer them.

/// Items under the first heading (any level) that mentions "open questions", up to the
/// next heading. Shared by the review packet and the workbench's review pane.
pub fn open_questions(architecture: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in architecture.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with('#') {
            if inside {
                break;
            }
            let title = trimmed.trim_start_matches('#').to_ascii_lowercase();
            inside = title.contains("open questions");
            continue;
        }
        if !inside || trimmed.is_empty() {
            continue;
        }
        let item = trimmed
            .strip_prefix("- ")
            .or_else(|| trimmed.strip_prefix("* "))
            .or_else(|| {
                let digits = trimmed.chars().take_while(char::is_ascii_digit).count();
                (digits > 0).then(|| {
                    trimmed[digits..]
                        .trim_start_matches(['.', ')'])
                        .trim_start()
                })
            });
        match item {
            Some(text) if !text.is_empty() && !text.eq_ignore_ascii_case("none.") => {
                out.push(text.to_string())
            }
            Some(_) => {}
            // A continuation line belongs to the previous item.
            None => {
                if let Some(last) = out.last_mut() {
                    last.push(' ');
                    last.push_str(trimmed);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_numbered_and_bulleted_items_until_next_heading() {
        let a = "# Arch\ntext\n## Open questions\n1. Shared? Assumed: no.\n   More detail.\n- Format? Assumed: JSON.\n## Later\n1. not this\n";
        assert_eq!(
            open_questions(a),
            vec![
                "Shared? Assumed: no. More detail.".to_string(),
                "Format? Assumed: JSON.".to_string()
            ]
        );
    }

    #[test]
    fn none_and_missing_heading_give_nothing() {
        assert!(open_questions("## Open questions\nNone.\n").is_empty());
        assert!(open_questions("no heading here").is_empty());
    }
}

//! The architect's own open questions: the numbered list under the `## Open questions`
//! heading that the prompts ask it to end the architecture with, so a reviewer can
//! answer them.

use std::ops::Range;

/// Items under the first heading (any level) that mentions "open questions", up to the
/// next heading. Shared by the review packet and the workbench's review pane.
pub fn open_questions(architecture: &str) -> Vec<String> {
    open_question_items(architecture)
        .into_iter()
        .map(|(text, _)| text)
        .collect()
}

/// The same items with the byte range of each item's first line, for diagnostics.
pub fn open_question_items(architecture: &str) -> Vec<(String, Range<usize>)> {
    let mut out: Vec<(String, Range<usize>)> = Vec::new();
    let mut inside = false;
    let mut offset = 0;
    for raw in architecture.split_inclusive('\n') {
        let line_start = offset;
        offset += raw.len();
        let line = raw.trim_end_matches(['\n', '\r']);
        let trimmed = line.trim();
        let span =
            line_start + (line.len() - line.trim_start().len())..line_start + line.trim_end().len();
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
                out.push((text.to_string(), span))
            }
            Some(_) => {}
            // A continuation line belongs to the previous item.
            None => {
                if let Some((last, _)) = out.last_mut() {
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

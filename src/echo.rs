//! Text from packets echoed on the terminal: control characters are shown escaped, so a
//! packet cannot move the cursor, clear the screen or retitle the window.

/// `text` with every control character except newline and tab written as `\x1b`-style
/// (or `\u{..}` beyond Latin-1) escapes.
pub fn escape_controls(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if needs_escape(c) {
            let code = u32::from(c);
            if code < 0x100 {
                out.push_str(&format!("\\x{code:02x}"));
            } else {
                out.push_str(&format!("\\u{{{code:x}}}"));
            }
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// `text` with every character [`escape_controls`] would escape replaced by a visible one
/// of the same UTF-8 length (`?`, `¿` or `�`), so byte and character columns into the
/// text still point where they did: for quoting source lines under a span marker.
pub fn mask_controls(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return std::borrow::Cow::Borrowed(text);
    }
    text.chars()
        .map(|c| match (needs_escape(c), c.len_utf8()) {
            (false, _) => c,
            (true, 1) => '?',
            (true, 2) => '\u{bf}',
            (true, _) => '\u{fffd}',
        })
        .collect::<String>()
        .into()
}

fn needs_escape(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{2028}' | '\u{2029}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_terminal_sequences_only() {
        assert_eq!(escape_controls("plain\nline\t"), "plain\nline\t");
        assert_eq!(escape_controls("a\x1b[2Jb\rc\x07"), "a\\x1b[2Jb\\x0dc\\x07");
        assert_eq!(escape_controls("x\u{9b}y\u{202e}"), "x\\x9by\\u{202e}");
    }

    #[test]
    fn masking_keeps_byte_and_char_columns() {
        let text = "a\x1b[2Jb\u{9b}c\u{202e}d\tok\n";
        let masked = mask_controls(text);
        assert_eq!(masked, "a?[2Jb\u{bf}c\u{fffd}d\tok\n");
        assert_eq!(masked.len(), text.len());
        assert_eq!(masked.chars().count(), text.chars().count());
        assert!(!masked.chars().any(needs_escape));
    }
}

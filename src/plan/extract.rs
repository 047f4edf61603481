//! Finding the plan's JSON in a model's reply, which may wrap it in prose or a fence.

/// The JSON text of the plan in `reply`: the first ```json fence, else the first
/// fence holding an object, else the outermost balanced `{...}`. `None` when the
/// reply holds no object at all.
pub fn extract_json(reply: &str) -> Option<&str> {
    let fences = fenced_blocks(reply);
    if let Some((_, body)) = fences
        .iter()
        .find(|(lang, _)| lang.eq_ignore_ascii_case("json"))
    {
        return Some(body.trim());
    }
    if let Some((_, body)) = fences
        .iter()
        .find(|(_, body)| body.trim_start().starts_with('{'))
    {
        return Some(body.trim());
    }
    outermost_object(reply)
}

/// (info string, body) of every closed ``` fence, in order.
fn fenced_blocks(text: &str) -> Vec<(&str, &str)> {
    let mut blocks = Vec::new();
    let mut rest = text;
    let mut base = 0;
    while let Some(open) = find_fence(rest) {
        let after = &rest[open + 3..];
        let line_end = after.find('\n').map_or(after.len(), |n| n + 1);
        let lang = after[..line_end].trim();
        let body_start = open + 3 + line_end;
        let body = &rest[body_start..];
        let Some(close) = find_fence(body) else { break };
        blocks.push((lang, &text[base + body_start..base + body_start + close]));
        let consumed = body_start + close + 3;
        base += consumed;
        rest = &rest[consumed..];
    }
    blocks
}

/// A ``` at the start of a line (after optional spaces).
fn find_fence(text: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(pos) = text[from..].find("```") {
        let at = from + pos;
        let line_start = text[..at].rfind('\n').map_or(0, |n| n + 1);
        if text[line_start..at].chars().all(|c| c == ' ') {
            return Some(at);
        }
        from = at + 3;
    }
    None
}

/// From the first `{` to the brace that closes it, skipping braces inside strings.
fn outermost_object(text: &str) -> Option<&str> {
    let start = text.find('{')?;
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, b) in text.bytes().enumerate().skip(start) {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(&text[start..=i]);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefers_a_json_fence() {
        let reply =
            "Here is the plan:\n```\n{\"a\": 0}\n```\n```json\n{\"goal\": \"x\"}\n```\nDone.";
        assert_eq!(extract_json(reply), Some("{\"goal\": \"x\"}"));
    }

    #[test]
    fn takes_a_bare_fence_holding_an_object() {
        let reply = "```text\nnot this\n```\n```\n{\"goal\": 1}\n```";
        assert_eq!(extract_json(reply), Some("{\"goal\": 1}"));
    }

    #[test]
    fn falls_back_to_the_outermost_object() {
        let reply = "Sure! {\"goal\": \"a } in a string\", \"x\": {\"y\": \"\\\"}\"}} trailing {";
        assert_eq!(
            extract_json(reply),
            Some("{\"goal\": \"a } in a string\", \"x\": {\"y\": \"\\\"}\"}}")
        );
    }

    #[test]
    fn nothing_to_find() {
        assert_eq!(extract_json("no plan here"), None);
        assert_eq!(extract_json("{ unbalanced"), None);
    }

    #[test]
    fn inline_backticks_are_not_fences() {
        let reply = "Use `x```y` then {\"goal\": \"g\"}";
        assert_eq!(extract_json(reply), Some("{\"goal\": \"g\"}"));
    }
}

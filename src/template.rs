//! The prompt templates' one engine: `{{name}}` slots filled in a single pass, so a
//! value that itself holds `{{…}}` (a model's text quoted back into a prompt) is never
//! filled again. The loop's prompts and the plan prompt both use it.

/// Fills `{{name}}` slots from `values`; an unknown slot is left as it is.
pub fn render(template: &str, values: &[(&str, &str)]) -> String {
    let mut out =
        String::with_capacity(template.len() + values.iter().map(|(_, v)| v.len()).sum::<usize>());
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        match after.find("}}") {
            Some(end) => {
                let name = &after[..end];
                match values.iter().find(|(k, _)| *k == name) {
                    Some((_, value)) => out.push_str(value),
                    None => {
                        out.push_str("{{");
                        out.push_str(name);
                        out.push_str("}}");
                    }
                }
                rest = &after[end + 2..];
            }
            None => {
                out.push_str(&rest[start..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_never_filled_again() {
        let out = render(
            "{{design}}\n{{feedback}}",
            &[("design", "see {{feedback}}"), ("feedback", "F")],
        );
        assert_eq!(out, "see {{feedback}}\nF");
    }
}

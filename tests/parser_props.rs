//! Property: feeding the section parser in chunks split anywhere (even inside a UTF-8
//! character, a marker or a fence) gives exactly what one pass gives.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use proptest::prelude::*;
use volk::design::Section;
use volk::design::parser::{SectionParser, parse_reply};

fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("ARCHITECTURE:".to_string()),
        Just("REQUIREMENTS:".to_string()),
        Just("FILE_TREE:".to_string()),
        Just("API_SPEC: inline text".to_string()),
        Just("## CLASS_DIAGRAM:".to_string()),
        Just("**API_SPEC:**".to_string()),
        Just("**FILE_TREE**:".to_string()),
        Just("## Architecture".to_string()),
        Just("### 2. File tree:".to_string()),
        Just("**Api spec**".to_string()),
        Just("# class diagram ##".to_string()),
        Just("## Requirements notes".to_string()),
        Just("**Requirements".to_string()),
        Just("CHANGES:".to_string()),
        Just("- Q1.1 api_spec: a change".to_string()),
        Just("```".to_string()),
        Just("```mermaid".to_string()),
        Just("~~~".to_string()),
        Just("├── src/ünï/ — 日本".to_string()),
        Just("   ".to_string()),
        Just(String::new()),
        "[ -~]{0,30}",
        "\\PC{0,12}",
    ]
}

fn document() -> impl Strategy<Value = String> {
    (prop::collection::vec(line(), 0..40), prop::bool::ANY).prop_map(|(lines, trailing_newline)| {
        let mut text = lines.join("\n");
        if trailing_newline {
            text.push('\n');
        }
        text
    })
}

/// Sorted cut points in `0..=text.len()`, moved back to character boundaries when
/// `on_chars`.
fn cut_points(text: &str, cuts: Vec<usize>, on_chars: bool) -> Vec<usize> {
    let mut points: Vec<usize> = cuts
        .into_iter()
        .map(|c| {
            let mut p = c % (text.len() + 1);
            while on_chars && !text.is_char_boundary(p) {
                p -= 1;
            }
            p
        })
        .collect();
    points.sort_unstable();
    points
}

/// Feeds the bytes of `doc` cut at `cuts` (anywhere, even inside a character).
fn feed_bytes_cut(doc: &str, cuts: Vec<usize>) -> SectionParser {
    let bytes = doc.as_bytes();
    let mut parser = SectionParser::new();
    let mut start = 0;
    for p in cut_points(doc, cuts, false) {
        parser.feed_bytes(&bytes[start..p]);
        start = p;
    }
    parser.feed_bytes(&bytes[start..]);
    parser
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn chunked_equals_one_pass(doc in document(), cuts in prop::collection::vec(0usize..4096, 0..24)) {
        prop_assert_eq!(feed_bytes_cut(&doc, cuts).finish_reply(), parse_reply(&doc));
    }

    #[test]
    fn str_deltas_equal_one_pass(doc in document(), cuts in prop::collection::vec(0usize..4096, 0..24)) {
        let mut parser = SectionParser::new();
        let mut start = 0;
        for p in cut_points(&doc, cuts, true) {
            parser.feed(&doc[start..p]);
            start = p;
        }
        parser.feed(&doc[start..]);
        prop_assert_eq!(parser.finish_reply(), parse_reply(&doc));
    }

    /// Large enough that the one pass takes its candidate-search path while the
    /// deltas are still looked at line by line.
    #[test]
    fn large_documents_chunked_equal_one_pass(doc in document(), cuts in prop::collection::vec(0usize..65536, 0..24)) {
        let doc = doc.repeat(8192 / (doc.len() + 1) + 1);
        prop_assert_eq!(feed_bytes_cut(&doc, cuts).finish_reply(), parse_reply(&doc));
    }

    /// The workbench copies only what is new in `committed`, so it may only grow, and
    /// the tail is always the unfinished last line.
    #[test]
    fn committed_only_grows_and_tail_is_the_last_line(doc in document(), cuts in prop::collection::vec(0usize..4096, 0..24)) {
        let mut points = cut_points(&doc, cuts, true);
        points.push(doc.len());
        let mut parser = SectionParser::new();
        let mut before: Vec<String> = vec![String::new(); 5];
        let mut start = 0;
        for p in points {
            parser.feed(&doc[start..p]);
            start = p;
            for (i, section) in Section::ALL.into_iter().enumerate() {
                let now = parser.committed(section);
                prop_assert!(now.starts_with(before[i].as_str()), "{section:?}: {:?} then {:?}", before[i], now);
                prop_assert!(now.is_empty() || now.ends_with('\n'));
                before[i] = now.to_string();
            }
            let last_line = &doc[..p][doc[..p].rfind('\n').map_or(0, |i| i + 1)..];
            prop_assert!(last_line.ends_with(parser.tail()), "{last_line:?} vs {:?}", parser.tail());
        }
    }

    /// Token-sized deltas (what a model streams), so most take the parser's fast
    /// path: at every step the reported section, `committed` and the tail agree with
    /// the text so far, and the end equals one pass.
    #[test]
    fn token_sized_deltas_equal_one_pass(doc in document(), sizes in prop::collection::vec(1usize..=16, 1..8)) {
        let mut parser = SectionParser::new();
        let mut start = 0;
        let mut step = 0;
        while start < doc.len() {
            let mut end = (start + sizes[step % sizes.len()]).min(doc.len());
            while !doc.is_char_boundary(end) {
                end += 1;
            }
            step += 1;
            let reported = parser.feed(&doc[start..end]);
            start = end;
            prop_assert_eq!(reported, parser.growing());
            let complete = &doc[..doc[..end].rfind('\n').map_or(0, |i| i + 1)];
            let mut reference = SectionParser::new();
            reference.feed(complete);
            for section in Section::ALL {
                prop_assert_eq!(parser.committed(section), reference.committed(section), "{:?}", section);
            }
            // The unfinished line, less white space an empty section drops.
            let line = &doc[complete.len()..end];
            let tail = parser.tail();
            prop_assert!(line.ends_with(tail) && line[..line.len() - tail.len()].trim().is_empty(), "{:?} vs {:?}", line, tail);
        }
        prop_assert_eq!(parser.finish_reply(), parse_reply(&doc));
    }

    #[test]
    fn growing_section_matches_the_prefix(doc in document(), cut in 0usize..4096) {
        let bytes = doc.as_bytes();
        let cut = cut % (bytes.len() + 1);
        let mut parser = SectionParser::new();
        parser.feed_bytes(&bytes[..cut]);
        let growing = parser.growing();
        // Whatever section grows after a prefix is the one a one-pass parse of the
        // prefix's complete lines ends in.
        let complete = match bytes[..cut].iter().rposition(|b| *b == b'\n') {
            Some(i) => &bytes[..=i],
            None => &bytes[..0],
        };
        let mut reference = SectionParser::new();
        reference.feed_bytes(complete);
        prop_assert_eq!(growing, reference.growing());
    }
}

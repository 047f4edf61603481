//! Syntax highlighting with syntect: the syntax set and themes are built once, off the
//! UI thread, and each document highlights a line once and keeps the styled spans.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use syntect::easy::HighlightLines;
use syntect::highlighting::{FontStyle, HighlightState, Theme as SyntectTheme, ThemeSet};
use syntect::parsing::{ParseState, SyntaxDefinition, SyntaxReference, SyntaxSet};

use crate::design::Section;

const MERMAID: &str = include_str!("../../assets/syntaxes/mermaid.sublime-syntax");
const FILE_TREE: &str = include_str!("../../assets/syntaxes/file-tree.sublime-syntax");

/// Which grammar a document is read with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grammar {
    Markdown,
    Mermaid,
    FileTree,
    Json,
    Plain,
}

impl Grammar {
    pub fn for_section(section: Section) -> Grammar {
        match section {
            Section::FileTree => Grammar::FileTree,
            Section::ClassDiagram => Grammar::Mermaid,
            _ => Grammar::Markdown,
        }
    }

    fn syntax_name(self) -> &'static str {
        match self {
            Grammar::Markdown => "Markdown",
            Grammar::Mermaid => "Mermaid",
            Grammar::FileTree => "File tree",
            Grammar::Json => "JSON",
            Grammar::Plain => "Plain Text",
        }
    }
}

/// The syntaxes (syntect's defaults plus volk's own) and syntect's default themes.
pub struct Assets {
    pub syntaxes: SyntaxSet,
    pub themes: ThemeSet,
}

static ASSETS: OnceLock<Assets> = OnceLock::new();

fn build_assets() -> Assets {
    let mut builder = SyntaxSet::load_defaults_newlines().into_builder();
    for (name, text) in [("mermaid", MERMAID), ("file-tree", FILE_TREE)] {
        match SyntaxDefinition::load_from_str(text, true, None) {
            Ok(def) => builder.add(def),
            Err(e) => tracing::warn!("bundled syntax {name} does not load: {e}"),
        }
    }
    Assets {
        syntaxes: builder.build(),
        themes: ThemeSet::load_defaults(),
    }
}

/// The assets, building them on first use (tens of milliseconds).
pub fn assets() -> &'static Assets {
    ASSETS.get_or_init(build_assets)
}

/// Set once the assets are built and the common grammars' regexes are compiled, so
/// highlighting on the UI thread never stalls a frame on regex compilation.
static WARM: AtomicBool = AtomicBool::new(false);

/// The assets once they are warm; the UI draws plain text until then.
pub fn assets_if_ready() -> Option<&'static Assets> {
    if WARM.load(Ordering::Acquire) {
        ASSETS.get()
    } else {
        None
    }
}

pub fn is_warm() -> bool {
    WARM.load(Ordering::Acquire)
}

/// Text that walks every grammar through its common states (and Markdown through the
/// fenced languages designs use), so their regexes are compiled before first use.
const WARM_UP_TEXT: &[(Grammar, &str)] = &[
    (
        Grammar::Markdown,
        "# Title\n\n## Heading\n\n> quote **bold** _em_ `code` [link](http://x)\n\n\
         1. item\n- item\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n\
         ```python\ndef f(x: int) -> str:\n    return str(x)  # c\nclass A(B):\n    pass\n```\n\
         ```json\n{\"a\": [1, true, null]}\n```\n```rust\nfn main() { let x = 1; }\n```\n\
         ```bash\necho \"$HOME\" | grep x\n```\n```typescript\nfunction f(a: number): string { return ''; }\n```\n\
         ```mermaid\nclassDiagram\n  A --> B\n```\n```\nplain\n```\n",
    ),
    (
        Grammar::Mermaid,
        "classDiagram\n  class Store {\n    +save(record) int\n  }\n  Store <|-- Db : uses\n  %% c\n",
    ),
    (
        Grammar::FileTree,
        "src/\n├── app/\n│   └── main.py  # entry\n└── README.md\n",
    ),
    (
        Grammar::Json,
        "{\"event\": \"x\", \"n\": 1, \"ok\": true}\n",
    ),
];

/// Builds the assets and compiles the common regexes on a background thread; the first
/// frames draw plain text meanwhile.
pub fn warm_up() {
    if is_warm() {
        return;
    }
    let _ = std::thread::Builder::new()
        .name("volk-syntax".into())
        .spawn(warm_up_blocking);
}

/// Builds and warms the assets on this thread (benchmarks and tests).
pub fn warm_now() {
    warm_up_blocking();
}

fn warm_up_blocking() {
    if is_warm() {
        return;
    }
    let assets = assets();
    if let Some(theme) = assets.themes.themes.get("base16-ocean.dark") {
        for (grammar, text) in WARM_UP_TEXT {
            let syntax = assets
                .syntaxes
                .find_syntax_by_name(grammar.syntax_name())
                .unwrap_or_else(|| assets.syntaxes.find_syntax_plain_text());
            let mut lines = HighlightLines::new(syntax, theme);
            for line in text.split_inclusive('\n') {
                let _ = lines.highlight_line(line, &assets.syntaxes);
            }
        }
    }
    WARM.store(true, Ordering::Release);
}

/// Highlights lines of one grammar in one colour scheme, carrying state across lines
/// so that a document can be highlighted a piece at a time.
pub struct LineHighlighter {
    theme: &'static SyntectTheme,
    state: Option<(HighlightState, ParseState)>,
    syntax: &'static SyntaxReference,
}

impl LineHighlighter {
    /// `None` while the assets are still being built or the names are unknown.
    pub fn new(grammar: Grammar, syntax_theme: &str) -> Option<LineHighlighter> {
        let assets = assets_if_ready()?;
        let syntax = assets
            .syntaxes
            .find_syntax_by_name(grammar.syntax_name())
            .unwrap_or_else(|| assets.syntaxes.find_syntax_plain_text());
        Some(LineHighlighter {
            theme: syntect_theme(syntax_theme)?,
            state: None,
            syntax,
        })
    }

    /// A highlighter for a fenced block's language (`rust`, `py`, `json`...): `None`
    /// when no bundled grammar knows the name.
    pub fn for_language(token: &str, syntax_theme: &str) -> Option<LineHighlighter> {
        let assets = assets_if_ready()?;
        let syntax = assets.syntaxes.find_syntax_by_token(token)?;
        Some(LineHighlighter {
            theme: syntect_theme(syntax_theme)?,
            state: None,
            syntax,
        })
    }

    /// Highlights the next line (without its newline) into style runs over its bytes.
    pub fn next_line(&mut self, line: &str) -> Runs {
        let Some(assets) = assets_if_ready() else {
            return plain_runs(line);
        };
        let mut lines = match self.state.take() {
            Some((hs, ps)) => HighlightLines::from_state(self.theme, hs, ps),
            None => HighlightLines::new(self.syntax, self.theme),
        };
        let mut with_newline = String::with_capacity(line.len() + 1);
        with_newline.push_str(line);
        with_newline.push('\n');
        let runs = match lines.highlight_line(&with_newline, &assets.syntaxes) {
            Ok(ranges) => {
                let mut runs: Vec<StyleRun> = Vec::with_capacity(ranges.len());
                let mut at = 0usize;
                for (style, text) in ranges {
                    let start = at;
                    at += text.len();
                    let end = at.min(line.len());
                    if end <= start {
                        continue;
                    }
                    let style = convert(style);
                    match runs.last_mut() {
                        // Neighbouring tokens of one colour become one run.
                        Some(last) if last.style == style && last.end as usize == start => {
                            last.end = end as u32;
                        }
                        _ => runs.push(StyleRun {
                            start: start as u32,
                            end: end as u32,
                            style,
                            pad: 0,
                            fill: ' ',
                        }),
                    }
                }
                runs.into_boxed_slice()
            }
            Err(_) => plain_runs(line),
        };
        let (hs, ps) = lines.state();
        self.state = Some((hs, ps));
        runs
    }
}

/// A styled stretch of a line: byte offsets into the line's text. Kept instead of
/// owned spans so a highlighted document costs little more than its text. Rendered
/// Markdown leaves bytes out (`**`, `##`) and pads table cells with `pad` spaces
/// after the stretch, so it needs no copy of the text either.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StyleRun {
    pub start: u32,
    pub end: u32,
    pub style: Style,
    pub pad: u16,
    /// What the padding is drawn with: a blank, or a table's grid line (`─`, `│`).
    pub fill: char,
}

/// The colour scheme called `name` (the default dark one when unknown).
pub fn syntect_theme(name: &str) -> Option<&'static SyntectTheme> {
    let assets = assets_if_ready()?;
    assets
        .themes
        .themes
        .get(name)
        .or_else(|| assets.themes.themes.get("base16-ocean.dark"))
}

pub type Runs = Box<[StyleRun]>;

/// The `fill` of a run that ends a screen row inside one source line: a table row
/// whose cells wrap takes several rows, and the viewer splits it here ([`split_rows`]).
/// It draws nothing, so [`styled_line`] passes it by.
pub const ROW_BREAK: char = '\n';

/// The runs of one line cut at its [`ROW_BREAK`]s, or `None` when it has none.
pub fn split_rows(runs: &[StyleRun]) -> Option<Vec<&[StyleRun]>> {
    if !runs.iter().any(|r| r.fill == ROW_BREAK) {
        return None;
    }
    Some(runs.split(|r| r.fill == ROW_BREAK).collect())
}

fn plain_runs(line: &str) -> Runs {
    Box::new([StyleRun {
        start: 0,
        end: line.len() as u32,
        style: Style::default(),
        pad: 0,
        fill: ' ',
    }])
}

const SPACES: &str = "                                                                ";

/// The drawable line for `text` and its runs, borrowing the text.
pub fn styled_line<'a>(text: &'a str, runs: &[StyleRun]) -> Line<'a> {
    let mut spans = Vec::with_capacity(runs.len());
    for r in runs {
        if let Some(piece) = text.get(r.start as usize..r.end as usize)
            && !piece.is_empty()
        {
            spans.push(Span::styled(piece, r.style));
        }
        let mut pad = r.pad as usize;
        if r.fill != ' ' && pad > 0 {
            spans.push(Span::styled(r.fill.to_string().repeat(pad), r.style));
            continue;
        }
        while pad > 0 {
            let n = pad.min(SPACES.len());
            spans.push(Span::raw(&SPACES[..n]));
            pad -= n;
        }
    }
    Line::from(spans)
}

pub(crate) fn convert(style: syntect::highlighting::Style) -> Style {
    let fg = style.foreground;
    let mut out = Style::default().fg(Color::Rgb(fg.r, fg.g, fg.b));
    if style.font_style.contains(FontStyle::BOLD) {
        out = out.add_modifier(Modifier::BOLD);
    }
    if style.font_style.contains(FontStyle::ITALIC) {
        out = out.add_modifier(Modifier::ITALIC);
    }
    if style.font_style.contains(FontStyle::UNDERLINE) {
        out = out.add_modifier(Modifier::UNDERLINED);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_grammars_load_and_colour_their_text() {
        warm_now();
        for grammar in [Grammar::Mermaid, Grammar::FileTree, Grammar::Markdown] {
            let set = &assets().syntaxes;
            assert!(
                set.find_syntax_by_name(grammar.syntax_name()).is_some(),
                "{grammar:?}"
            );
        }
        let mut h = LineHighlighter::new(Grammar::Mermaid, "base16-ocean.dark").unwrap();
        let text = "  TaskStore --> Task : stores";
        let runs = h.next_line(text);
        let line = styled_line(text, &runs);
        let colours: std::collections::HashSet<_> = line
            .spans
            .iter()
            .map(|s| format!("{:?}", s.style.fg))
            .collect();
        assert!(colours.len() >= 2, "{line:?}");
        assert_eq!(line.to_string(), "  TaskStore --> Task : stores");
    }

    #[test]
    fn state_carries_across_lines() {
        warm_now();
        let mut h = LineHighlighter::new(Grammar::Markdown, "base16-ocean.dark").unwrap();
        let a = h.next_line("```python");
        let b = h.next_line("def run(): pass");
        assert_eq!(styled_line("```python", &a).to_string(), "```python");
        assert_eq!(
            styled_line("def run(): pass", &b).to_string(),
            "def run(): pass"
        );
    }
}

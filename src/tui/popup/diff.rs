//! The diff of one artifact against the previous cycle, or against any cycle picked
//! from the history: made for reviewing. Changed words are marked inside changed
//! lines, `]`/`[` jump between hunks, `/` searches as you type, and on a wide
//! terminal (or with `s`) the old text stands beside the new. Long lines wrap at
//! words under their sign, like the viewer's. The changes no review thread asked for
//! are marked above the diff.

use std::ops::Range;

use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::{Margin, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use crate::design::Section;
use crate::tui::ctx::{Ctx, Do, View};
use crate::tui::diff::{Columns, Diff, DiffKind, DiffLine, occurrences};
use crate::tui::popup::Window;
use crate::tui::keymap::{Motion, Binding, Chord, Group, Handled, Listed, command, listed};
use crate::tui::popup::Field;
use crate::tui::popup::Popup;
use crate::tui::popup::history::History;
use crate::tui::theme::Palette;
use crate::tui::widgets::{centered, popup_block};
use crate::tui::wrap;

/// From this many terminal columns on, the diff opens side by side.
pub const SIDE_BY_SIDE_WIDTH: u16 = 160;

/// Columns before a line's text: the focus marker, the sign and a blank.
const GUTTER: u16 = 3;

/// What the newest text is compared with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Base {
    Previous,
    /// A cycle picked from the history.
    Cycle {
        short_id: String,
        summary: String,
    },
}

/// How the columns are chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Side by side from [`SIDE_BY_SIDE_WIDTH`] columns on, unified below.
    ByWidth,
    /// Chosen with `s`.
    Chosen(Columns),
}

/// The diff's search: typed at the bottom, moving as it grows.
#[derive(Debug, Clone, Default)]
pub struct DiffSearch {
    pub query: String,
    /// The query is being typed (keys go to it).
    pub typing: bool,
    /// Where `/` was pressed (top, cursor): Esc goes back there.
    origin: (usize, usize),
    /// `3/7`, whether it wrapped, or `not found`.
    pub status: Option<String>,
}

/// A cycle asked for from the compare list: its diff opens when the runtime answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompareWanted {
    pub short_id: String,
    pub section: Section,
    pub layout: Layout,
}

#[derive(Debug, Clone)]
pub struct DiffView {
    pub section: Section,
    pub base: Base,
    pub diff: Diff,
    /// The first line shown (an index into the diff's lines, whatever the layout).
    pub top: usize,
    /// The line in focus: the hunk or the match jumped to.
    pub cursor: usize,
    pub layout: Layout,
    pub search: DiffSearch,
    /// The hand edit the last cycle took in this artifact: the lines the reviewer
    /// wrote or deleted are marked `reviewer`, apart from the architect's changes.
    pub reviewer: Option<crate::volk::review::ReviewerLines>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    Move(Motion),
    NextHunk,
    PreviousHunk,
    Search,
    NextMatch,
    PreviousMatch,
    Compare,
    Columns,
    Close,
}

use Command as C;

pub const BINDINGS: &[Binding<Command>] = &[
    Binding::new(
        "j k / ↑ ↓",
        "(diff) scroll a line",
        Group::Popups,
        &[
            (Chord::ch('j'), C::Move(Motion::Down)),
            (Chord::ch('k'), C::Move(Motion::Up)),
            (Chord::plain(KeyCode::Down), C::Move(Motion::Down)),
            (Chord::plain(KeyCode::Up), C::Move(Motion::Up)),
        ],
    ),
    Binding::new(
        "PgDn PgUp Space",
        "(diff) scroll a page",
        Group::Popups,
        &[
            (Chord::plain(KeyCode::PageDown), C::Move(Motion::PageDown)),
            (Chord::plain(KeyCode::PageUp), C::Move(Motion::PageUp)),
            (Chord::ch(' '), C::Move(Motion::PageDown)),
        ],
    ),
    Binding::new(
        "g G / Home End",
        "(diff) top / bottom",
        Group::Popups,
        &[
            (Chord::ch('g'), C::Move(Motion::Top)),
            (Chord::ch('G'), C::Move(Motion::Bottom)),
            (Chord::plain(KeyCode::Home), C::Move(Motion::Top)),
            (Chord::plain(KeyCode::End), C::Move(Motion::Bottom)),
        ],
    ),
    Binding::new(
        "] [",
        "(diff) next / previous hunk",
        Group::Popups,
        &[
            (Chord::ch(']'), C::NextHunk),
            (Chord::ch('['), C::PreviousHunk),
        ],
    )
    .hint("] [", "hunk", 1),
    Binding::new(
        "/",
        "(diff) search as you type (3/7)",
        Group::Popups,
        &[(Chord::ch('/'), C::Search)],
    )
    .hint("/", "search", 2),
    Binding::new(
        "n N",
        "(diff) next / previous match",
        Group::Popups,
        &[
            (Chord::ch('n'), C::NextMatch),
            (Chord::ch('N'), C::PreviousMatch),
        ],
    )
    .hint("n N", "match", 3),
    Binding::new(
        "c",
        "(diff) compare with a cycle picked from the history",
        Group::Popups,
        &[(Chord::ch('c'), C::Compare)],
    )
    .hint("c", "compare", 4),
    Binding::new(
        "s",
        "(diff) side by side / unified",
        Group::Popups,
        &[(Chord::ch('s'), C::Columns)],
    )
    .hint("s", "side by side", 5),
    Binding::new(
        "Esc / d / q",
        "(diff) close",
        Group::Popups,
        &[
            (Chord::plain(KeyCode::Esc), C::Close),
            (Chord::ch('d'), C::Close),
            (Chord::ch('q'), C::Close),
        ],
    )
    .hint("Esc", "close", 6),
];

/// While a search is typed in the diff.
pub const SEARCH_BINDINGS: &[Binding<Field>] = &[
    Binding::new(
        "Enter",
        "(diff search) keep the match",
        Group::Popups,
        &[(Chord::plain(KeyCode::Enter), Field::Keep)],
    )
    .hint("Enter", "keep", 1),
    Binding::new(
        "Esc",
        "(diff search) back to where it started",
        Group::Popups,
        &[(Chord::plain(KeyCode::Esc), Field::Back)],
    )
    .hint("Esc", "back", 2),
    Binding::new(
        "text, Backspace",
        "(diff search) the query",
        Group::Popups,
        &[
            (Chord::AnyChar, Field::Type),
            (Chord::plain(KeyCode::Backspace), Field::Erase),
        ],
    ),
];

/// Where the parts of the popup are drawn.
struct Geometry {
    outer: Rect,
    notes: Rect,
    body: Rect,
    bar: Option<Rect>,
}

impl DiffView {
    pub fn new(section: Section, base: Base, diff: Diff, layout: Layout) -> DiffView {
        let cursor = diff.next_hunk(None).unwrap_or(0);
        DiffView {
            section,
            base,
            diff,
            top: 0,
            cursor,
            layout,
            search: DiffSearch::default(),
            reviewer: None,
        }
    }


    /// The layout on a terminal `width` columns wide.
    pub fn columns(&self, width: u16) -> Columns {
        match self.layout {
            Layout::Chosen(columns) => columns,
            Layout::ByWidth if width >= SIDE_BY_SIDE_WIDTH => Columns::SideBySide,
            Layout::ByWidth => Columns::Unified,
        }
    }


    fn on_search_key(&mut self, key: KeyEvent, cx: &mut Ctx) -> Handled {
        match command(SEARCH_BINDINGS, &key) {
            Some(Field::Keep) => self.search.typing = false,
            Some(Field::Back) => {
                (self.top, self.cursor) = self.search.origin;
                self.search = DiffSearch::default();
            }
            Some(edit @ (Field::Type | Field::Erase)) => {
                match (edit, key.code) {
                    (Field::Type, KeyCode::Char(c)) => self.search.query.push(c),
                    _ => {
                        self.search.query.pop();
                    }
                }
                let (top, cursor) = self.search.origin;
                if self.search.query.is_empty() {
                    (self.top, self.cursor) = (top, cursor);
                    self.search.status = None;
                } else {
                    self.find(cursor, Direction::AtOrAfter, cx);
                }
            }
            None => return Handled::Ignored,
        }
        Handled::Consumed
    }

    fn search_next(&mut self, backwards: bool, cx: &mut Ctx) {
        if self.search.query.is_empty() {
            cx.say("/: type a search first".into());
            return;
        }
        let direction = if backwards {
            Direction::Before
        } else {
            Direction::After
        };
        self.find(self.cursor, direction, cx);
    }

    /// Moves the focus to the match nearest `from` in `direction`, going round the
    /// end, and says which of how many it is.
    fn find(&mut self, from: usize, direction: Direction, view: &View) {
        let matches = self.diff.find(&self.search.query);
        let found = match direction {
            Direction::AtOrAfter => matches.iter().position(|&m| m >= from),
            Direction::After => matches.iter().position(|&m| m > from),
            Direction::Before => matches.iter().rposition(|&m| m < from),
        };
        let (nth, wrapped) = match (found, direction) {
            (Some(i), _) => (i, false),
            (None, _) if matches.is_empty() => {
                self.search.status = Some(format!("not found: {}", self.search.query));
                return;
            }
            (None, Direction::Before) => (matches.len() - 1, true),
            (None, _) => (0, true),
        };
        let mut status = format!("{}/{}", nth + 1, matches.len());
        if wrapped {
            status.push_str(match direction {
                Direction::Before => " · wrapped to the bottom",
                _ => " · wrapped to the top",
            });
        }
        self.search.status = Some(status);
        self.focus(matches[nth], view);
    }

    /// Puts the focus on `line`, scrolling only when it is out of sight (then with
    /// two entries of context above it, and never past the end's last screen).
    fn focus(&mut self, line: usize, view: &View) {
        self.cursor = line;
        if !self.is_visible(line, view) {
            let columns = self.columns(view.size.width);
            let entry = self.diff.entry_of(columns, line).saturating_sub(2);
            let bottom = self.diff.entry_of(columns, self.bottom_top(view));
            self.top = self.diff.line_of(columns, entry.min(bottom));
        }
    }

    /// Scrolls by `delta` entries of the layout, stopping at the last one (the
    /// mouse wheel uses it too).
    pub fn scroll_by(&mut self, delta: isize, width: u16) {
        let columns = self.columns(width);
        let last = self.diff.entries(columns).saturating_sub(1);
        let entry = self
            .diff
            .entry_of(columns, self.top)
            .saturating_add_signed(delta)
            .min(last);
        self.top = self.diff.line_of(columns, entry);
    }

    /// The top at which the diff's last entry reaches the bottom of the body.
    fn bottom_top(&self, view: &View) -> usize {
        let g = self.geometry(view.size, view);
        let columns = self.columns(view.size.width);
        let mut used = 0;
        let mut entry = self.diff.entries(columns);
        while entry > 0 {
            let rows = self.entry_rows(columns, entry - 1, g.body);
            if used + rows > g.body.height as usize {
                break;
            }
            used += rows;
            entry -= 1;
        }
        let last = self.diff.entries(columns).saturating_sub(1);
        self.diff.line_of(columns, entry.min(last))
    }

    /// Whether line `line` is drawn whole in the body now.
    fn is_visible(&self, line: usize, view: &View) -> bool {
        let g = self.geometry(view.size, view);
        let columns = self.columns(view.size.width);
        let first = self.diff.entry_of(columns, self.top);
        let target = self.diff.entry_of(columns, line);
        if target < first {
            return false;
        }
        let mut used = 0;
        for entry in first..=target {
            used += self.entry_rows(columns, entry, g.body);
            if used > g.body.height as usize {
                return false;
            }
        }
        true
    }

    /// Before a frame: marks the changed words of the hunks about to be drawn (each
    /// hunk once), so opening a large diff costs only its line diff.
    pub fn prepare(&mut self, area: Rect, view: &View) {
        let g = self.geometry(area, view);
        let columns = self.columns(area.width);
        let mut used = 0;
        let mut last = self.top;
        for entry in self.diff.entry_of(columns, self.top)..self.diff.entries(columns) {
            if used >= g.body.height as usize {
                break;
            }
            used += self.entry_rows(columns, entry, g.body);
            last = match columns {
                Columns::Unified => entry,
                Columns::SideBySide => {
                    let pair = self.diff.pairs[entry];
                    pair.left.max(pair.right).unwrap_or(last)
                }
            };
        }
        self.diff.refine(self.top..last + 1);
    }

    /// Screen rows an entry of the layout takes in `body`.
    fn entry_rows(&self, columns: Columns, entry: usize, body: Rect) -> usize {
        let rows = |line: Option<usize>, width: u16| {
            line.and_then(|i| self.diff.lines.get(i))
                .map_or(1, |l| wrap::rows(&l.text, width.saturating_sub(GUTTER)))
        };
        match columns {
            Columns::Unified => rows(Some(entry), body.width),
            Columns::SideBySide => {
                let (left, right) = halves(body);
                let pair = self.diff.pairs.get(entry);
                rows(pair.and_then(|p| p.left), left.width)
                    .max(rows(pair.and_then(|p| p.right), right.width))
            }
        }
    }

    /// The unrequested changes of the last cycle in this artifact, shown above a diff
    /// against the previous cycle.
    fn notes(&self, view: &View) -> Vec<String> {
        if self.base != Base::Previous {
            return Vec::new();
        }
        view.model
            .review()
            .last
            .unrequested
            .iter()
            .filter(|c| c.artifact == self.section.key())
            .map(|c| format!("⚠ unrequested change: {}", c.summary))
            .collect()
    }

    fn geometry(&self, area: Rect, view: &View) -> Geometry {
        let outer = centered(
            area,
            area.width.saturating_sub(4),
            area.height.saturating_sub(2),
        );
        let inner = outer.inner(Margin::new(1, 1));
        let notes = (self.notes(view).len() as u16).min(inner.height / 2);
        let bar = u16::from(self.search.typing).min(inner.height.saturating_sub(notes));
        let body_height = inner.height.saturating_sub(notes + bar);
        Geometry {
            outer,
            notes: Rect::new(inner.x, inner.y, inner.width, notes),
            body: Rect::new(inner.x, inner.y + notes, inner.width, body_height),
            bar: (bar > 0).then(|| Rect::new(inner.x, inner.bottom() - 1, inner.width, 1)),
        }
    }


    fn draw_unified(&self, frame: &mut Frame, body: Rect, p: &Palette) {
        let mut shown: Vec<Line> = Vec::new();
        for i in self.top..self.diff.lines.len() {
            if shown.len() >= body.height as usize {
                break;
            }
            shown.extend(self.rows_of(i, body.width, p));
        }
        shown.truncate(body.height as usize);
        frame.render_widget(Paragraph::new(shown), body);
    }

    fn draw_side_by_side(&self, frame: &mut Frame, body: Rect, p: &Palette) {
        let (left_area, right_area) = halves(body);
        let (mut left, mut right): (Vec<Line>, Vec<Line>) = (Vec::new(), Vec::new());
        let first = self.diff.entry_of(Columns::SideBySide, self.top);
        for pair in self.diff.pairs.iter().skip(first) {
            if left.len() >= body.height as usize {
                break;
            }
            let l = pair
                .left
                .map_or_else(Vec::new, |i| self.rows_of(i, left_area.width, p));
            let r = pair
                .right
                .map_or_else(Vec::new, |i| self.rows_of(i, right_area.width, p));
            let rows = l.len().max(r.len()).max(1);
            for (side, mut lines) in [(&mut left, l), (&mut right, r)] {
                lines.resize(rows, Line::default());
                side.extend(lines);
            }
        }
        left.truncate(body.height as usize);
        right.truncate(body.height as usize);
        frame.render_widget(Paragraph::new(left), left_area);
        frame.render_widget(Paragraph::new(right), right_area);
        let rule = Rect::new(left_area.right(), body.y, 1, body.height);
        let bar: Vec<Line> = (0..body.height)
            .map(|_| Line::styled("│", Style::default().fg(p.border)))
            .collect();
        frame.render_widget(Paragraph::new(bar), rule);
    }

    /// Line `i` as screen rows `width` columns wide: the gutter (focus marker and
    /// sign) on the first, the text wrapped at words under it.
    fn rows_of(&self, i: usize, width: u16, p: &Palette) -> Vec<Line<'static>> {
        let Some(line) = self.diff.lines.get(i) else {
            return Vec::new();
        };
        let focused = i == self.cursor;
        let text = styled(line, p, &self.search.query, focused);
        let sign = match line.kind {
            DiffKind::Same | DiffKind::Gap => ' ',
            DiffKind::Added => '+',
            DiffKind::Removed => '-',
        };
        let sign_style = kind_style(line.kind, p);
        let by_reviewer = self.reviewer.as_ref().is_some_and(|edit| {
            match (line.kind, line.old_index, line.new_index) {
                (DiffKind::Added, _, Some(at)) => edit.wrote(at, &line.text),
                (DiffKind::Removed, Some(at), _) => edit.deleted(at, &line.text),
                _ => false,
            }
        });
        let rows = wrap::wrap_line(text, width.saturating_sub(GUTTER).max(1));
        let last = rows.len().saturating_sub(1);
        rows.into_iter()
            .enumerate()
            .map(|(row, text)| {
                let mut spans = if row == 0 {
                    vec![
                        Span::styled(
                            if focused { "▸" } else { " " },
                            Style::default().fg(p.accent),
                        ),
                        Span::styled(format!("{sign} "), sign_style),
                    ]
                } else {
                    vec![Span::raw("   ")]
                };
                spans.extend(text.spans);
                if by_reviewer && row == last {
                    spans.push(Span::styled(
                        "  reviewer",
                        Style::default().fg(p.muted).add_modifier(Modifier::ITALIC),
                    ));
                }
                Line::from(spans)
            })
            .collect()
    }
}

impl Window for DiffView {
    fn tables() -> Vec<Vec<&'static dyn Listed>> {
        vec![listed(BINDINGS), listed(SEARCH_BINDINGS)]
    }

    /// The keys at hand: the search's while one is typed, else the diff's.
    fn bindings(&self) -> Vec<&'static dyn Listed> {
        if self.search.typing {
            listed(SEARCH_BINDINGS)
        } else {
            listed(BINDINGS)
        }
    }

    /// `n N` act once there is a search to repeat.
    fn acts(&self, binding: &dyn Listed) -> bool {
        let repeat = BINDINGS
            .iter()
            .find(|b| b.chords.iter().any(|(_, c)| *c == C::NextMatch));
        !self.search.query.is_empty() || !repeat.is_some_and(|r| crate::tui::keymap::same(binding, r))
    }

    fn on_key(&mut self, key: KeyEvent, cx: &mut Ctx) -> Handled {
        if self.search.typing {
            return self.on_search_key(key, cx);
        }
        let columns = self.columns(cx.size.width);
        let page = self.geometry(cx.size, cx).body.height.max(1) as isize;
        let Some(command) = command(BINDINGS, &key) else {
            return Handled::Ignored;
        };
        match command {
            C::Close => return Handled::Close,
            C::Move(Motion::Down) => self.scroll_by(1, cx.size.width),
            C::Move(Motion::Up) => self.scroll_by(-1, cx.size.width),
            C::Move(Motion::PageDown) => self.scroll_by(page, cx.size.width),
            C::Move(Motion::PageUp) => self.scroll_by(-page, cx.size.width),
            C::Move(Motion::Top) => {
                self.top = 0;
                self.cursor = 0;
            }
            C::Move(Motion::Bottom) => {
                self.top = self.bottom_top(cx);
                self.cursor = self.diff.lines.len().saturating_sub(1);
            }
            C::NextHunk => {
                let after = if self.is_visible(self.cursor, cx) {
                    Some(self.cursor)
                } else {
                    self.top.checked_sub(1)
                };
                match self.diff.next_hunk(after) {
                    Some(line) => self.focus(line, cx),
                    None => cx.say("]: no hunk below".into()),
                }
            }
            C::PreviousHunk => {
                let before = if self.is_visible(self.cursor, cx) {
                    self.cursor
                } else {
                    self.top
                };
                match self.diff.previous_hunk(before) {
                    Some(line) => self.focus(line, cx),
                    None => cx.say("[: no hunk above".into()),
                }
            }
            C::Search => {
                self.search = DiffSearch {
                    typing: true,
                    origin: (self.top, self.cursor),
                    ..DiffSearch::default()
                };
            }
            C::NextMatch => self.search_next(false, cx),
            C::PreviousMatch => self.search_next(true, cx),
            C::Columns => {
                let next = match columns {
                    Columns::Unified => Columns::SideBySide,
                    Columns::SideBySide => Columns::Unified,
                };
                self.layout = Layout::Chosen(next);
                cx.say(match next {
                    Columns::Unified => "diff: unified".into(),
                    Columns::SideBySide => "diff: side by side".into(),
                });
            }
            C::Compare => {
                // The list of cycles takes the diff's place; Esc there brings it back.
                let this = std::mem::replace(
                    self,
                    DiffView::new(self.section, Base::Previous, Diff::default(), self.layout),
                );
                cx.ask(Do::Open(Popup::History(History::comparing(this))));
                cx.ask(Do::Ask(crate::volk::protocol::Query::History));
            }
        }
        Handled::Consumed
    }

    fn draw(&self, frame: &mut Frame, area: Rect, view: &View) {
        let p = view.theme.palette;
        let g = self.geometry(area, view);
        frame.render_widget(Clear, g.outer);
        let base = match &self.base {
            Base::Previous => "changes since the previous cycle".to_string(),
            Base::Cycle { short_id, summary } => format!(
                "changes since {short_id} ({})",
                summary.split(':').next().unwrap_or(summary)
            ),
        };
        let columns = self.columns(area.width);
        let mut status: Vec<String> = Vec::new();
        match self.diff.hunk_number(self.cursor) {
            Some(n) => status.push(format!("hunk {n}/{}", self.diff.hunks().len())),
            None => status.push(format!("{} hunks", self.diff.hunks().len())),
        }
        if let (false, Some(s)) = (self.search.typing, &self.search.status) {
            status.push(format!("/{} {s}", self.search.query));
        }
        let status = format!(" {} ", status.join(" · "));
        // The keys along the bottom, shorter when the status would run into them.
        let room = (g.outer.width as usize).saturating_sub(status.chars().count() + 4);
        let keys = [
            " ]/[ hunk · / search · c compare · s side by side · Esc close ",
            " ]/[ hunk · / search · Esc close ",
            "",
        ]
        .into_iter()
        .find(|k| k.chars().count() <= room)
        .unwrap_or("");
        let block = popup_block(
            &p,
            format!(
                " {} · {base} (+{} −{}) ",
                self.section.title(),
                self.diff.added,
                self.diff.removed
            ),
            p.accent,
        )
        .title_bottom(Line::styled(keys, Style::default().fg(p.muted)))
        .title_bottom(Line::styled(status, Style::default().fg(p.accent)).right_aligned());
        frame.render_widget(block, g.outer);
        let notes: Vec<Line> = self
            .notes(view)
            .into_iter()
            .map(|n| {
                Line::styled(
                    n,
                    Style::default().fg(p.warning).add_modifier(Modifier::BOLD),
                )
            })
            .collect();
        frame.render_widget(Paragraph::new(notes), g.notes);
        if self.diff.is_empty() {
            let what = match &self.base {
                Base::Previous => "no change since the previous cycle".to_string(),
                Base::Cycle { short_id, .. } => format!("no change since {short_id}"),
            };
            frame.render_widget(
                Paragraph::new(Line::styled(what, Style::default().fg(p.muted))),
                g.body,
            );
        } else {
            match columns {
                Columns::Unified => self.draw_unified(frame, g.body, &p),
                Columns::SideBySide => self.draw_side_by_side(frame, g.body, &p),
            }
        }
        if let Some(bar) = g.bar {
            let mut spans = vec![
                Span::styled("/", Style::default().fg(p.accent)),
                Span::raw(self.search.query.clone()),
                Span::styled("▍", Style::default().fg(p.accent)),
            ];
            if let Some(s) = &self.search.status {
                spans.push(Span::styled(
                    format!("  {s} · Enter keeps · Esc goes back"),
                    Style::default().fg(p.muted),
                ));
            }
            frame.render_widget(
                Paragraph::new(Line::from(spans))
                    .style(Style::default().bg(p.status_bg).fg(p.status_fg)),
                bar,
            );
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Direction {
    /// From the line where the search started, that line included (as you type).
    AtOrAfter,
    After,
    Before,
}

/// The left and right columns of the side-by-side view, a rule between them.
fn halves(body: Rect) -> (Rect, Rect) {
    let half = body.width.saturating_sub(1) / 2;
    (
        Rect::new(body.x, body.y, half, body.height),
        Rect::new(
            body.x + half + 1,
            body.y,
            body.width.saturating_sub(half + 1),
            body.height,
        ),
    )
}

fn kind_style(kind: DiffKind, p: &Palette) -> Style {
    match kind {
        DiffKind::Same => Style::default().fg(p.foreground),
        DiffKind::Added => Style::default().fg(p.added),
        DiffKind::Removed => Style::default().fg(p.removed),
        DiffKind::Gap => Style::default().fg(p.muted),
    }
}

/// A diff line's text in its colour, the changed words on a background of that
/// colour, and the search's occurrences reversed.
fn styled(line: &DiffLine, p: &Palette, query: &str, focused: bool) -> Line<'static> {
    let mut base = kind_style(line.kind, p);
    if focused {
        base = base.bg(p.cursor_line);
    }
    let word = match line.kind {
        DiffKind::Removed => Style::default()
            .fg(p.background)
            .bg(p.removed)
            .add_modifier(Modifier::BOLD),
        _ => Style::default()
            .fg(p.background)
            .bg(p.added)
            .add_modifier(Modifier::BOLD),
    };
    let found = occurrences(&line.text, query);
    let mut cuts: Vec<usize> = vec![0, line.text.len()];
    for r in line.changed.iter().chain(found.iter()) {
        cuts.extend([r.start, r.end]);
    }
    cuts.sort_unstable();
    cuts.dedup();
    let inside = |ranges: &[Range<usize>], at: usize| ranges.iter().any(|r| r.contains(&at));
    let spans: Vec<Span<'static>> = cuts
        .windows(2)
        .filter(|w| w[0] < w[1])
        .map(|w| {
            let mut style = if inside(&line.changed, w[0]) {
                word
            } else {
                base
            };
            if inside(&found, w[0]) {
                style = style.add_modifier(Modifier::REVERSED);
            }
            Span::styled(line.text[w[0]..w[1]].to_string(), style)
        })
        .collect();
    Line::from(spans)
}

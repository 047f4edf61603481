//! The class diagram painted into ratatui cells: boxes with the class name and its
//! members, and each kind of relationship with its own line and head (solid or
//! dashed; `△` inheritance and realization, `◆` composition, `◇` aggregation, `v`
//! association and dependency), labelled. Only the window the screen shows is
//! painted, so scrolling a 200-class drawing costs what the window costs.

use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::widgets::Widget;
use unicode_width::UnicodeWidthChar;

use crate::design::diagram::budget::TIME_BUDGET;
use crate::design::diagram::layout::{
    BoxLine, Cell, DiagramLayout, HeadShape, Stroke, Toward, layout_within,
};
use crate::design::diagram::{Budget, Refusal};
use crate::design::lint::diagnostic::Code;
use crate::design::model::mermaid::parse;
use crate::plan::diagnostic::LineIndex;
use crate::tui::theme::Palette;

/// How the parts of a drawing look.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiagramStyles {
    pub border: Style,
    pub name: Style,
    pub annotation: Style,
    pub member: Style,
    pub edge: Style,
    pub head: Style,
    pub label: Style,
}

impl Default for DiagramStyles {
    fn default() -> Self {
        DiagramStyles {
            border: Style::default(),
            name: Style::default().add_modifier(Modifier::BOLD),
            annotation: Style::default().add_modifier(Modifier::ITALIC),
            member: Style::default(),
            edge: Style::default(),
            head: Style::default(),
            label: Style::default().add_modifier(Modifier::ITALIC),
        }
    }
}

impl DiagramStyles {
    pub fn from_palette(p: &Palette) -> DiagramStyles {
        DiagramStyles {
            border: Style::default().fg(p.border),
            name: Style::default().fg(p.title).add_modifier(Modifier::BOLD),
            annotation: Style::default().fg(p.muted).add_modifier(Modifier::ITALIC),
            member: Style::default().fg(p.foreground),
            edge: Style::default().fg(p.muted),
            head: Style::default().fg(p.accent),
            label: Style::default().fg(p.accent).add_modifier(Modifier::ITALIC),
        }
    }
}

const UP: u8 = 1;
const DOWN: u8 = 2;
const LEFT: u8 = 4;
const RIGHT: u8 = 8;

/// The line arms met in each cell of the window.
struct Strokes {
    origin: Cell,
    width: usize,
    height: usize,
    solid: Vec<u8>,
    dashed: Vec<u8>,
    /// The cell is part of a box outline (drawn in the border style).
    outline: Vec<bool>,
}

impl Strokes {
    fn new(origin: Cell, width: usize, height: usize) -> Strokes {
        let n = width * height;
        Strokes {
            origin,
            width,
            height,
            solid: vec![0; n],
            dashed: vec![0; n],
            outline: vec![false; n],
        }
    }

    /// Index of diagram cell `(x, y)` in the window.
    fn at(&self, (x, y): Cell) -> Option<usize> {
        let cx = x.checked_sub(self.origin.0)?;
        let cy = y.checked_sub(self.origin.1)?;
        (cx < self.width && cy < self.height).then_some(cy * self.width + cx)
    }

    fn add(&mut self, cell: Cell, arms: u8, stroke: Stroke, outline: bool) {
        if let Some(i) = self.at(cell) {
            match stroke {
                Stroke::Solid => self.solid[i] |= arms,
                Stroke::Dashed => self.dashed[i] |= arms,
            }
            self.outline[i] |= outline;
        }
    }

    /// A horizontal or vertical run from `a` to `b`, both ends included, clipped to
    /// the window.
    fn line(&mut self, a: Cell, b: Cell, stroke: Stroke, outline: bool) {
        let (x0, y0) = self.origin;
        let (x1, y1) = (x0 + self.width, y0 + self.height);
        if a.1 == b.1 {
            let (lo, hi) = (a.0.min(b.0), a.0.max(b.0));
            if a.1 < y0 || a.1 >= y1 {
                return;
            }
            for x in lo.max(x0)..=hi.min(x1.saturating_sub(1)) {
                let arms = if x > lo { LEFT } else { 0 } | if x < hi { RIGHT } else { 0 };
                self.add((x, a.1), arms, stroke, outline);
            }
        } else if a.0 == b.0 {
            let (lo, hi) = (a.1.min(b.1), a.1.max(b.1));
            if a.0 < x0 || a.0 >= x1 {
                return;
            }
            for y in lo.max(y0)..=hi.min(y1.saturating_sub(1)) {
                let arms = if y > lo { UP } else { 0 } | if y < hi { DOWN } else { 0 };
                self.add((a.0, y), arms, stroke, outline);
            }
        }
    }

    fn glyph(&self, i: usize) -> Option<char> {
        let (solid, mut dashed) = (self.solid[i], self.dashed[i]);
        // Where a dashed line crosses a solid one the solid one is drawn whole and
        // the dashed one passes under it, so neither reads as the other. (On a box
        // outline the dashed line joins the border like any other.)
        if solid != 0 && !self.outline[i] {
            dashed = 0;
        }
        let all = solid | dashed;
        if all == 0 {
            return None;
        }
        if solid == 0 && dashed & (LEFT | RIGHT) == 0 {
            return Some('┆');
        }
        if solid == 0 && dashed & (UP | DOWN) == 0 {
            return Some('┄');
        }
        Some(match all {
            x if x == UP | DOWN | LEFT | RIGHT => '┼',
            x if x == UP | DOWN | RIGHT => '├',
            x if x == UP | DOWN | LEFT => '┤',
            x if x == DOWN | LEFT | RIGHT => '┬',
            x if x == UP | LEFT | RIGHT => '┴',
            x if x == DOWN | RIGHT => '┌',
            x if x == DOWN | LEFT => '┐',
            x if x == UP | RIGHT => '└',
            x if x == UP | LEFT => '┘',
            x if x & (LEFT | RIGHT) == 0 => '│',
            _ => '─',
        })
    }
}

fn head_glyph(shape: HeadShape, toward: Toward) -> char {
    match (shape, toward) {
        (HeadShape::Triangle, Toward::Up) => '△',
        (HeadShape::Triangle, Toward::Down) => '▽',
        (HeadShape::Triangle, Toward::Left) => '◁',
        (HeadShape::Triangle, Toward::Right) => '▷',
        (HeadShape::FilledDiamond, _) => '◆',
        (HeadShape::HollowDiamond, _) => '◇',
        (HeadShape::Arrow, Toward::Up) => '^',
        (HeadShape::Arrow, Toward::Down) => 'v',
        (HeadShape::Arrow, Toward::Left) => '<',
        (HeadShape::Arrow, Toward::Right) => '>',
    }
}

/// Paints the part of `layout` whose top-left diagram cell is `origin` into `area`.
pub fn paint(
    layout: &DiagramLayout,
    origin: Cell,
    area: Rect,
    buf: &mut Buffer,
    styles: &DiagramStyles,
) {
    let area = area.intersection(buf.area);
    if area.is_empty() {
        return;
    }
    let (w, h) = (usize::from(area.width), usize::from(area.height));
    let window = crate::design::diagram::Rect {
        x: origin.0,
        y: origin.1,
        width: w,
        height: h,
    };
    let mut strokes = Strokes::new(origin, w, h);
    for e in &layout.edges {
        for line in e.lines() {
            for leg in line.windows(2) {
                strokes.line(leg[0], leg[1], e.stroke, false);
            }
        }
    }
    for b in &layout.boxes {
        let r = b.rect;
        if !r.overlaps(&window) || r.width < 2 || r.height < 2 {
            continue;
        }
        let (right, bottom) = (r.right() - 1, r.bottom() - 1);
        for (a, c) in [
            ((r.x, r.y), (right, r.y)),
            ((r.x, bottom), (right, bottom)),
            ((r.x, r.y), (r.x, bottom)),
            ((right, r.y), (right, bottom)),
        ] {
            strokes.line(a, c, Stroke::Solid, true);
        }
        for (row, line) in b.lines().iter().enumerate() {
            if *line == BoxLine::Separator {
                strokes.line(
                    (r.x, r.y + 1 + row),
                    (right, r.y + 1 + row),
                    Stroke::Solid,
                    true,
                );
            }
        }
    }
    let screen = |i: usize| (area.x + (i % w) as u16, area.y + (i / w) as u16);
    for i in 0..w * h {
        if let Some(g) = strokes.glyph(i) {
            let style = if strokes.outline[i] {
                styles.border
            } else {
                styles.edge
            };
            if let Some(cell) = buf.cell_mut(screen(i)) {
                cell.set_char(g).set_style(style);
            }
        }
    }
    let mut put = |x: usize, y: usize, text: &str, style: Style, limit: usize| {
        put_text(buf, area, origin, (x, y), text, style, limit);
    };
    for b in &layout.boxes {
        let r = b.rect;
        if !r.overlaps(&window) || r.width < 4 {
            continue;
        }
        let inner = r.width - 4;
        for (row, line) in b.lines().iter().enumerate() {
            let y = r.y + 1 + row;
            let (text, style, centred) = match line {
                BoxLine::Separator => continue,
                BoxLine::Annotation(t) => (*t, styles.annotation, true),
                BoxLine::Name(t) => (*t, styles.name, true),
                BoxLine::Member(t) => (*t, styles.member, false),
            };
            put(
                r.x + 1,
                y,
                &" ".repeat(r.width - 2),
                styles.member,
                r.width - 2,
            );
            let tw = unicode_width::UnicodeWidthStr::width(text);
            let pad = if centred {
                inner.saturating_sub(tw) / 2
            } else {
                0
            };
            put(r.x + 2 + pad, y, text, style, inner - pad);
        }
    }
    for e in &layout.edges {
        for (shape, (x, y), toward) in e.heads() {
            let mut s = [0u8; 4];
            put(
                x,
                y,
                head_glyph(shape, toward).encode_utf8(&mut s),
                styles.head,
                1,
            );
        }
        for l in e.label.iter().chain(e.tags()) {
            put(l.x, l.y, &l.text, styles.label, usize::MAX);
        }
    }
    for l in &layout.loops {
        put(l.mark.x, l.mark.y, &l.mark.text, styles.label, usize::MAX);
    }
}

/// Writes `text` at diagram cell `at`, at most `limit` cells of it, clipped to the
/// window shown in `area`.
fn put_text(
    buf: &mut Buffer,
    area: Rect,
    origin: Cell,
    at: Cell,
    text: &str,
    style: Style,
    limit: usize,
) {
    let (x0, y0) = origin;
    let (w, h) = (usize::from(area.width), usize::from(area.height));
    let Some(row) = at.1.checked_sub(y0).filter(|r| *r < h) else {
        return;
    };
    let mut col = at.0;
    let mut used = 0;
    for c in text.chars() {
        let cw = c.width().unwrap_or(0);
        if cw == 0 {
            continue;
        }
        if used + cw > limit {
            break;
        }
        used += cw;
        let start = col;
        col += cw;
        let Some(sx) = start.checked_sub(x0) else {
            continue;
        };
        if sx + cw > w {
            break;
        }
        let pos = (area.x + sx as u16, area.y + row as u16);
        let mut s = [0u8; 4];
        buf.set_stringn(pos.0, pos.1, c.encode_utf8(&mut s), cw, style);
    }
}

/// A scrolled view of a drawing.
pub struct DiagramView<'a> {
    pub layout: &'a DiagramLayout,
    /// The diagram cell shown at the top-left corner.
    pub origin: Cell,
    pub styles: DiagramStyles,
}

impl Widget for DiagramView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        paint(self.layout, self.origin, area, buf, &self.styles);
    }
}

/// The whole drawing as text, one line per row without trailing blanks (for tests
/// and snapshots). A drawing larger than a terminal can address is cut at 65535.
pub fn to_text(layout: &DiagramLayout) -> String {
    let w = u16::try_from(layout.width).unwrap_or(u16::MAX);
    let h = u16::try_from(layout.height).unwrap_or(u16::MAX);
    let area = Rect::new(0, 0, w, h);
    let mut buf = Buffer::empty(area);
    paint(layout, (0, 0), area, &mut buf, &DiagramStyles::default());
    let mut out = String::new();
    for y in 0..h {
        let mut line = String::new();
        for x in 0..w {
            if let Some(cell) = buf.cell((x, y)) {
                line.push_str(cell.symbol());
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// The first syntax fault of a class diagram, as `volk lint` reports it (D001).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    /// 1-based, in the text the tab shows.
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl Fault {
    pub fn headline(&self) -> String {
        format!(
            "{} line {}:{}: {}",
            Code::DiagramSyntax,
            self.line,
            self.column,
            self.message
        )
    }
}

/// A class diagram read once for the tab: its drawing and its fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Drawing {
    /// Empty when the layout was refused.
    pub layout: DiagramLayout,
    pub fault: Option<Fault>,
    /// Why there is no drawing: the diagram is over the size limit, or its layout
    /// over the time budget.
    pub refused: Option<Refusal>,
}

impl Drawing {
    /// The drawing of `text` with no limit.
    pub fn of(text: &str) -> Drawing {
        Drawing::within(text, &Budget::unlimited())
    }

    /// The drawing of `text`, or the reason it is not drawn within `budget`.
    pub fn within(text: &str, budget: &Budget) -> Drawing {
        let diagram = parse(text);
        let fault = diagram.error.as_ref().map(|e| {
            let (line, column) = LineIndex::new(text).locate(e.span.start);
            Fault {
                line,
                column,
                message: e.message.clone(),
            }
        });
        let (layout, refused) = match layout_within(&diagram, budget) {
            Ok(layout) => (layout, None),
            Err(why) => (DiagramLayout::default(), Some(why)),
        };
        Drawing {
            layout,
            fault,
            refused,
        }
    }
}

/// A layout running on its own thread, for the text with this hash.
#[derive(Debug)]
struct Job {
    hash: u64,
    started: Instant,
    result: mpsc::Receiver<Drawing>,
}

/// Past the budget, how long the tab still waits for a layout that has not given
/// up by itself (ascii-dag's placement cannot be interrupted; the size limit keeps
/// it short) before it shows the source anyway.
const GRACE: Duration = Duration::from_millis(300);

/// What [`DiagramPane::refresh`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refreshed {
    /// The drawing shown is the drawing of the text.
    Current,
    /// A layout is running: ask for another frame.
    Pending,
    /// A drawing arrived this time; with the reason when it was refused.
    Arrived(Option<Refusal>),
}

/// What the tab shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiagramMode {
    Drawing,
    /// The Mermaid text, with the fault marked when there is one.
    Source,
}

/// A scroll or toggle asked of the tab.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scroll {
    Up(usize),
    Down(usize),
    Left(usize),
    Right(usize),
    /// Back to the top-left corner.
    Home,
    /// The bottom of the drawing.
    End,
}

/// The Class diagram tab's own state: the reader's choice of drawing or source, the
/// two scroll positions, and the drawing of the text shown. The layout runs on its
/// own thread under [`Budget::standard`], started again only when the text changes
/// ([`DiagramPane::refresh`], before a frame is drawn); the frame never waits for it.
#[derive(Debug, Default)]
pub struct DiagramPane {
    /// `None` until the reader toggles: then a diagram that parses is drawn and one
    /// that does not shows its source.
    choice: Option<DiagramMode>,
    /// The diagram cell at the top-left of the window.
    pub origin: Cell,
    drawn: Option<(u64, Arc<Drawing>)>,
    job: Option<Job>,
}

fn lines_hash(lines: &[String]) -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = foldhash::fast::FixedState::with_seed(0x5eed).build_hasher();
    for l in lines {
        h.write(l.as_bytes());
        h.write_u8(b'\n');
    }
    h.finish()
}

impl DiagramPane {
    /// Takes a finished layout in, and starts one for `lines` if they are not the
    /// lines drawn and none is running. One layout runs at a time: while the
    /// architect streams, the latest text is laid out when the running one ends.
    pub fn refresh(&mut self, lines: &[String]) -> Refreshed {
        let mut arrived = None;
        if let Some(job) = &self.job {
            let done = match job.result.try_recv() {
                Ok(d) => Some(d),
                Err(mpsc::TryRecvError::Empty) if job.started.elapsed() > TIME_BUDGET + GRACE => {
                    Some(Drawing {
                        layout: DiagramLayout::default(),
                        fault: None,
                        refused: Some(Refusal::TooSlow(TIME_BUDGET)),
                    })
                }
                Err(mpsc::TryRecvError::Empty) => None,
                // The thread died (out of memory, a panic): say so, as too slow.
                Err(mpsc::TryRecvError::Disconnected) => Some(Drawing {
                    layout: DiagramLayout::default(),
                    fault: None,
                    refused: Some(Refusal::TooSlow(TIME_BUDGET)),
                }),
            };
            if let Some(d) = done {
                arrived = Some(d.refused.clone());
                self.drawn = Some((job.hash, Arc::new(d)));
                self.job = None;
            }
        }
        let hash = lines_hash(lines);
        if self.drawn.as_ref().is_some_and(|(h, _)| *h == hash) {
            return match arrived {
                Some(why) => Refreshed::Arrived(why),
                None => Refreshed::Current,
            };
        }
        if self.job.is_none() {
            let (tx, rx) = mpsc::channel();
            let text = lines.join("\n");
            let budget = Budget::standard();
            let spawned = std::thread::Builder::new()
                .name("volk-diagram".into())
                .spawn(move || {
                    let _ = tx.send(Drawing::within(&text, &budget));
                });
            if spawned.is_err() {
                // No thread to be had: the source, and why.
                self.drawn = Some((
                    hash,
                    Arc::new(Drawing {
                        layout: DiagramLayout::default(),
                        fault: None,
                        refused: Some(Refusal::TooSlow(TIME_BUDGET)),
                    }),
                ));
                return Refreshed::Arrived(Some(Refusal::TooSlow(TIME_BUDGET)));
            }
            self.job = Some(Job {
                hash,
                started: Instant::now(),
                result: rx,
            });
        }
        Refreshed::Pending
    }

    /// A layout is running.
    pub fn is_pending(&self) -> bool {
        self.job.is_some()
    }

    /// The drawing of the lines last refreshed.
    pub fn drawing(&self) -> Option<Arc<Drawing>> {
        self.drawn.as_ref().map(|(_, d)| Arc::clone(d))
    }

    /// What the reader chose with the toggle, if they did.
    pub fn chosen(&self) -> Option<DiagramMode> {
        self.choice
    }

    pub fn choose(&mut self, mode: DiagramMode) {
        self.choice = Some(mode);
    }

    pub fn mode(&self, d: &Drawing) -> DiagramMode {
        if d.refused.is_some() {
            return DiagramMode::Source;
        }
        self.choice.unwrap_or(if d.fault.is_some() {
            DiagramMode::Source
        } else {
            DiagramMode::Drawing
        })
    }

    pub fn toggle(&mut self, d: &Drawing) {
        self.choice = Some(match self.mode(d) {
            DiagramMode::Drawing => DiagramMode::Source,
            DiagramMode::Source => DiagramMode::Drawing,
        });
    }

    /// Moves the window over the drawing; `view` is the window's size in cells. The
    /// window never leaves the drawing. (The source is the viewer's to scroll.)
    pub fn scroll(&mut self, d: &Drawing, view: (usize, usize), step: Scroll) {
        let max_x = d.layout.width.saturating_sub(view.0);
        let max_y = d.layout.height.saturating_sub(view.1);
        let (x, y) = self.origin;
        let (x, y) = match step {
            Scroll::Up(n) => (x, y.saturating_sub(n)),
            Scroll::Down(n) => (x, y.saturating_add(n)),
            Scroll::Left(n) => (x.saturating_sub(n), y),
            Scroll::Right(n) => (x.saturating_add(n), y),
            Scroll::Home => (0, 0),
            Scroll::End => (x, max_y),
        };
        self.origin = (x.min(max_x), y.min(max_y));
    }

    /// Draws the drawing into `area` (inside the tab's frame), under the fault's
    /// headline when the diagram does not parse.
    pub fn render(&self, d: &Drawing, area: Rect, buf: &mut Buffer, palette: &Palette) {
        let mut area = area.intersection(buf.area);
        if area.is_empty() {
            return;
        }
        if let Some(f) = &d.fault {
            let style = Style::default()
                .fg(palette.error)
                .add_modifier(Modifier::BOLD);
            let text = format!("{} · v: source", f.headline());
            buf.set_stringn(area.x, area.y, text, usize::from(area.width), style);
            area.y += 1;
            area.height -= 1;
        }
        let origin = (
            self.origin
                .0
                .min(d.layout.width.saturating_sub(usize::from(area.width))),
            self.origin
                .1
                .min(d.layout.height.saturating_sub(usize::from(area.height))),
        );
        paint(
            &d.layout,
            origin,
            area,
            buf,
            &DiagramStyles::from_palette(palette),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::design::diagram::layout::layout;
    use std::fmt::Write as _;

    fn draw(mermaid: &str) -> String {
        to_text(&layout(&parse(mermaid)))
    }

    /// `n` classes: a tree of inheritance, composition and association, with a few
    /// dependencies across it and members on every third class.
    pub(crate) fn many(n: usize) -> String {
        let mut t = String::from("classDiagram\n");
        for i in 0..n {
            if i % 3 == 0 {
                let _ = writeln!(t, "  class C{i} {{\n    +int id\n    +run(x) bool\n  }}");
            }
            if i > 0 {
                let parent = (i - 1) / 3;
                let arrow = ["<|--", "*--", "-->"][i % 3];
                let _ = writeln!(t, "  C{parent} {arrow} C{i}");
            }
            if i % 7 == 6 {
                let _ = writeln!(t, "  C{i} ..> C{} : uses", i / 2);
            }
        }
        t
    }

    #[test]
    fn inheritance_chain() {
        insta::assert_snapshot!(draw(
            "classDiagram\n  Animal <|-- Mammal\n  Mammal <|-- Dog\n  Mammal <|-- Cat\n  class Animal {\n    <<abstract>>\n    +String name\n    +speak() String\n  }\n  Dog : +fetch()\n"
        ));
    }

    #[test]
    fn composition() {
        insta::assert_snapshot!(draw(
            "classDiagram\n  Order \"1\" *-- \"many\" LineItem : contains\n  Order o-- Customer : placed by\n  LineItem --> Product\n  class Order {\n    +total() Money\n  }\n"
        ));
    }

    #[test]
    fn cycle() {
        insta::assert_snapshot!(draw(
            "classDiagram\n  Parser --> Lexer : reads\n  Lexer --> Token\n  Token --> Parser : feeds\n  Parser --> Parser : recurses\n"
        ));
    }

    #[test]
    fn every_kind_of_relationship() {
        insta::assert_snapshot!(draw(
            "classDiagram\n  Shape <|-- Circle : inheritance\n  Drawable <|.. Circle : realization\n  Circle *-- Point : composition\n  Canvas o-- Shape : aggregation\n  Canvas --> Drawable : association\n  Canvas ..> Point : dependency\n  Point -- Vector : link\n  Vector .. Canvas : dashed\n"
        ));
    }

    /// With no tracks at all every edge that turns is cut: stubs tagged alike.
    #[test]
    fn every_kind_with_its_tracks_run_out() {
        let diagram = parse(
            "classDiagram\n  Shape <|-- Circle : inheritance\n  Drawable <|.. Circle : realization\n  Circle *-- Point : composition\n  Canvas o-- Shape : aggregation\n  Canvas --> Drawable : association\n  Canvas ..> Point : dependency\n  Point -- Vector : link\n  Vector .. Canvas : dashed\n",
        );
        let d = layout_within(&diagram, &Budget::unlimited().with_tracks(0)).unwrap();
        let text = to_text(&d);
        assert!(text.contains("#1 "), "{text}");
        insta::assert_snapshot!(text);
    }

    /// A dashed line crossing a solid one passes under it.
    #[test]
    fn a_dashed_line_passes_under_a_solid_one() {
        let mut s = Strokes::new((0, 0), 3, 3);
        s.line((0, 1), (2, 1), Stroke::Solid, false);
        s.line((1, 0), (1, 2), Stroke::Dashed, false);
        assert_eq!(s.glyph(4), Some('─'));
        assert_eq!(s.glyph(1), Some('┆'));
    }

    #[test]
    fn a_diagram_over_the_limit_is_refused_and_stays_on_its_source() {
        let mut t = String::from("classDiagram\n");
        for i in 0..100 {
            for j in (0..100).filter(|&j| j != i) {
                let _ = writeln!(t, "  C{i} --> C{j} : r{i}x{j}");
            }
        }
        let mut pane = DiagramPane::default();
        let started = Instant::now();
        let got = settle(&mut pane, &lines(&t));
        assert!(
            started.elapsed() < TIME_BUDGET + GRACE,
            "{:?}",
            started.elapsed()
        );
        let Refreshed::Arrived(Some(why)) = got else {
            panic!("{got:?}");
        };
        assert!(
            why.to_string()
                .starts_with("100 classes × 9900 relationships is over the layout limit"),
            "{why}"
        );
        let d = pane.drawing().unwrap();
        assert_eq!(pane.mode(&d), DiagramMode::Source);
        pane.choose(DiagramMode::Drawing);
        assert_eq!(pane.mode(&d), DiagramMode::Source);
        assert_eq!(pane.refresh(&lines(&t)), Refreshed::Current);
    }

    #[test]
    fn thirty_classes() {
        insta::assert_snapshot!(draw(&many(30)));
    }

    /// A scrolled window shows exactly that part of the whole drawing.
    #[test]
    fn a_window_is_a_cut_of_the_whole() {
        let d = layout(&parse(&many(30)));
        let whole: Vec<Vec<String>> = {
            let area = Rect::new(0, 0, d.width as u16, d.height as u16);
            let mut buf = Buffer::empty(area);
            paint(&d, (0, 0), area, &mut buf, &DiagramStyles::default());
            (0..area.height)
                .map(|y| {
                    (0..area.width)
                        .map(|x| buf[(x, y)].symbol().to_string())
                        .collect()
                })
                .collect()
        };
        for origin in [(0, 0), (7, 3), (d.width - 5, d.height - 4), (13, 29)] {
            let area = Rect::new(2, 1, 40, 12);
            let mut buf = Buffer::empty(Rect::new(0, 0, 44, 14));
            paint(&d, origin, area, &mut buf, &DiagramStyles::default());
            for y in 0..12usize {
                for x in 0..40usize {
                    let want = whole
                        .get(origin.1 + y)
                        .and_then(|row| row.get(origin.0 + x))
                        .map_or(" ", String::as_str);
                    let got = buf[(2 + x as u16, 1 + y as u16)].symbol();
                    assert_eq!(got, want, "origin {origin:?} cell ({x}, {y})");
                }
            }
        }
    }

    fn screen(buf: &Buffer) -> String {
        let a = buf.area;
        (a.y..a.bottom())
            .map(|y| {
                let row: String = (a.x..a.right()).map(|x| buf[(x, y)].symbol()).collect();
                row.trim_end().to_string() + "\n"
            })
            .collect()
    }

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_string).collect()
    }

    /// Refreshes until the layout thread has answered.
    fn settle(pane: &mut DiagramPane, lines: &[String]) -> Refreshed {
        let start = Instant::now();
        loop {
            match pane.refresh(lines) {
                Refreshed::Pending => {
                    assert!(start.elapsed() < Duration::from_secs(10), "no drawing");
                    std::thread::sleep(Duration::from_millis(2));
                }
                done => return done,
            }
        }
    }

    const BROKEN: &str = "```mermaid\nclassDiagram\n  Store <|-- Cache\n  class Store {\n    m: dict = {}\n  }\n```\n";

    #[test]
    fn a_diagram_that_does_not_parse_starts_on_its_source() {
        let palette = crate::tui::theme::Theme::dark().palette;
        let mut pane = DiagramPane::default();
        settle(&mut pane, &lines(BROKEN));
        let d = pane.drawing().unwrap();
        let f = d.fault.clone().unwrap();
        assert_eq!((f.line, f.column), (5, 15));
        assert!(
            f.headline()
                .starts_with("D001 line 5:15: `{` inside a class body")
        );
        assert_eq!(pane.mode(&d), DiagramMode::Source);
        // The toggle shows what could be drawn, under the fault.
        pane.toggle(&d);
        assert_eq!(pane.mode(&d), DiagramMode::Drawing);
        let area = Rect::new(0, 0, 70, 12);
        let mut buf = Buffer::empty(area);
        pane.render(&d, area, &mut buf, &palette);
        let text = screen(&buf);
        assert!(text.starts_with("D001 line 5:15: "), "{text}");
        assert_eq!(buf[(0, 0)].fg, palette.error);
        assert!(text.contains("Store") && text.contains('△'), "{text}");
        pane.toggle(&d);
        assert_eq!(pane.mode(&d), DiagramMode::Source);
        // A diagram that parses starts drawn.
        settle(&mut pane, &lines("classDiagram\n  A <|-- B\n"));
        let ok = pane.drawing().unwrap();
        assert_eq!(DiagramPane::default().mode(&ok), DiagramMode::Drawing);
    }

    #[test]
    fn the_drawing_is_read_again_only_when_the_text_changes() {
        let mut pane = DiagramPane::default();
        assert!(pane.drawing().is_none());
        settle(&mut pane, &lines("classDiagram\n  A <|-- B\n"));
        let a = pane.drawing().unwrap();
        settle(&mut pane, &lines("classDiagram\n  A <|-- B\n"));
        let b = pane.drawing().unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        settle(&mut pane, &lines("classDiagram\n  A <|-- C\n"));
        let c = pane.drawing().unwrap();
        assert!(!Arc::ptr_eq(&a, &c));
        assert_eq!(c.layout.boxes[1].name, "C");
    }

    #[test]
    fn scrolling_keeps_the_window_on_the_drawing() {
        let mut pane = DiagramPane::default();
        settle(&mut pane, &lines(&many(30)));
        let d = pane.drawing().unwrap();
        let (w, h) = (d.layout.width, d.layout.height);
        assert!(w > 40 && h > 12, "{w}x{h}");
        let view = (40, 12);
        pane.scroll(&d, view, Scroll::Left(3));
        assert_eq!(pane.origin, (0, 0));
        pane.scroll(&d, view, Scroll::Right(10_000));
        pane.scroll(&d, view, Scroll::Down(10_000));
        assert_eq!(pane.origin, (w - 40, h - 12));
        pane.scroll(&d, view, Scroll::Up(2));
        assert_eq!(pane.origin, (w - 40, h - 14));
        pane.scroll(&d, view, Scroll::Home);
        assert_eq!(pane.origin, (0, 0));
        pane.scroll(&d, view, Scroll::End);
        assert_eq!(pane.origin, (0, h - 12));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(100))]
        /// Any diagram paints in any window, even one past its end, without a panic.
        #[test]
        fn any_diagram_paints_in_any_window(
            text in crate::design::diagram::layout::tests::diagram_text(),
            x in 0usize..200,
            y in 0usize..200,
            w in 1u16..90,
            h in 1u16..40,
        ) {
            let d = layout(&parse(&text));
            let area = Rect::new(1, 1, w, h);
            let mut buf = Buffer::empty(Rect::new(0, 0, w + 2, h + 2));
            paint(&d, (x, y), area, &mut buf, &DiagramStyles::default());
            let whole = to_text(&d);
            proptest::prop_assert_eq!(whole.lines().count(), d.height);
        }
    }
}

//! Where things go on the screen, computed from the state alone. The run loop calls
//! [`App::prepare_frame`] before every draw: it moves streamed text into the tabs,
//! keeps the cursor (or a followed stream) in view, highlights the visible lines and
//! records the areas a mouse click can hit. Drawing then only reads the [`App`].

use ratatui::layout::{Constraint, Layout, Rect};

use crate::tui::app::{App, Focus, Follow, Gutter, Popup, Screen, ThinkingPane, Wrap, Zoom};
use crate::tui::document::Progress;
use crate::tui::pane;
use crate::tui::wrap;

/// The smallest terminal the layout fits in.
pub const MIN_WIDTH: u16 = 60;
pub const MIN_HEIGHT: u16 = 16;

/// Time a frame may spend highlighting; the rest follows in the next frames.
const HIGHLIGHT_BUDGET: std::time::Duration = std::time::Duration::from_millis(4);

/// The regions of the workbench screen.
pub struct Regions {
    pub header: Rect,
    pub tabs: Rect,
    pub viewer: Rect,
    pub review: Rect,
    pub thinking: Option<Rect>,
    pub status: Rect,
}

/// Splits the screen: review pane on the right when wide, below when narrow.
pub fn regions(area: Rect, app: &App) -> Regions {
    let zoomed = app.zoom == Zoom::Focused;
    let show_thinking = app.thinking_pane == ThinkingPane::Shown && !zoomed;
    let [header, tabs, body, thinking, status] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Min(4),
        Constraint::Length(if show_thinking { 7 } else { 0 }),
        Constraint::Length(1),
    ])
    .areas(area);
    let (viewer, review) = if zoomed {
        // The focused pane takes the whole body; the other is not drawn.
        match app.focus {
            Focus::Viewer => (body, Rect::default()),
            Focus::Review => (Rect::default(), body),
        }
    } else if area.width >= 110 {
        let [v, r] =
            Layout::horizontal([Constraint::Min(40), Constraint::Length(area.width * 3 / 10)])
                .areas(body);
        (v, r)
    } else {
        let [v, r] =
            Layout::vertical([Constraint::Min(3), Constraint::Length(body.height / 3)]).areas(body);
        (v, r)
    };
    Regions {
        header,
        tabs,
        viewer,
        review,
        thinking: show_thinking.then_some(thinking),
        status,
    }
}

/// Whether the screen is too small for the workbench.
pub fn too_small(area: Rect) -> bool {
    area.width < MIN_WIDTH || area.height < MIN_HEIGHT
}

/// Inside a panel's border.
pub fn inner(area: Rect) -> Rect {
    crate::tui::widgets::panel("", ratatui::style::Color::Reset, Default::default()).inner(area)
}

/// How the viewer lays out the current document in its area.
#[derive(Debug, Clone, Copy)]
pub struct ViewerGeometry {
    pub inner: Rect,
    pub gutter_width: u16,
    pub text_width: u16,
    /// The tab shows the section (or raw answer) being streamed.
    pub is_live: bool,
    /// Showing the raw answer (no section marker yet).
    pub raw: bool,
}

fn digits(n: usize) -> u16 {
    let mut d = 1;
    let mut n = n / 10;
    while n > 0 {
        d += 1;
        n /= 10;
    }
    d
}

pub fn viewer_geometry(app: &App, viewer: Rect) -> ViewerGeometry {
    let tab = app.tab;
    let raw = tab.section().is_some() && app.old_cycle.is_none() && app.raw.shown();
    let live_section = app.streaming_section();
    let is_live = (tab.section().is_some_and(|s| Some(s) == live_section)
        || (raw && app.is_streaming()))
        && app.old_cycle.is_none();
    let len = app.current_doc().len();
    let inner = inner(viewer);
    // While a stream grows, the gutter is sized for a thousand lines at once, so the
    // text does not shift sideways each time the count gains a digit.
    let numbered = if is_live { len.max(999) } else { len.max(1) };
    let gutter_width = match app.gutter {
        Gutter::Numbers => digits(numbered) + 1,
        Gutter::Hidden => 0,
    };
    ViewerGeometry {
        inner,
        gutter_width,
        text_width: inner.width.saturating_sub(gutter_width).max(1),
        is_live,
        raw,
    }
}

impl App {
    /// Gets the state ready for drawing a frame of `area` (see the module doc).
    pub fn prepare_frame(&mut self, area: Rect) {
        self.size = area;
        if too_small(area) {
            return;
        }
        self.sync_stream();
        pane::diagram::refresh(self);
        let diff = self.popup.take_if(|p| matches!(p, Popup::Diff(_)));
        if let Some(Popup::Diff(mut diff)) = diff {
            diff.prepare(area, &self.view());
            self.popup = Some(Popup::Diff(diff));
        }
        self.refresh_problems();
        if self.screen == Screen::Summary {
            return;
        }
        let r = regions(area, self);
        self.areas.tabs = pane::tabs::rects(r.tabs, self);
        self.areas.review = inner(r.review);
        pane::review::settle(self, self.areas.review);
        self.settle_viewer(r.viewer);
    }

    /// Keeps the cursor (and, when following a stream, the tail) on screen,
    /// highlights what is visible and notes which line each viewer row shows.
    fn settle_viewer(&mut self, viewer: Rect) {
        let g = viewer_geometry(self, viewer);
        self.areas.viewer = g.inner;
        if g.inner.height == 0 || g.inner.width < 4 {
            return;
        }
        let height = g.inner.height as usize;
        let tab = self.tab;
        let wrap = self.wrap;
        let soft = wrap == Wrap::Soft;
        // Tables are laid out for the columns the text gets (unbounded with wrap off).
        self.current_doc_mut().set_width(if soft {
            g.text_width as usize
        } else {
            usize::MAX
        });
        // Where the view starts, from the rows each line takes as drawn (a line not
        // rendered yet counts its source's rows). Worked out again once the lines in
        // view are rendered, if any were new, so that a table row taller or a line
        // shorter than its source still ends at the bottom.
        let rendered = self.current_doc().highlighted();
        let (mut top, mut last_top) = self.view_top(&g, height);
        if self.highlight_view(top + height) == Progress::Done
            && self.current_doc().highlighted() != rendered
        {
            (top, last_top) = self.view_top(&g, height);
            self.highlight_view(top + height);
        }
        self.views[tab.index()].top = top;
        self.areas.viewer_last_top = last_top;

        // The document line on each row, counted as the viewer draws them.
        let mut row_lines = std::mem::take(&mut self.areas.viewer_lines);
        row_lines.clear();
        let doc = self.current_doc();
        let len = doc.len();
        let mut index = top;
        while row_lines.len() < height && index < len {
            let Some(line) = doc.line_ref(index) else {
                break;
            };
            let rows = line.row_count(g.text_width, soft);
            for _ in 0..rows.min(height - row_lines.len()) {
                row_lines.push(index);
            }
            index += 1;
        }
        self.areas.viewer_lines = row_lines;
    }

    /// Highlights (renders) the current document up to line `end` within this
    /// frame's budget; asks for another frame when it ran out.
    fn highlight_view(&mut self, end: usize) -> Progress {
        let budget = std::time::Instant::now() + HIGHLIGHT_BUDGET;
        let progress = self.current_doc_mut().highlight_until(end, Some(budget));
        if progress == Progress::Waiting {
            self.redraw_soon = true;
        }
        progress
    }

    /// The first line the viewer draws (the stream's end or the cursor kept in view)
    /// and the first line of the view that ends with the document's last line.
    fn view_top(&self, g: &ViewerGeometry, height: usize) -> (usize, usize) {
        let tab = self.tab;
        let view = self.views[tab.index()];
        let soft = self.wrap == Wrap::Soft;
        let doc = self.current_doc();
        let len = doc.len();
        let rows_of = |i: usize| {
            doc.line_ref(i)
                .map_or(1, |l| l.row_count(g.text_width, soft))
        };
        // The first line to draw so that line `last` (and `extra` rows after it) ends
        // exactly at the bottom.
        let top_ending_at = |last: usize, extra: usize| {
            let mut used = extra;
            let mut first = last + 1;
            while first > 0 {
                let r = rows_of(first - 1);
                if used + r > height {
                    break;
                }
                used += r;
                first -= 1;
            }
            first.min(last)
        };
        let has_tail = g.is_live && !doc.tail().is_empty();
        let mut top = view.top.min(len.saturating_sub(1));
        if g.is_live && view.follow == Follow::Stream && !self.follows_edit(tab) {
            let tail_rows = if has_tail {
                wrap::rows(doc.tail(), g.text_width.saturating_sub(1))
            } else {
                0
            };
            top = if len == 0 {
                0
            } else {
                top_ending_at(len - 1, tail_rows)
            };
        } else if view.cursor < top {
            top = view.cursor;
        } else if len > 0 {
            top = top.max(top_ending_at(view.cursor.min(len - 1), 0));
        }
        let last_top = if len == 0 {
            0
        } else {
            top_ending_at(len - 1, 0)
        };
        (top, last_top)
    }
}

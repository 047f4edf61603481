//! The Class diagram tab drawn: boxes and arrows in place of the Mermaid text,
//! scrolled both ways. `v` switches to the source, which the viewer shows (with the
//! D001 fault marked when the diagram does not parse) and back. The drawing is read
//! again in `prepare_frame`, and only when the text changed.

use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;

use crate::design::Section;
use crate::design::diagram::Refusal;
use crate::tui::app::{App, Focus};
use crate::tui::diagram::{DiagramMode, Drawing, Fault, Refreshed, Scroll};
use crate::tui::keymap::{Binding, Chord, Group, Handled, Motion, command};
use crate::tui::tab::Tab;
use crate::tui::widgets::panel;

/// Columns one ←/→ moves the drawing.
const SIDE_STEP: usize = 4;

/// The Class diagram tab shows the design's diagram (not the raw answer of a reply
/// without section markers).
pub fn on_diagram_tab(app: &App) -> bool {
    app.tab == Tab::Artifact(Section::ClassDiagram) && (app.old_cycle.is_some() || !app.raw.shown())
}

/// What the tab shows of `d`: the source when the layout was refused; else the
/// reader's choice; else, while the architect writes
/// the diagram (or a new cycle streams and the tab still shows the last one under its
/// banner), its source; else the drawing of a diagram that parses and the source of
/// one that does not.
fn shown(app: &App, d: &Drawing) -> DiagramMode {
    let writing = app.old_cycle.is_none()
        && (app.streaming_section() == Some(Section::ClassDiagram)
            || app.backdrop_of(Section::ClassDiagram).is_some());
    if d.refused.is_some() {
        return DiagramMode::Source;
    }
    match app.diagram.chosen() {
        Some(mode) => mode,
        None if writing => DiagramMode::Source,
        None => app.diagram.mode(d),
    }
}

/// The tab shows the drawing rather than the source.
pub fn drawing_shown(app: &App) -> bool {
    on_diagram_tab(app)
        && app
            .diagram
            .drawing()
            .is_some_and(|d| shown(app, &d) == DiagramMode::Drawing)
}

/// The fault of the class diagram whose source the viewer shows, if it has one.
pub fn source_fault(app: &App) -> Option<Fault> {
    if !on_diagram_tab(app) {
        return None;
    }
    let d = app.diagram.drawing()?;
    if shown(app, &d) != DiagramMode::Source {
        return None;
    }
    d.fault.clone()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    Toggle,
    Move(Motion),
    Left,
    Right,
}

pub const BINDINGS: &[Binding<Command, App>] = &[
    Binding::new(
        "v",
        "class diagram: the drawing / its Mermaid source",
        Group::Reading,
        &[(Chord::ch('v'), Command::Toggle)],
    )
    .hint("v", "drawing/source", 5)
    .when(on_diagram_tab),
    Binding::new(
        "↑↓←→ PgUp PgDn",
        "scroll the class diagram drawing (j k, Space, g G, Home End too)",
        Group::Reading,
        &[
            (Chord::plain(KeyCode::Up), Command::Move(Motion::Up)),
            (Chord::plain(KeyCode::Down), Command::Move(Motion::Down)),
            (Chord::plain(KeyCode::Left), Command::Left),
            (Chord::plain(KeyCode::Right), Command::Right),
            (Chord::ch('j'), Command::Move(Motion::Down)),
            (Chord::ch('k'), Command::Move(Motion::Up)),
            (
                Chord::plain(KeyCode::PageDown),
                Command::Move(Motion::PageDown),
            ),
            (Chord::plain(KeyCode::PageUp), Command::Move(Motion::PageUp)),
            (Chord::ch(' '), Command::Move(Motion::PageDown)),
            (Chord::ch('g'), Command::Move(Motion::Top)),
            (Chord::ch('G'), Command::Move(Motion::Bottom)),
            (Chord::plain(KeyCode::Home), Command::Move(Motion::Top)),
            (Chord::plain(KeyCode::End), Command::Move(Motion::Bottom)),
        ],
    )
    .when(drawing_shown),
];

/// Lays the shown diagram out again if its text changed (on its own thread: until
/// the drawing arrives the frames keep coming, and the tab shows the source), and
/// says why when the layout was refused.
pub fn refresh(app: &mut App) {
    if !on_diagram_tab(app) {
        return;
    }
    let mut pane = std::mem::take(&mut app.diagram);
    let refreshed = pane.refresh(app.current_doc().lines());
    app.diagram = pane;
    match refreshed {
        Refreshed::Pending => app.redraw_soon = true,
        Refreshed::Arrived(Some(why)) => app.warn(refused_notice(&why)),
        Refreshed::Arrived(None) | Refreshed::Current => {}
    }
}

fn refused_notice(why: &Refusal) -> String {
    format!("class diagram not drawn, shown as source: {why}")
}

/// Why the class diagram whose source the viewer shows was not drawn, if it was
/// refused (for the viewer's title).
pub fn source_refusal(app: &App) -> Option<Refusal> {
    if !on_diagram_tab(app) {
        return None;
    }
    app.diagram.drawing()?.refused.clone()
}

/// The window the drawing gets, from the last frame's viewer area.
fn window(app: &App, d: &Drawing) -> (usize, usize) {
    let v = app.areas.viewer;
    let rows = usize::from(v.height).saturating_sub(usize::from(d.fault.is_some()));
    (usize::from(v.width).max(1), rows.max(1))
}

pub fn on_key(app: &mut App, key: KeyEvent) -> Handled {
    if !on_diagram_tab(app) || app.focus != Focus::Viewer {
        return Handled::Ignored;
    }
    let Some(command) = command(BINDINGS, &key) else {
        return Handled::Ignored;
    };
    refresh(app);
    let Some(d) = app.diagram.drawing() else {
        if command != Command::Toggle {
            return Handled::Ignored;
        }
        // The layout runs on its own thread: say so rather than ignore the key.
        let why = if app.diagram.is_pending() {
            "v: the class diagram is still being laid out; its source is shown meanwhile"
        } else {
            "v: there is no class diagram to draw yet"
        };
        app.say(why.into());
        return Handled::Consumed;
    };
    let mode = shown(app, &d);
    if command == Command::Toggle {
        match &d.refused {
            Some(why) => app.warn(refused_notice(why)),
            None => app.diagram.choose(match mode {
                DiagramMode::Drawing => DiagramMode::Source,
                DiagramMode::Source => DiagramMode::Drawing,
            }),
        }
        return Handled::Consumed;
    }
    if mode != DiagramMode::Drawing {
        return Handled::Ignored;
    }
    let view = window(app, &d);
    let page = view.1.saturating_sub(2).max(1);
    let step = match command {
        Command::Move(Motion::Up) => Scroll::Up(1),
        Command::Move(Motion::Down) => Scroll::Down(1),
        Command::Left => Scroll::Left(SIDE_STEP),
        Command::Right => Scroll::Right(SIDE_STEP),
        Command::Move(Motion::PageDown) => Scroll::Down(page),
        Command::Move(Motion::PageUp) => Scroll::Up(page),
        Command::Move(Motion::Top) => Scroll::Home,
        Command::Move(Motion::Bottom) => Scroll::End,
        Command::Toggle => return Handled::Consumed,
    };
    app.diagram.scroll(&d, view, step);
    Handled::Consumed
}

/// Scrolls the drawing by `rows` (the mouse wheel); false when the tab shows no
/// drawing.
pub fn wheel(app: &mut App, rows: isize) -> bool {
    if !drawing_shown(app) {
        return false;
    }
    let Some(d) = app.diagram.drawing() else {
        return false;
    };
    let view = window(app, &d);
    let step = if rows < 0 {
        Scroll::Up(rows.unsigned_abs())
    } else {
        Scroll::Down(rows.unsigned_abs())
    };
    app.diagram.scroll(&d, view, step);
    true
}

/// Draws the tab as a drawing, in the viewer's place.
pub fn draw(frame: &mut Frame, area: Rect, app: &App) {
    let p = app.theme.palette;
    let Some(d) = app.diagram.drawing() else {
        return;
    };
    let focused = app.focus == Focus::Viewer;
    let title = match &app.old_cycle {
        Some(old) => format!(
            " Class diagram — {} (read-only, Esc returns) · drawn, v: source ",
            old.summary
        ),
        None => " Class diagram · drawn, v: source ".to_string(),
    };
    let (x, y) = app.diagram.origin;
    let position = format!(
        " {} classes · {}x{} · col {} row {} ",
        d.layout.boxes.len(),
        d.layout.width,
        d.layout.height,
        x + 1,
        y + 1
    );
    let block = panel(
        title,
        if focused { p.accent } else { p.border },
        Style::default().fg(p.title).add_modifier(Modifier::BOLD),
    )
    .title_bottom(Line::styled(position, Style::default().fg(p.muted)).right_aligned());
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if d.layout.boxes.is_empty() {
        frame.render_widget(
            Line::styled(
                "no classes to draw yet",
                Style::default().fg(p.muted).add_modifier(Modifier::ITALIC),
            ),
            inner,
        );
        return;
    }
    app.diagram.render(&d, inner, frame.buffer_mut(), &p);
}

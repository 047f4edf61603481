//! The summary screen after the design is finalized: where the packet is and what
//! to do next. Enter goes back to the artifacts.

use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap as TextWrap};

use crate::tui::ctx::{Ctx, Do, View};
use crate::tui::keymap::{Binding, Chord, Group, HELP_KEY, Handled, QUIT_KEY, command, help, quit};
use crate::tui::widgets::{panel, section_title};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    Back,
    Help,
    Quit,
}

pub const BINDINGS: &[Binding<Command>] = &[
    Binding::new(
        "Enter / Esc",
        "(summary) back to the artifacts",
        Group::Finishing,
        &[
            (Chord::plain(KeyCode::Enter), Command::Back),
            (Chord::plain(KeyCode::Esc), Command::Back),
        ],
    )
    .hint("Enter", "workbench", 0),
    help(&[(HELP_KEY, Command::Help)]),
    quit(&[(QUIT_KEY, Command::Quit)]),
];

pub fn on_key(cx: &mut Ctx, key: KeyEvent) -> Handled {
    match command(BINDINGS, &key) {
        // The design is final: nothing is unsent and no call runs, so q quits at once.
        Some(Command::Quit) => cx.ask(Do::QuitNow),
        Some(Command::Back) => cx.ask(Do::BackToWorkbench),
        Some(Command::Help) => cx.ask(Do::OpenHelp),
        None => return Handled::Ignored,
    }
    Handled::Consumed
}

pub fn draw(frame: &mut Frame, area: Rect, view: &View) {
    let p = view.theme.palette;
    let block = panel(
        " Design finalized ",
        p.accent,
        Style::default().fg(p.title).add_modifier(Modifier::BOLD),
    );
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let label = Style::default().fg(p.muted);
    let mut lines = vec![
        Line::raw(""),
        Line::from(vec![
            Span::styled("  project   ", label),
            Span::raw(view.info.project_dir.display().to_string()),
        ]),
        Line::from(vec![
            Span::styled("  thread    ", label),
            Span::raw(view.info.thread_id.clone()),
        ]),
        Line::from(vec![
            Span::styled("  cycles    ", label),
            Span::raw(view.model.cycle().to_string()),
        ]),
    ];
    if let Some(commit) = view.model.last_commit() {
        lines.push(Line::from(vec![
            Span::styled("  commit    ", label),
            Span::raw(commit.to_string()),
        ]));
    }
    if let Some(outcome) = view.model.outcome() {
        lines.push(Line::from(vec![
            Span::styled("  packet    ", label),
            Span::styled(
                outcome.packet_path.display().to_string(),
                Style::default().fg(p.added).add_modifier(Modifier::BOLD),
            ),
        ]));
        lines.push(Line::from(vec![
            Span::styled("  subject   ", label),
            Span::raw(format!("{} → U:Cd", outcome.subject)),
        ]));
    }
    if let Some(saved) = view.model.cost().summary() {
        lines.push(Line::from(vec![
            Span::styled("  saved     ", label),
            Span::raw(saved),
        ]));
    }
    let open = view.open_items();
    if !open.is_empty() {
        lines.push(Line::from(vec![
            Span::styled("  open      ", label),
            Span::styled(open.summary(), Style::default().fg(p.warning)),
        ]));
    }
    if let Some(warning) = view.model.warning() {
        lines.push(Line::raw(""));
        lines.push(Line::styled(
            format!("  ⚠ {warning}"),
            Style::default().fg(p.warning).add_modifier(Modifier::BOLD),
        ));
    }
    lines.push(Line::raw(""));
    lines.push(section_title(&p, "  What next"));
    lines.push(Line::raw(
        "  • The design is in design/ and committed; the packet above carries all five",
    ));
    lines.push(Line::raw(
        "    artifacts to the code director (U:Cd). Hand it on, e.g.:",
    ));
    if let Some(outcome) = view.model.outcome() {
        lines.push(Line::styled(
            format!("      cat {}", outcome.packet_path.display()),
            Style::default().fg(p.accent),
        ));
    }
    lines.push(Line::raw(format!(
        "  • Read the design again later: volk open {}",
        view.info.project_dir.display()
    )));
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        "  Enter: back to the artifacts · q: quit",
        Style::default().fg(p.accent),
    ));
    frame.render_widget(Paragraph::new(lines).wrap(TextWrap { trim: false }), inner);
}

//! The composer: writes a question, an answer, a follow-up or a steer. What it holds
//! is written through to the draft on every keystroke, so nothing typed is lost.

use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{Clear, Paragraph, Wrap as TextWrap};
use ratatui_textarea::{TextArea, WrapMode};

use crate::brief::Anchor;
use crate::tui::keymap::{Binding, Chord, Group, Handled, Listed, command, listed};
use crate::tui::popup::Window;
use crate::tui::ctx::{Ctx, Do, View};
use crate::tui::theme::Palette;
use crate::tui::widgets::{centered, popup_block};

/// What the composer is writing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ComposerTarget {
    NewQuestion {
        anchor: Option<Anchor>,
    },
    EditQuestion(usize),
    Answer {
        question: String,
    },
    Steer,
    /// A follow-up question that reopens the thread with this id.
    FollowUp(String),
}

pub struct Composer {
    pub target: ComposerTarget,
    pub editor: Box<TextArea<'static>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    Save,
    NewLine,
    Clear,
    Close,
    Send,
    Edit,
}

pub const BINDINGS: &[Binding<Command>] = &[
    Binding::new(
        "Enter",
        "(composer) save; Esc closes, text kept",
        Group::Popups,
        &[(Chord::plain(KeyCode::Enter), Command::Save)],
    )
    .hint("Enter", "save", 1),
    Binding::new(
        "Ctrl-J",
        "(composer) new line (Shift-Enter and Alt-Enter too)",
        Group::Popups,
        &[(Chord::ctrl('j'), Command::NewLine)],
    )
    .hint("Ctrl-J", "newline", 2),
    Binding::new(
        "Ctrl-L",
        "(composer) clear (Ctrl-Y brings the text back)",
        Group::Popups,
        &[(Chord::ctrl('l'), Command::Clear)],
    )
    .hint("Ctrl-L", "clear", 3),
    Binding::new(
        "Esc",
        "(composer) close, the text kept",
        Group::Popups,
        &[(Chord::plain(KeyCode::Esc), Command::Close)],
    )
    .hint("Esc", "keep", 4),
    Binding::new(
        "Ctrl-S",
        "(composer) save and send the questions",
        Group::Popups,
        &[(Chord::ctrl('s'), Command::Send)],
    ),
    Binding::new(
        "other keys",
        "(composer) edit the text",
        Group::Popups,
        &[(Chord::AnyKey, Command::Edit)],
    ),
];

impl Composer {
    /// A composer for `target` holding `initial`, the cursor at its end.
    pub fn new(target: ComposerTarget, initial: &str, p: &Palette) -> Composer {
        let mut editor = TextArea::new(initial.split('\n').map(str::to_string).collect());
        editor.set_wrap_mode(WrapMode::Word);
        editor.move_cursor(ratatui_textarea::CursorMove::Bottom);
        editor.move_cursor(ratatui_textarea::CursorMove::End);
        editor.set_style(Style::default().fg(p.foreground).bg(p.background));
        editor.set_cursor_line_style(Style::default());
        Composer {
            target,
            editor: Box::new(editor),
        }
    }

    fn text(&self) -> String {
        self.editor.lines().join("\n")
    }

    /// Writes what the composer holds through to the draft.
    fn changed(&self, cx: &mut Ctx) {
        cx.ask(Do::Compose(self.target.clone(), self.text()));
    }

    /// Pasted text goes in as typed (terminals send a pasted line break as CR).
    pub fn paste(&mut self, text: &str, cx: &mut Ctx) {
        self.editor
            .insert_str(text.replace("\r\n", "\n").replace('\r', "\n"));
        self.changed(cx);
    }
}

impl Window for Composer {
    fn tables() -> Vec<Vec<&'static dyn Listed>> {
        vec![listed(BINDINGS)]
    }

    fn on_key(&mut self, key: KeyEvent, cx: &mut Ctx) -> Handled {
        let shift = key.modifiers.contains(KeyModifiers::SHIFT);
        match command(BINDINGS, &key).unwrap_or(Command::Edit) {
            // Closing keeps the words: a new question stays in the composer draft,
            // edits and answers were saved as they were typed.
            Command::Close => return Handled::Close,
            Command::Save if !shift => {
                cx.ask(Do::Submit(self.target.clone(), self.text()));
                return Handled::Close;
            }
            Command::Send => {
                cx.ask(Do::Submit(self.target.clone(), self.text()));
                cx.ask(Do::SendQuestions);
                return Handled::Close;
            }
            Command::NewLine => self.editor.insert_newline(),
            Command::Clear => {
                // Clears the composer; the text goes to the yank buffer (Ctrl-Y).
                self.editor.select_all();
                self.editor.cut();
                cx.say("composer cleared · Ctrl-Y brings it back".into());
            }
            // Shift-Enter and Alt-Enter: a new line.
            Command::Save | Command::Edit if key.code == KeyCode::Enter => {
                self.editor.insert_newline()
            }
            Command::Save | Command::Edit => {
                self.editor.input(key);
            }
        }
        self.changed(cx);
        Handled::Consumed
    }

    fn draw(&self, frame: &mut Frame, area: Rect, view: &View) {
        let p = view.theme.palette;
        let (title, context) = match &self.target {
            ComposerTarget::NewQuestion { anchor: Some(a) } => (
                " Question about this line ".to_string(),
                Some(format!(
                    "{} line {}: {}",
                    a.section.title(),
                    a.line,
                    a.quote.trim()
                )),
            ),
            ComposerTarget::NewQuestion { anchor: None } => (" New question ".to_string(), None),
            ComposerTarget::EditQuestion(i) => (format!(" Edit question {} ", *i + 1), None),
            ComposerTarget::Answer { question } => {
                (" Your answer ".to_string(), Some(question.clone()))
            }
            ComposerTarget::Steer => (" Steer the next plan attempt ".to_string(), None),
            ComposerTarget::FollowUp(id) => (
                format!(" Follow-up to {id} "),
                Some(format!("reopens {id} as a new thread linked to it")),
            ),
        };
        let height = 10u16 + u16::from(context.is_some()) * 2;
        let rect = centered(area, area.width.saturating_sub(8).min(100), height);
        frame.render_widget(Clear, rect);
        let enter = match self.target {
            ComposerTarget::NewQuestion { .. } | ComposerTarget::EditQuestion(_) => {
                " Enter save · Ctrl-S send all ·"
            }
            ComposerTarget::Answer { .. } => " Enter save answer ·",
            ComposerTarget::FollowUp(_) => " Enter save follow-up ·",
            ComposerTarget::Steer => " Enter send ·",
        };
        let block = popup_block(&p, title, p.accent).title_bottom(Line::styled(
            format!("{enter} Ctrl-J newline · Ctrl-L clear · Esc keeps "),
            Style::default().fg(p.muted),
        ));
        let inner = block.inner(rect);
        frame.render_widget(block, rect);
        let mut editor_area = inner;
        if let Some(context) = context {
            let [ctx, rest] =
                Layout::vertical([Constraint::Length(2), Constraint::Min(1)]).areas(inner);
            frame.render_widget(
                Paragraph::new(Line::styled(
                    context,
                    Style::default().fg(p.muted).add_modifier(Modifier::ITALIC),
                ))
                .wrap(TextWrap { trim: true }),
                ctx,
            );
            editor_area = rest;
        }
        frame.render_widget(&*self.editor, editor_area);
    }
}

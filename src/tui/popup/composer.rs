//! The composer: writes a question, an answer, a follow-up or a steer. What it holds
//! is written through to the draft on every keystroke, so nothing typed is lost.

use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{Clear, Paragraph, Wrap as TextWrap};
use ratatui_textarea::{TextArea, WrapMode};

use crate::brief::Question;
use crate::tui::app::{App, ComposerTarget, Verdict};
use crate::tui::event::Action;
use crate::tui::popup::Window;
use crate::tui::keymap::{Binding, Chord, Group, Handled, command, Listed, listed};
use crate::tui::popup::Popup;
use crate::tui::widgets::{centered, popup_block};

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
    /// Pasted text goes in as typed (terminals send a pasted line break as CR).
    pub fn paste(&mut self, text: &str, app: &mut App) {
        self.editor
            .insert_str(text.replace("\r\n", "\n").replace('\r', "\n"));
        app.composer_changed(&self.target, &self.editor);
    }
}

impl Window for Composer {
    fn tables() -> Vec<Vec<&'static dyn Listed>> {
        vec![listed(BINDINGS)]
    }

    fn on_key(&mut self, key: KeyEvent, app: &mut App) -> Handled {
        let shift = key.modifiers.contains(KeyModifiers::SHIFT);
        let text = || self.editor.lines().join("\n");
        match command(BINDINGS, &key).unwrap_or(Command::Edit) {
            // Closing keeps the words: a new question stays in the composer draft,
            // edits and answers were saved as they were typed.
            Command::Close => return Handled::Close,
            Command::Save if !shift => {
                app.submit_composer(self.target.clone(), text());
                return Handled::Close;
            }
            Command::Send => {
                app.submit_composer(self.target.clone(), text());
                app.send_questions();
                return Handled::Close;
            }
            Command::NewLine => self.editor.insert_newline(),
            Command::Clear => {
                // Clears the composer; the text goes to the yank buffer (Ctrl-Y).
                self.editor.select_all();
                self.editor.cut();
                app.say("composer cleared · Ctrl-Y brings it back".into());
            }
            // Shift-Enter and Alt-Enter: a new line.
            Command::Save | Command::Edit if key.code == KeyCode::Enter => {
                self.editor.insert_newline()
            }
            Command::Save | Command::Edit => {
                self.editor.input(key);
            }
        }
        app.composer_changed(&self.target, &self.editor);
        Handled::Consumed
    }

    fn draw(&self, frame: &mut Frame, area: Rect, app: &App) {
        let p = app.theme.palette;
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

impl App {
    /// Writes what the composer holds through to the draft, on every keystroke.
    fn composer_changed(&mut self, target: &ComposerTarget, editor: &TextArea<'static>) {
        let text = editor.lines().join("\n");
        match target {
            ComposerTarget::NewQuestion { .. } => self.draft.composer = text,
            ComposerTarget::EditQuestion(i) => {
                if let Some(q) = self.draft.questions.get_mut(*i) {
                    q.text = text;
                }
            }
            ComposerTarget::Answer { question } => self.draft.set_answer(question, text),
            ComposerTarget::Steer | ComposerTarget::FollowUp(_) => return,
        }
        self.draft_changed = true;
    }

    fn submit_composer(&mut self, target: ComposerTarget, text: String) {
        let text = text.trim().to_string();
        match target {
            ComposerTarget::NewQuestion { anchor } => {
                if !text.is_empty() {
                    self.draft.questions.push(Question {
                        text,
                        anchor,
                        ..Question::default()
                    });
                }
                self.draft.composer.clear();
            }
            ComposerTarget::EditQuestion(i) => {
                if text.is_empty() && i < self.draft.questions.len() {
                    self.draft.questions.remove(i);
                } else if let Some(q) = self.draft.questions.get_mut(i) {
                    q.text = text;
                }
            }
            ComposerTarget::Answer { question } => self.draft.set_answer(&question, text),
            ComposerTarget::Steer => {
                if !text.is_empty() {
                    self.act(Action::SteerPlan(text));
                    self.verdict = Verdict::Sent;
                }
            }
            ComposerTarget::FollowUp(id) => {
                if !text.is_empty() {
                    self.draft.questions.push(Question {
                        follows: Some(id),
                        ..Question::new(text)
                    });
                }
            }
        }
        self.draft_changed = true;
        self.popup = None;
    }

    pub(crate) fn open_composer(&mut self, target: ComposerTarget) {
        if self.refuse_read_only("write") {
            return;
        }
        let initial = match &target {
            ComposerTarget::NewQuestion { .. } => self.draft.composer.clone(),
            ComposerTarget::EditQuestion(i) => self
                .draft
                .questions
                .get(*i)
                .map(|q| q.text.clone())
                .unwrap_or_default(),
            ComposerTarget::Answer { question } => self
                .draft
                .answer_for(question)
                .unwrap_or_default()
                .to_string(),
            ComposerTarget::Steer | ComposerTarget::FollowUp(_) => String::new(),
        };
        let mut editor = TextArea::new(initial.split('\n').map(str::to_string).collect());
        editor.set_wrap_mode(WrapMode::Word);
        editor.move_cursor(ratatui_textarea::CursorMove::Bottom);
        editor.move_cursor(ratatui_textarea::CursorMove::End);
        let p = self.theme.palette;
        editor.set_style(Style::default().fg(p.foreground).bg(p.background));
        editor.set_cursor_line_style(Style::default());
        self.popup = Some(Popup::Composer(Composer {
            target,
            editor: Box::new(editor),
        }));
    }
}

//! A reasoner failure: the message, and `r` when the failure can be retried.

use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Line;
use ratatui::widgets::{Clear, Paragraph, Wrap as TextWrap};

use crate::tui::event::{Action, Phase};
use crate::tui::keymap::{Binding, Chord, Group, Handled, Listed, command, listed};
use crate::tui::model::{Model, SessionInfo};
use crate::tui::popup::Window;
use crate::tui::ctx::{Ctx, Do, View};
use crate::tui::widgets::{centered, popup_block};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub message: String,
    /// The core would retry (it said so); a retry the provider will refuse the same
    /// way is still not offered (see [`Failure::fix`]).
    pub retryable: bool,
    /// What to do instead of `r` when a retry cannot help (a refused key, a model
    /// the provider does not know, no key, no quota).
    pub fix: Option<String>,
    /// What `r` does, in words that follow `r `: `sends the block repair again`.
    pub call: String,
}

impl Failure {
    /// The failure `message` of the last call (`call` says which).
    pub fn new(message: String, retryable: bool, info: &SessionInfo, model: &Model) -> Failure {
        let fix = fix_for(&message, info);
        let (message, call) = match named_retry(&message) {
            Some((message, call)) => (message, call),
            None => (message, format!("sends {} again", retried_call(model))),
        };
        Failure {
            call,
            retryable: retryable && fix.is_none(),
            fix,
            message,
        }
    }
}

/// The retry as the core named it at the end of its message, and the message
/// without it (said once, on the popup's own line): `…; r sends the block repair
/// again`, or, for a first design without markers, `…; a retry asks the model only
/// to put it under the markers`. The core knows which call a retry sends (a repair
/// pass, a reformat); the workbench only knows the last call's purpose, which names
/// every repair "the update".
fn named_retry(message: &str) -> Option<(String, String)> {
    for (marker, keep) in [("; r sends ", "sends "), ("; a retry ", "")] {
        if let Some(at) = message.rfind(marker) {
            let what = message[at + marker.len()..].trim_end_matches('.');
            return Some((message[..at].to_string(), format!("{keep}{what}")));
        }
    }
    None
}

/// The way out of a failure that a retry would only repeat.
fn fix_for(message: &str, info: &SessionInfo) -> Option<String> {
    // The header's words: `openai/gpt-4.1` (provider, then model).
    let (provider, model) = info
        .reasoner
        .split_once('/')
        .unwrap_or((info.reasoner.as_str(), info.model.as_str()));
    let model = if info.model.is_empty() {
        model
    } else {
        info.model.as_str()
    };
    let variable = crate::reasoner::select::PRESETS
        .iter()
        .find(|p| p.name == provider)
        .map_or("the provider's API key variable", |p| p.key_variable);
    let reopen = format!("volk open {}", info.project_dir.display());
    let lower = message.to_ascii_lowercase();
    if lower.starts_with("no api key") {
        return Some(format!("set {variable}, then {reopen}"));
    }
    if lower.contains("http 401") || lower.contains("http 403") {
        return Some(format!(
            "the provider refused the key: set a valid {variable}, then {reopen}"
        ));
    }
    if lower.contains("http 404") && lower.contains("model") || lower.contains("model_not_found") {
        return Some(format!(
            "the provider has no model {model:?}: {reopen} --model NAME (one it lists)"
        ));
    }
    if lower.starts_with("out of quota") {
        return Some(format!(
            "the account is out of quota: add credit or raise the limit, then {reopen}"
        ));
    }
    None
}

/// What the core sends again on a retry: the call that failed, with the same
/// request (a repair pass stays a repair pass), or, when the call was the reflection
/// or the plan, that step.
fn retried_call(model: &Model) -> String {
    use crate::brief::Purpose;
    let cycle = model
        .phase()
        .resume()
        .map_or(model.cycle(), |r| match r {
            Phase::Designing { cycle } => *cycle,
            _ => model.cycle(),
        });
    match model.last_call() {
        Some(Purpose::Design) => format!("the same design request for cycle {cycle}"),
        Some(Purpose::Update) => format!("the same update request for cycle {cycle}"),
        Some(Purpose::Reflect) => "the reflection".to_string(),
        Some(Purpose::Plan) => "the execution plan request".to_string(),
        None => format!("the request for cycle {cycle}"),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    Retry,
    Close,
    Quit,
}

pub const BINDINGS: &[Binding<Command>] = &[
    Binding::new(
        "r",
        "(failure) send the failed request again, when a retry can help",
        Group::Popups,
        &[(Chord::ch('r'), Command::Retry)],
    )
    .hint("r", "retry", 1),
    Binding::new(
        "r",
        "(failure, no retry) says why a retry cannot help and what to do",
        Group::Popups,
        &[(Chord::ch('r'), Command::Retry)],
    ),
    Binding::new(
        "Esc / Enter",
        "(failure) close",
        Group::Popups,
        &[
            (Chord::plain(KeyCode::Esc), Command::Close),
            (Chord::plain(KeyCode::Enter), Command::Close),
        ],
    )
    .hint("Esc", "close", 2),
    Binding::new(
        "q",
        "(failure) quit (asks when sent questions wait for an answer)",
        Group::Popups,
        &[(Chord::ch('q'), Command::Quit)],
    ),
];

impl Window for Failure {
    fn tables() -> Vec<Vec<&'static dyn Listed>> {
        vec![listed(BINDINGS)]
    }

    /// One of the two `r`s acts: the retry when it can help, else the one saying
    /// why not.
    fn acts(&self, binding: &dyn Listed) -> bool {
        let idle = if self.retryable { 1 } else { 0 };
        !crate::tui::keymap::same(binding, &BINDINGS[idle])
    }

    fn on_key(&mut self, key: KeyEvent, cx: &mut Ctx) -> Handled {
        match command(BINDINGS, &key) {
            Some(Command::Retry) if self.retryable => {
                cx.ask(Do::Act(Action::Retry));
                cx.ask(Do::ClearNotices);
                cx.say(format!("r {}", self.call));
                Handled::Close
            }
            Some(Command::Retry) => {
                cx.ask(Do::Warn(match &self.fix {
                    Some(fix) => format!("r: a retry would fail the same way; {fix}"),
                    None => "r: this failure cannot be retried".to_string(),
                }));
                Handled::Consumed
            }
            Some(Command::Close) => Handled::Close,
            Some(Command::Quit) => {
                cx.ask(Do::RequestQuit);
                Handled::Close
            }
            None => Handled::Ignored,
        }
    }

    fn draw(&self, frame: &mut Frame, area: Rect, view: &View) {
        let p = view.theme.palette;
        let mut lines = vec![Line::raw(self.message.clone()), Line::raw("")];
        if let Some(fix) = &self.fix {
            lines.push(Line::styled(
                format!("To fix: {fix}."),
                Style::default().fg(p.warning),
            ));
            lines.push(Line::raw(""));
        } else if self.retryable {
            lines.push(Line::raw(format!("r {}.", self.call)));
            lines.push(Line::raw(""));
        }
        let keys = if self.retryable {
            "r: retry · Esc: close · q: quit"
        } else {
            "Esc: close · q: quit"
        };
        lines.push(Line::styled(keys, Style::default().fg(p.accent)));
        let rect = centered(area, 76, 12);
        frame.render_widget(Clear, rect);
        frame.render_widget(
            Paragraph::new(lines)
                .wrap(TextWrap { trim: true })
                .block(popup_block(&p, " The reasoner failed ".into(), p.error)),
            rect,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_retry_is_named_as_the_core_named_it() {
        assert_eq!(
            named_retry("HTTP 400: outage; r sends the block repair again"),
            Some((
                "HTTP 400: outage".to_string(),
                "sends the block repair again".to_string()
            ))
        );
        let unparsed = "the reasoner's answer (9 bytes) has none of the five section markers; it is saved in .volk/x.md; a retry asks the model only to put it under the markers";
        let (message, call) = named_retry(unparsed).unwrap();
        assert!(message.ends_with("saved in .volk/x.md"), "{message}");
        assert_eq!(call, "asks the model only to put it under the markers");
        assert_eq!(named_retry("HTTP 503: overloaded"), None);
    }
}

//! The plan tab (`7 Plan`): the reflection and the execution plan as one document in
//! the viewer, so they scroll, wrap and search like an artifact instead of being cut
//! to the review pane's width. The plan reads as an outline (every stage and where its
//! edges lead, `↺` for a loop back) and then as boxes; `p` shows the prompts in full.

use ratatui::crossterm::event::KeyEvent;

use crate::plan::{ExecutionPlan, KindRegistry, Prompts};
use crate::tui::app::{App, ReflectionView};
use crate::tui::keymap::{Binding, Chord, Group, Handled, command};
use crate::tui::tab::Tab;
use crate::volk::plan_step::PlanCheck;

/// Full prompts wrap at this many columns: the widest box then fits an 80-column
/// terminal's viewer.
const PROMPT_COLUMNS: usize = 56;

fn has_plan(app: &App) -> bool {
    app.model.plan().is_some_and(|p| p.source.is_some())
}

/// The plan tab's one command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TogglePrompts;

pub const BINDINGS: &[Binding<TogglePrompts, App>] = &[Binding::new(
    "p",
    "(plan tab) each stage's prompt in full / cut to a line",
    Group::Finishing,
    &[(Chord::ch('p'), TogglePrompts)],
)
.hint("p", "full prompts", 2)
.when(has_plan)];

pub fn on_key(app: &mut App, key: KeyEvent) -> Handled {
    match command(BINDINGS, &key) {
        Some(TogglePrompts) if has_plan(app) => {
            app.plan_prompts = match app.plan_prompts {
                Prompts::Cut => Prompts::Full(PROMPT_COLUMNS),
                Prompts::Full(_) => Prompts::Cut,
            };
            app.say(match app.plan_prompts {
                Prompts::Cut => "p: prompts cut to a line".into(),
                Prompts::Full(_) => "p: prompts in full".into(),
            });
            app.refresh_plan_tab();
        }
        _ => return Handled::Ignored,
    }
    Handled::Consumed
}

/// The plan in `check`, read again from its JSON (it is drawn even when rules fail).
fn read_plan(check: &PlanCheck) -> Option<ExecutionPlan> {
    let source = check.source.as_deref()?;
    crate::plan::compile(source, &KindRegistry::builtin(), &[]).plan
}

/// The tab's text: the plan first when there is one (it is what waits for a
/// decision), then the reflection it followed.
pub fn text(
    reflection: Option<&ReflectionView>,
    plan: Option<&PlanCheck>,
    prompts: Prompts,
) -> String {
    let mut out: Vec<String> = Vec::new();
    if let Some(check) = plan {
        let verdict = if check.ok {
            "compiles".to_string()
        } else {
            format!("does not compile ({} error(s))", check.error_count)
        };
        out.push(format!("EXECUTION PLAN · {verdict}"));
        out.push("y approve · s steer the next attempt · p prompts in full / cut".into());
        out.push(String::new());
        match read_plan(check) {
            Some(plan) => {
                out.push(format!("goal: {}", plan.goal));
                out.push(String::new());
                out.push(format!("Stages ({})", plan.stages.len()));
                out.extend(
                    crate::plan::outline(&plan)
                        .into_iter()
                        .map(|l| format!("  {l}")),
                );
                out.push(String::new());
                out.extend(crate::plan::boxes(&plan, prompts));
            }
            None => out.extend(
                check
                    .source
                    .iter()
                    .flat_map(|s| s.lines().map(String::from)),
            ),
        }
        if !check.diagnostics_human.is_empty() {
            out.push(String::new());
            out.extend(check.diagnostics_human.lines().map(String::from));
        }
        out.push(String::new());
    }
    if let Some(r) = reflection {
        out.push("REFLECTION BEFORE FINALIZING".into());
        out.push(String::new());
        out.extend(r.questions.iter().map(|q| format!("• {q}")));
        if !r.questions.is_empty() {
            out.push(String::new());
        }
        out.extend(r.answers.lines().map(String::from));
    }
    let mut text = out.join("\n");
    if !text.is_empty() {
        text.push('\n');
    }
    text
}

impl App {
    /// Rewrites the plan tab from the reflection and plan at hand.
    pub(crate) fn refresh_plan_tab(&mut self) {
        let text = text(
            self.model.reflection(),
            self.model.plan(),
            self.plan_prompts,
        );
        self.plan_doc.set_text(&text);
        let len = self.plan_doc.len();
        let view = &mut self.views[Tab::Plan.index()];
        view.cursor = view.cursor.min(len.saturating_sub(1));
        view.top = view.top.min(view.cursor);
    }
}

impl App {
    /// The cycle is under review again (READY withdrawn): the reflection and plan
    /// were for a design that is not final any more (the model dropped them), so the
    /// tab stops showing them.
    pub(crate) fn reopened(&mut self) {
        self.refresh_plan_tab();
        if self.tab == Tab::Plan {
            self.select_tab(Tab::default());
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::design::{Artifacts, Section};
    use crate::tui::app::SessionInfo;
    use crate::tui::event::{AppEvent, LoopEvent, Phase};
    use crate::tui::test_keys::ch;
    use crate::tui::theme::Theme;

    /// A compiled seven-stage plan whose review loops back to the first stage.
    pub(crate) fn seven_stages() -> PlanCheck {
        let json = include_str!("../../../tests/fixtures/workbench/seven_stage_plan.json");
        crate::volk::plan_step::check(&format!("```json\n{json}\n```"))
    }

    fn approving() -> App {
        let mut app = App::new(SessionInfo::default(), Theme::dark());
        app.on_app_event(AppEvent::Loop(LoopEvent::CycleReady {
            cycle: 1,
            artifacts: Artifacts {
                architecture: "Arch\n".into(),
                ..Artifacts::default()
            },
            changed: Section::ALL.to_vec(),
        }));
        app.on_app_event(AppEvent::Loop(LoopEvent::Reflection {
            questions: vec!["Which decision is the riskiest?".into()],
            answers: "SQLite as the only store.".into(),
        }));
        app.on_app_event(AppEvent::Loop(LoopEvent::Phase(
            Phase::AwaitingPlanApproval,
        )));
        app.on_app_event(AppEvent::Loop(LoopEvent::Plan(seven_stages())));
        app
    }

    #[test]
    fn the_plan_tab_holds_every_stage_the_loop_and_the_reflection() {
        let mut app = approving();
        assert_eq!(app.tab, Tab::Plan, "the plan arrives in view");
        let text = app.plan_doc.lines().join("\n");
        assert!(text.starts_with("EXECUTION PLAN · compiles"), "{text}");
        for id in ["implement_storage", "write_docs", "review_implementation"] {
            assert!(text.contains(id), "{id}: {text}");
        }
        assert!(text.contains("↺ 1 · implement_storage"), "{text}");
        assert!(text.contains("↺ back to 1 · implement_storage"), "{text}");
        assert!(text.contains("SQLite as the only store."), "{text}");
        assert!(text.contains('…'), "prompts are cut by default");
        app.on_key(ch('p'));
        let full = app.plan_doc.lines().join("\n");
        assert!(!full.contains('…'), "{full}");
        assert!(full.contains("including the empty database"), "{full}");
    }

    #[test]
    fn withdrawing_ready_empties_the_plan_tab_and_leaves_it() {
        let mut app = approving();
        app.on_app_event(AppEvent::Loop(LoopEvent::Phase(Phase::AwaitingReview {
            cycle: 1,
        })));
        assert!(app.plan_doc.is_empty());
        assert_eq!(app.tab, Tab::default());
    }
}

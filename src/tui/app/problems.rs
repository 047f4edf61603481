//! The workbench's side of the design compiler's findings: compiling what the tabs
//! show (at most once a frame) and showing a finding's line.

use std::time::Instant;

use crate::design::lint::{Code, lint};
use crate::design::{Artifacts, PerSection, Section};
use crate::tui::app::{App, Focus, Follow};
use crate::tui::problems::{LARGE, LooksUp, SPACING, looks_up};
use crate::tui::tab::Tab;

impl App {
    /// The five artifacts as the tabs show them: complete lines only (the streamed
    /// tail is not text yet), so finding lines are the viewer's line numbers.
    pub fn shown_artifacts(&self) -> Artifacts {
        let mut artifacts = Artifacts::default();
        for section in Section::ALL {
            artifacts.set(section, self.docs[section.index()].text());
        }
        artifacts
    }

    /// Compiles the design again when an artifact's lines changed since the last
    /// run. Called once per frame, so a fast stream costs at most one compile per
    /// frame; a design of more than [`LARGE`] lines is compiled again only after
    /// [`SPACING`] times the last compile's cost, and a frame is asked for then.
    pub fn refresh_problems(&mut self) {
        let (revisions, streaming) = self.problem_inputs();
        if self.problems.checked == Some((revisions, streaming)) {
            return;
        }
        if let Some((at, cost)) = self.problems.last
            && at.elapsed() < cost * SPACING
            && self.docs.iter().map(|d| d.len()).sum::<usize>() > LARGE
        {
            self.redraw_soon = true;
            return;
        }
        self.refresh_problems_now();
    }

    fn problem_inputs(&self) -> (PerSection<u64>, bool) {
        let revisions = PerSection::from_fn(|s| self.docs[s.index()].revision());
        (revisions, self.is_streaming())
    }

    /// Compiles the design on screen now, whatever changed (the benchmark measures
    /// this: the cost of a frame that compiles).
    pub fn refresh_problems_now(&mut self) {
        let started = Instant::now();
        let (revisions, streaming) = self.problem_inputs();
        self.problems.checked = Some((revisions, streaming));
        self.problems.runs += 1;
        self.compile_shown(streaming);
        self.problems.last = Some((started, started.elapsed()));
    }

    fn compile_shown(&mut self, streaming: bool) {
        if self.docs.iter().all(|d| d.is_empty()) {
            // Nothing written yet (or an answer without sections): nothing to check.
            self.problems.set(Vec::new());
            return;
        }
        let mut diagnostics = lint(&self.shown_artifacts()).diagnostics;
        if streaming {
            // A section the stream has not reached is not written yet, not empty; and
            // a finding that looks a name up in such a section (a cited id, a class,
            // a module's file) is not a finding yet.
            let growing = self.streaming_section();
            let written = |s: Section| !self.docs[s.index()].is_empty() && growing != Some(s);
            diagnostics.retain(|d| {
                if d.code == Code::EmptyArtifact {
                    return !self.docs[d.artifact.index()].is_empty();
                }
                match looks_up(d.code) {
                    LooksUp::Nothing => true,
                    LooksUp::Section(target) => written(target),
                    LooksUp::Others => Section::ALL
                        .iter()
                        .filter(|s| **s != d.artifact)
                        .all(|s| written(*s)),
                }
            });
        }
        self.problems.set(diagnostics);
    }

    /// Shows `line` (1-based) of `section` with the cursor on it, leaving an older
    /// cycle opened read-only: findings and traces are about the current design.
    pub(crate) fn jump_to(&mut self, section: Section, line: usize) {
        if self.old_cycle.take().is_some() {
            self.clamp_views();
        }
        self.pick_tab(Tab::Artifact(section));
        self.focus = Focus::Viewer;
        let len = self.docs[section.index()].len();
        let view = &mut self.views[section.index()];
        view.cursor = line.saturating_sub(1).min(len.saturating_sub(1));
        view.follow = Follow::Manual;
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::tui::app::SessionInfo;
    use crate::tui::event::{AppEvent, LoopEvent};
    use crate::tui::theme::Theme;

    fn app_with(artifacts: Artifacts) -> App {
        let mut app = App::new(SessionInfo::default(), Theme::dark());
        app.on_app_event(AppEvent::Loop(LoopEvent::CycleReady {
            cycle: 1,
            artifacts,
            changed: Section::ALL.to_vec(),
        }));
        app
    }

    #[test]
    fn errors_come_first_and_the_compiler_runs_only_on_new_text() {
        let mut app = app_with(Artifacts {
            architecture: "## Components\n\n- **Cli**: serves FR-09.\n".into(),
            requirements: "1. FR-01: Add tasks.\n".into(),
            ..Artifacts::default()
        });
        app.refresh_problems();
        let d = &app.problems.diagnostics;
        assert!(d[0].is_error(), "{d:?}");
        let first_warning = d.iter().position(|d| !d.is_error()).unwrap_or(d.len());
        assert!(d[first_warning..].iter().all(|d| !d.is_error()));
        assert!(d.iter().any(|d| d.code == Code::UnknownRequirement));
        let counts = app.problems.counts(Section::Architecture);
        assert!(counts.errors >= 1, "{counts:?}");
        let runs = app.problems.runs;
        app.refresh_problems();
        assert_eq!(app.problems.runs, runs, "same text, no second compile");
        // However slow the last compile, a small design is compiled at once.
        app.problems.last = Some((Instant::now(), Duration::from_secs(1)));
        app.on_app_event(AppEvent::Loop(LoopEvent::Artifact {
            section: Section::Requirements,
            read: Ok("1. FR-09: Add tasks.\n".into()),
        }));
        app.refresh_problems();
        assert_eq!(app.problems.runs, runs + 1);
    }

    #[test]
    fn a_large_design_is_compiled_less_often_and_asks_for_a_frame() {
        let mut app = app_with(Artifacts {
            requirements: "1. FR-01: Add tasks.\n".into(),
            architecture: "Plain line.\n".repeat(LARGE),
            ..Artifacts::default()
        });
        app.refresh_problems();
        let runs = app.problems.runs;
        // As if the last compile had just taken a second.
        app.problems.last = Some((Instant::now(), Duration::from_secs(1)));
        app.on_app_event(AppEvent::Loop(LoopEvent::Artifact {
            section: Section::Requirements,
            read: Ok("1. FR-02: Add tasks.\n".into()),
        }));
        app.redraw_soon = false;
        app.refresh_problems();
        assert_eq!(app.problems.runs, runs, "spaced out");
        assert!(app.redraw_soon, "a later frame compiles it");
        app.problems.last = Some((
            Instant::now() - Duration::from_secs(5),
            Duration::from_secs(1),
        ));
        app.refresh_problems();
        assert_eq!(app.problems.runs, runs + 1);
    }
}

//! The workbench's components in one place: which bindings exist (for the help
//! window, the hint bar and `docs/workbench.md`), which layers take a key now and in
//! what order (for dispatch and the hint bar). Adding a pane or popup means adding its module and a line or two here.

use ratatui::crossterm::event::{KeyEvent, KeyModifiers};

use crate::tui::app::{App, Focus, Screen};
use crate::tui::keymap::{Group, Handled, Hint, Listed, listed};
use crate::tui::pane::{diagram, finish, plan, review, summary, tabs, viewer, workbench};
use crate::tui::popup::Popup;

/// Every component's bindings, in help order.
pub fn all_bindings() -> Vec<&'static dyn Listed> {
    [
        listed(tabs::BINDINGS),
        listed(viewer::BINDINGS),
        listed(diagram::BINDINGS),
        listed(workbench::BINDINGS),
        listed(workbench::INTERRUPT),
        listed(review::BINDINGS),
        listed(finish::BINDINGS),
        listed(plan::BINDINGS),
        listed(summary::BINDINGS),
    ]
    .into_iter()
    .chain(Popup::all_bindings())
    .flatten()
    .collect()
}

/// One component that may take a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layer {
    /// Ctrl-C, before everything but the composer.
    Interrupt,
    /// The open popup: it takes every key.
    Popup,
    Summary,
    Finish,
    Tabs,
    /// The plan tab's keys, whatever pane has the focus.
    Plan,
    /// The keys that act from any focus.
    Workbench,
    /// The Class diagram tab's keys, before the viewer's.
    Diagram,
    Viewer,
    Review,
}

impl Layer {
    /// The layer's bindings in the state at hand (a popup's depend on which is open).
    pub fn bindings(self, app: &App) -> Vec<&'static dyn Listed> {
        match self {
            Layer::Interrupt => listed(workbench::INTERRUPT),
            Layer::Popup => app.popup.as_ref().map_or(Vec::new(), |p| p.bindings()),
            Layer::Summary => listed(summary::BINDINGS),
            Layer::Finish => listed(finish::BINDINGS),
            Layer::Tabs => listed(tabs::BINDINGS),
            Layer::Plan => listed(plan::BINDINGS),
            Layer::Workbench => listed(workbench::BINDINGS),
            Layer::Diagram => listed(diagram::BINDINGS),
            Layer::Viewer => listed(viewer::BINDINGS),
            Layer::Review => listed(review::BINDINGS),
        }
    }

    /// Whether `binding` of this layer acts now (the hint bar lists only those): an
    /// open popup judges its own keys by its state.
    pub fn acts(self, app: &App, binding: &dyn Listed) -> bool {
        match (self, &app.popup) {
            (Layer::Popup, Some(popup)) => popup.acts(binding) && binding.acts(app),
            // The finishing keys' conditions read what the core offers.
            (Layer::Finish, _) => binding.acts(&app.offers()),
            _ => binding.acts(app),
        }
    }

    /// Whether Ctrl keys reach this layer: the panes, tabs and finishing keys never
    /// see them.
    fn takes_ctrl(self) -> bool {
        matches!(
            self,
            Layer::Interrupt | Layer::Popup | Layer::Summary | Layer::Workbench
        )
    }

    pub fn handle(self, app: &mut App, key: KeyEvent) -> Handled {
        if key.modifiers.contains(KeyModifiers::CONTROL) && !self.takes_ctrl() {
            return Handled::Ignored;
        }
        match self {
            Layer::Interrupt => workbench::on_interrupt(app, key),
            Layer::Popup => app.on_popup_key(key),
            Layer::Summary => app.with_ctx(|cx| summary::on_key(cx, key)),
            Layer::Finish => app.with_ctx(|cx| finish::on_key(cx, key)),
            Layer::Tabs => tabs::on_key(app, key),
            Layer::Plan => plan::on_key(app, key),
            Layer::Workbench => workbench::on_key(app, key),
            Layer::Diagram => diagram::on_key(app, key),
            Layer::Viewer => viewer::on_key(app, key),
            Layer::Review => review::on_key(app, key),
        }
    }
}

/// The layers that get a key now, first first: an open popup takes every key; else
/// the summary screen; else the finishing keys, the tabs, the keys of any focus and
/// the focused pane.
pub fn active_layers(app: &App) -> Vec<Layer> {
    let mut layers = Vec::new();
    if !matches!(app.popup, Some(Popup::Composer(_))) {
        layers.push(Layer::Interrupt);
    }
    if app.popup.is_some() {
        layers.push(Layer::Popup);
        return layers;
    }
    if app.screen == Screen::Summary {
        layers.push(Layer::Summary);
        return layers;
    }
    layers.extend([Layer::Finish, Layer::Tabs]);
    if app.tab == crate::tui::tab::Tab::Plan {
        layers.push(Layer::Plan);
    }
    layers.push(Layer::Workbench);
    match app.focus {
        Focus::Viewer if diagram::on_diagram_tab(app) => {
            layers.extend([Layer::Diagram, Layer::Viewer]);
        }
        Focus::Viewer => layers.push(Layer::Viewer),
        Focus::Review => layers.push(Layer::Review),
    }
    layers
}

/// Gives `key` to the first active layer that takes it.
pub fn dispatch(app: &mut App, key: KeyEvent) {
    for layer in active_layers(app) {
        if !layer.handle(app, key).is_ignored() {
            return;
        }
    }
}

/// The help window's lines: `(group title, [(keys, help)])`, every component's
/// bindings under their group, each listed once.
pub fn help_groups() -> Vec<(&'static str, Vec<(&'static str, &'static str)>)> {
    let all = all_bindings();
    Group::ALL
        .iter()
        .map(|group| {
            let mut keys: Vec<(&'static str, &'static str)> = Vec::new();
            for b in all.iter().filter(|b| b.group() == *group) {
                if !keys.contains(&(b.keys(), b.help())) {
                    keys.push((b.keys(), b.help()));
                }
            }
            (group.title(), keys)
        })
        .filter(|(_, keys)| !keys.is_empty())
        .collect()
}

/// The hint bar's text in at most `width` columns: the valid keys of the focus at
/// hand, most useful first, always ending with help and quit.
pub fn hint_bar(app: &App, width: usize) -> String {
    let tail = "? help · q quit ";
    let mut hints: Vec<Hint> = Vec::new();
    // The focused pane's keys first, so they win ties of rank.
    let layers = active_layers(app);
    for (layer, b) in layers
        .iter()
        .rev()
        .flat_map(|l| l.bindings(app).into_iter().map(move |b| (*l, b)))
    {
        if let Some(h) = b.hint()
            && layer.acts(app, b)
            && !hints.iter().any(|seen| seen.key == h.key)
        {
            hints.push(h);
        }
    }
    hints.sort_by_key(|h| h.rank);
    let mut out = String::new();
    // At most six; one that does not fit leaves room for a shorter one after it.
    let mut shown = 0;
    for h in &hints {
        let piece = format!("{} {} · ", h.key, h.what);
        if shown == 6 || out.chars().count() + piece.chars().count() + tail.len() > width {
            continue;
        }
        out.push_str(&piece);
        shown += 1;
    }
    out.push_str(tail);
    out
}

/// The key list as Markdown, for the README and `docs/workbench.md`.
pub fn markdown() -> String {
    let mut out = String::new();
    for (group, keys) in help_groups() {
        out.push_str(&format!("**{group}**\n\n"));
        for (key, what) in keys {
            out.push_str(&format!("- `{key}`: {what}\n"));
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    /// `docs/workbench.md` carries the key list between two markers; it must be what
    /// the bindings say. `VOLK_WRITE_KEYS=1 cargo test --lib components` rewrites it.
    #[test]
    fn the_documented_key_list_is_written_from_the_bindings() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/workbench.md");
        let doc = std::fs::read_to_string(path).unwrap();
        let (start, end) = ("<!-- keys:start -->\n", "<!-- keys:end -->");
        let from = doc.find(start).expect("keys:start marker") + start.len();
        let to = doc.find(end).expect("keys:end marker");
        let expected = format!("\n{}", super::markdown());
        if doc[from..to] != expected {
            if std::env::var_os("VOLK_WRITE_KEYS").is_some() {
                let written = format!("{}{expected}{}", &doc[..from], &doc[to..]);
                std::fs::write(path, written).unwrap();
            } else {
                panic!(
                    "docs/workbench.md's key list differs from the bindings; \
                     run VOLK_WRITE_KEYS=1 cargo test --lib components"
                );
            }
        }
    }

    use ratatui::crossterm::event::KeyCode;

    use super::*;

    /// The bindings of the layers at hand that act now.
    fn acting_bindings(app: &App) -> Vec<&'static dyn Listed> {
        active_layers(app)
            .into_iter()
            .flat_map(|l| l.bindings(app).into_iter().filter(move |b| l.acts(app, *b)))
            .collect()
    }
    use crate::brief::Purpose;
    use crate::design::{Artifacts, Section};
    use crate::reasoner::StreamEvent;
    use crate::tui::app::SessionInfo;
    use crate::tui::event::{AppEvent, LoopEvent, Phase};
    use crate::tui::keymap::Chord;
    use crate::tui::test_keys::{ch, ctrl, key};
    use crate::tui::theme::Theme;
    use crate::volk::runtime::CommitInfo;

    fn cycle(app: &mut App, cycle: u32, architecture: &str) {
        let artifacts = Artifacts {
            architecture: architecture.into(),
            api_spec: "run() -> None".into(),
            ..Artifacts::default()
        };
        app.on_app_event(AppEvent::Loop(LoopEvent::CycleReady {
            cycle,
            artifacts,
            changed: Section::ALL.to_vec(),
        }));
    }

    fn phase(app: &mut App, phase: Phase) {
        app.on_app_event(AppEvent::Loop(LoopEvent::Phase(phase)));
    }

    /// Cycle 2 under review: a previous cycle, two questions, an open question of the
    /// architect and a thread.
    fn reviewing() -> App {
        let design = |architecture: &str| Artifacts {
            architecture: architecture.into(),
            api_spec: "run() -> None".into(),
            ..Artifacts::default()
        };
        let mut review = crate::volk::review::ReviewState::default();
        crate::volk::threads::open(&mut review.threads, 1, &["Why JSON?".into()]);
        let mut scene = crate::tui::scene::Scene::new(SessionInfo::default())
            .first_cycle(1, design("Arch line\n"))
            .first_cycle(
                2,
                design("Arch line two\n\n## Open questions\n\n1. Which database?\n"),
            )
            .awaiting_review(2)
            .review(review);
        for q in ["one", "two"] {
            scene = scene.keys(&[ch('a')]).typed(q).keys(&[key(KeyCode::Enter)]);
        }
        scene.app()
    }

    fn in_review_pane(selected: usize) -> App {
        let mut app = reviewing();
        app.focus = Focus::Review;
        app.review_pane.selected = selected;
        app
    }

    fn streaming() -> App {
        let mut app = App::new(SessionInfo::default(), Theme::dark());
        phase(&mut app, Phase::Designing { cycle: 1 });
        app.on_app_event(AppEvent::Loop(LoopEvent::Delta {
            call: 1,
            purpose: Purpose::Design,
            event: StreamEvent::Text {
                text: "ARCHITECTURE:\nfirst line\nsecond".into(),
            },
        }));
        app.sync_stream();
        app
    }

    fn with(mut app: App, keys: &[ratatui::crossterm::event::KeyEvent]) -> App {
        for k in keys {
            app.on_key(*k);
        }
        app
    }

    /// Cycle 1 under review with a requirement cited, compiled: problems to list and
    /// an id on the first line to trace.
    fn compiled() -> App {
        let mut app = App::new(SessionInfo::default(), Theme::dark());
        app.on_app_event(AppEvent::Loop(LoopEvent::CycleReady {
            cycle: 1,
            artifacts: Artifacts {
                architecture: "- **Cli** serves FR-01 and FR-09.\n".into(),
                requirements: "1. FR-01: Add tasks.\n".into(),
                ..Artifacts::default()
            },
            changed: Section::ALL.to_vec(),
        }));
        phase(&mut app, Phase::AwaitingReview { cycle: 1 });
        app.refresh_problems();
        app
    }

    type Scene = (&'static str, fn() -> App);

    /// The states the workbench can be in, one per focus and popup.
    const SCENES: &[Scene] = &[
        ("reading", reviewing),
        ("review pane on a question", || in_review_pane(0)),
        ("review pane on an open question", || in_review_pane(2)),
        ("review pane on a thread", || in_review_pane(3)),
        ("a question deleted", || with(in_review_pane(0), &[ch('x')])),
        ("streaming", streaming),
        ("streaming, cancel asked", || with(streaming(), &[ch('x')])),
        ("journal tab", || with(reviewing(), &[ch('6')])),
        // No diagram yet: it does not parse, so the tab shows its source.
        ("class diagram tab, source", || {
            with(reviewing(), &[ch('5')])
        }),
        ("class diagram tab, drawn", || {
            let mut app = reviewing();
            let artifacts = Artifacts {
                class_diagram: "classDiagram\n  Base <|-- Store\n  Store *-- Record\n".into(),
                ..Artifacts::default()
            };
            app.on_app_event(AppEvent::Loop(LoopEvent::CycleReady {
                cycle: 3,
                artifacts,
                changed: vec![Section::ClassDiagram],
            }));
            app.on_key(ch('5'));
            app.prepare_frame(ratatui::layout::Rect::new(0, 0, 100, 30));
            // The layout runs on its own thread: the scene is the frame once it is in.
            let start = std::time::Instant::now();
            while app.diagram.is_pending() && start.elapsed() < std::time::Duration::from_secs(10) {
                std::thread::sleep(std::time::Duration::from_millis(2));
                app.prepare_frame(ratatui::layout::Rect::new(0, 0, 100, 30));
            }
            app
        }),
        ("failed, retryable", || {
            let mut app = reviewing();
            phase(
                &mut app,
                Phase::Failed {
                    resume: Box::new(Phase::Designing { cycle: 3 }),
                    message: "HTTP 503".into(),
                    retryable: true,
                },
            );
            app.popup = None;
            app
        }),
        ("awaiting finalize", || {
            let mut app = reviewing();
            phase(&mut app, Phase::AwaitingFinalize);
            app
        }),
        ("awaiting plan approval", || {
            let mut app = reviewing();
            phase(&mut app, Phase::AwaitingPlanApproval);
            app
        }),
        ("plan tab with a plan", || {
            let mut app = reviewing();
            phase(&mut app, Phase::AwaitingPlanApproval);
            app.on_app_event(AppEvent::Loop(LoopEvent::Plan(
                crate::tui::pane::plan::tests::seven_stages(),
            )));
            app
        }),
        ("last cycle?", || {
            let mut app = reviewing();
            app.info.max_cycles = 2;
            with(app, &[ctrl('s')])
        }),
        ("summary", || {
            let mut app = reviewing();
            phase(&mut app, Phase::Finalized);
            app
        }),
        ("help", || with(reviewing(), &[ch('?')])),
        ("messages", || with(reviewing(), &[ch('M')])),
        ("go to line", || with(reviewing(), &[ch(':')])),
        ("a conflict under the cursor", || {
            let mut app = App::new(SessionInfo::default(), Theme::dark());
            cycle(
                &mut app,
                1,
                "<<<<<<< reviewer\nmine\n=======\ntheirs\n>>>>>>> architect\n",
            );
            phase(&mut app, Phase::AwaitingReview { cycle: 1 });
            app.views[0].cursor = 1;
            app
        }),
        ("composer", || with(reviewing(), &[ch('a')])),
        ("search", || with(reviewing(), &[ch('/')])),
        ("searched", || {
            with(reviewing(), &[ch('/'), ch('A'), key(KeyCode::Enter)])
        }),
        ("problems", || with(compiled(), &[ch('p')])),
        ("trace", || with(compiled(), &[ch('*')])),
        ("traced", || with(compiled(), &[ch('*'), key(KeyCode::Esc)])),
        ("READY?", || with(reviewing(), &[ctrl('r')])),
        ("Quit?", || with(reviewing(), &[ch('q')])),
        ("diff", || with(reviewing(), &[ch('d')])),
        ("diff search", || with(reviewing(), &[ch('d'), ch('/')])),
        ("diff, a search kept", || {
            with(
                reviewing(),
                &[ch('d'), ch('/'), ch('a'), key(KeyCode::Enter)],
            )
        }),
        ("compare list", || with(reviewing(), &[ch('d'), ch('c')])),
        ("history", || {
            let mut app = with(reviewing(), &[ch('h')]);
            let commit = |n: u32| CommitInfo {
                id: format!("{n:040}"),
                short_id: format!("c{n}"),
                summary: format!("Design cycle {n}"),
                time: 0,
            };
            app.on_app_event(AppEvent::Loop(LoopEvent::History(vec![
                commit(2),
                commit(1),
            ])));
            app
        }),
        ("error, a refused key", || {
            let mut app = reviewing();
            app.on_app_event(AppEvent::Loop(LoopEvent::Phase(Phase::Failed {
                resume: Box::new(Phase::Designing { cycle: 2 }),
                message: "HTTP 401 from http://x/v1: Incorrect API key".into(),
                retryable: true,
            })));
            app
        }),
        ("error, retryable", || {
            let mut app = reviewing();
            app.on_app_event(AppEvent::Loop(LoopEvent::Phase(Phase::Failed {
                resume: Box::new(Phase::Designing { cycle: 2 }),
                message: "HTTP 503".into(),
                retryable: true,
            })));
            app
        }),
    ];

    /// Every key a person can press, for the reverse check.
    fn every_key() -> Vec<ratatui::crossterm::event::KeyEvent> {
        let mut keys: Vec<_> = (' '..='~').map(ch).collect();
        keys.extend(('a'..='z').map(ctrl));
        keys.extend(
            [
                KeyCode::Enter,
                KeyCode::Esc,
                KeyCode::Tab,
                KeyCode::Backspace,
                KeyCode::Delete,
                KeyCode::Up,
                KeyCode::Down,
                KeyCode::Left,
                KeyCode::Right,
                KeyCode::PageUp,
                KeyCode::PageDown,
                KeyCode::Home,
                KeyCode::End,
            ]
            .map(key),
        );
        keys.push(ratatui::crossterm::event::KeyEvent::new(
            KeyCode::BackTab,
            KeyModifiers::SHIFT,
        ));
        keys
    }

    #[test]
    fn every_bound_key_is_handled_where_it_is_declared() {
        let mut covered: Vec<(&str, &str)> = Vec::new();
        for (name, scene) in SCENES {
            let app = scene();
            for layer in active_layers(&app) {
                for b in layer
                    .bindings(&app)
                    .into_iter()
                    .filter(|b| layer.acts(&app, *b))
                {
                    for chord in b.chords() {
                        let mut fresh = scene();
                        let handled = layer.handle(&mut fresh, chord.event());
                        assert!(
                            !handled.is_ignored(),
                            "{name}: {layer:?} declares {b:?} but ignores {chord:?}"
                        );
                    }
                    covered.push((b.keys(), b.help()));
                }
            }
        }
        for b in all_bindings() {
            assert!(
                b.chords().is_empty() || covered.contains(&(b.keys(), b.help())),
                "no scene presses {b:?}: add one"
            );
        }
    }

    /// A popup judges its own keys: the failure hints `r` only when a retry can help
    /// (yet `r` always answers), the diff hints `n N` once a search was typed.
    #[test]
    fn a_popup_hints_only_the_keys_its_state_lets_act() {
        use crate::tui::popup::error::Failure;
        let failure = |retryable: bool| {
            Popup::Error(Failure {
                message: "HTTP 401".into(),
                retryable,
                fix: (!retryable).then(|| "set the key".into()),
                call: "sends the update again".into(),
            })
        };
        let mut app = reviewing();
        app.popup = Some(failure(true));
        assert!(
            hint_bar(&app, 120).contains("r retry"),
            "{}",
            hint_bar(&app, 120)
        );
        app.popup = Some(failure(false));
        assert!(!hint_bar(&app, 120).contains("r retry"));
        assert!(!Layer::Popup.handle(&mut app, ch('r')).is_ignored());

        let app = with(reviewing(), &[ch('d')]);
        assert!(matches!(app.popup, Some(Popup::Diff(_))));
        assert!(
            !hint_bar(&app, 120).contains("n N"),
            "{}",
            hint_bar(&app, 120)
        );
        let app = with(
            app,
            &[
                ch('/'),
                ch('A'),
                ch('r'),
                ch('c'),
                ch('h'),
                key(KeyCode::Enter),
            ],
        );
        assert!(
            hint_bar(&app, 120).contains("n N"),
            "{}",
            hint_bar(&app, 120)
        );
    }

    #[test]
    fn every_handled_key_is_declared() {
        for (name, scene) in SCENES {
            let app = scene();
            for layer in active_layers(&app) {
                let bindings = layer.bindings(&app);
                // A catch-all binding ("any other key") declares every key.
                if bindings.iter().any(|b| b.chords().contains(&Chord::AnyKey)) {
                    continue;
                }
                for k in every_key() {
                    let mut fresh = scene();
                    if !layer.handle(&mut fresh, k).is_ignored() {
                        assert!(
                            bindings.iter().any(|b| b.matches(&k)),
                            "{name}: {layer:?} acts on {k:?}, which none of its bindings names"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn the_help_lists_every_binding_and_the_hint_bar_fits() {
        let help = help_groups();
        for b in all_bindings() {
            assert!(
                help.iter()
                    .any(|(_, keys)| keys.contains(&(b.keys(), b.help()))),
                "{b:?} is not in the help"
            );
        }
        for (name, scene) in SCENES {
            let app = scene();
            let mut hinted: Vec<&str> = acting_bindings(&app)
                .into_iter()
                .filter_map(|b| b.hint().map(|h| h.key))
                .collect();
            hinted.dedup();
            for width in [60, 80, 120] {
                let bar = hint_bar(&app, width);
                assert!(bar.chars().count() <= width, "{name} at {width}: {bar}");
                assert!(bar.ends_with("? help · q quit "), "{name}: {bar}");
            }
            // Only keys valid now are hinted, and at 120 columns up to six of them.
            let bar = hint_bar(&app, 120);
            let shown = bar.matches(" · ").count() - 1;
            assert_eq!(shown, hinted.len().min(6), "{name}: {bar}");
        }
    }
}

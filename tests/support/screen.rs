//! The workbench on a TestBackend, as the screen tests set it up: the session facts of
//! the header and one rendered frame as text.

use std::path::PathBuf;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use volk::tui::app::{App, SessionInfo};
use volk::tui::view;

/// The header's facts for project `name`, designed by the offline drafter, as the
/// binary sets them (`src/tui/cli.rs`: the reasoner's own label, no separate model),
/// so a snapshot's header is the one `volk demo` draws.
pub fn info_for(name: &str) -> SessionInfo {
    SessionInfo {
        project_name: name.into(),
        project_dir: PathBuf::from(format!("/work/space/{name}")),
        thread_id: format!("demo-{name}"),
        max_cycles: 99,
        reasoner: "offline drafter (no model)".into(),
        model: String::new(),
    }
}

/// The demo's project.
pub fn info() -> SessionInfo {
    info_for("bookshelf")
}

/// One frame at `width` x `height`, as text.
pub fn screen(app: &mut App, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    view::render(&mut terminal, app).unwrap();
    terminal.backend().to_string()
}

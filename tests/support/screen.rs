//! The workbench on a TestBackend, as the screen tests set it up: the session facts of
//! the header and one rendered frame as text.

use std::path::PathBuf;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
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

/// One frame at `width` x `height`, drawn as the binary draws it once its syntax assets
/// are warm (a few milliseconds after start). Warming first makes the frame the same
/// whichever test of the binary ran before.
pub fn frame(app: &mut App, width: u16, height: u16) -> Buffer {
    volk::tui::highlight::warm_now();
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    view::render(&mut terminal, app).unwrap();
    terminal.backend().buffer().clone()
}

/// One frame at `width` x `height`, as text.
pub fn screen(app: &mut App, width: u16, height: u16) -> String {
    volk::tui::highlight::warm_now();
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    view::render(&mut terminal, app).unwrap();
    terminal.backend().to_string()
}

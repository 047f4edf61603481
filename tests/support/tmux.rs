//! A tmux server of the test's own (its socket in a temp dir) driving a real terminal:
//! keys in, the screen out. Killed when the value is dropped.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

pub struct Tmux {
    pub socket: PathBuf,
    pub session: String,
}

impl Tmux {
    pub fn run(&self, args: &[&str]) -> std::process::Output {
        Command::new("tmux")
            .arg("-S")
            .arg(&self.socket)
            .args(args)
            .output()
            .unwrap()
    }

    /// Starts the session `width` x `height` running `command` (a shell command line).
    pub fn start(&self, width: u16, height: u16, command: &str) {
        let (w, h) = (width.to_string(), height.to_string());
        let out = self.run(&[
            "new-session",
            "-d",
            "-s",
            &self.session,
            "-x",
            &w,
            "-y",
            &h,
            command,
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    pub fn screen(&self) -> String {
        String::from_utf8_lossy(
            &self
                .run(&["capture-pane", "-p", "-t", &self.session])
                .stdout,
        )
        .into_owned()
    }

    /// A pane flag such as `alternate_on` or `cursor_flag`.
    pub fn flag(&self, name: &str) -> String {
        let format = format!("#{{{name}}}");
        String::from_utf8_lossy(
            &self
                .run(&["display", "-p", "-t", &self.session, &format])
                .stdout,
        )
        .trim()
        .to_string()
    }

    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", self.session.as_str()];
        args.extend_from_slice(keys);
        self.run(&args);
        if keys.last() == Some(&"Escape") {
            // A key sent right after Esc would reach the terminal as Alt+key.
            std::thread::sleep(Duration::from_millis(150));
        }
    }

    pub fn literal(&self, text: &str) {
        self.run(&["send-keys", "-t", &self.session, "-l", text]);
    }

    pub fn wait_for(&self, what: &str, timeout: Duration) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if screen.contains(what) {
                return screen;
            }
            if start.elapsed() > timeout {
                panic!("waited {timeout:?} for {what:?}; the screen shows:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        self.run(&["kill-server"]);
    }
}

pub fn tmux_available() -> bool {
    Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The shell command that runs `volk demo` into `workspace`, with its config and log
/// kept under `dir`, then prints its exit status and keeps the pane open to be read.
pub fn demo_command(dir: &Path, workspace: &Path) -> String {
    let config = dir.join("config");
    std::fs::create_dir_all(&config).unwrap();
    format!(
        "VOLK_CONFIG_DIR={} VOLK_LOG={} {} demo --workspace {}; echo VOLK-EXITED-$?; sleep 30",
        config.display(),
        dir.join("volk.log").display(),
        env!("CARGO_BIN_EXE_volk"),
        workspace.display()
    )
}

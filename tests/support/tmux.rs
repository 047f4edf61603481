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

/// The shell command that runs `volk design` on a small scope against the OpenAI
/// compatible provider at `base_url` (a [`super::provider::Provider`]'s `v1()`), into
/// `dir/ws`, with `extra` arguments; then prints the exit status and keeps the pane.
pub fn design_command(dir: &Path, base_url: &str, extra: &str) -> String {
    let home = dir.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let scope = dir.join("tasks.md");
    if !scope.exists() {
        std::fs::write(&scope, "# A task CLI\n1. Add tasks\n").unwrap();
    }
    format!(
        "env HOME={home} XDG_CONFIG_HOME={home}/.config GIT_CONFIG_NOSYSTEM=1 \
         OPENAI_API_KEY=sk-tmux-test VOLK_CONFIG_DIR={config} VOLK_LOG={log} \
         {volk} design {scope} --workspace {ws} --lint-repairs 0 --reasoner openai \
         --model scripted --base-url {base_url} {extra}; echo VOLK-EXITED-$?; sleep 30",
        home = home.display(),
        config = dir.join("config").display(),
        log = dir.join("volk.log").display(),
        volk = env!("CARGO_BIN_EXE_volk"),
        scope = scope.display(),
        ws = dir.join("ws").display(),
    )
}

/// The screen's last non-blank row: the status bar.
pub fn status_row(screen: &str) -> String {
    screen
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or_default()
        .to_string()
}

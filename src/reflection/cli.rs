//! `volk reflect`, `volk hook`, `volk mcp`.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};

use super::error::ReflectionError;
use super::hook::{self, HookContext, Host};
use super::install::{self, InstallError, Scope};
use super::ops::{self, DeleteMode};
use super::select::{Audience, select, select_for};
use super::store::{ConfigStore, Source, locate_config};
use crate::BadInput;

/// The hook reads at most this much stdin; hosts send a few kilobytes.
const MAX_HOOK_INPUT: u64 = 16 * 1024 * 1024;
/// How long the hook waits for a stdin that is never closed before it lets the agent
/// stop; hosts write their few kilobytes at once.
const HOOK_STDIN_WAIT: std::time::Duration = std::time::Duration::from_secs(3);

/// Reads stdin until it closes, `limit` bytes, or a complete JSON object arrived; gives
/// up after `wait`. The read runs on its own thread, which is left blocked if the host
/// never closes the pipe (the process exits without it).
fn read_hook_input(limit: u64, wait: std::time::Duration) -> Result<Vec<u8>, String> {
    let (tx, rx) = std::sync::mpsc::channel::<std::io::Result<Option<Vec<u8>>>>();
    let spawned = std::thread::Builder::new()
        .name("volk-hook-stdin".into())
        .spawn(move || {
            let mut stdin = std::io::stdin().lock().take(limit);
            let mut buf = [0u8; 8192];
            loop {
                match stdin.read(&mut buf) {
                    Ok(0) => {
                        let _ = tx.send(Ok(None));
                        return;
                    }
                    Ok(n) => {
                        if tx.send(Ok(Some(buf[..n].to_vec()))).is_err() {
                            return;
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        let _ = tx.send(Err(e));
                        return;
                    }
                }
            }
        });
    spawned.map_err(|e| format!("cannot read stdin: {e}"))?;
    let deadline = std::time::Instant::now() + wait;
    let mut input = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match rx.recv_timeout(left) {
            Ok(Ok(Some(piece))) => {
                input.extend_from_slice(&piece);
                // A host that keeps the pipe open after a whole object need not wait.
                let ends_an_object = input.trim_ascii_end().ends_with(b"}");
                if ends_an_object && serde_json::from_slice::<serde_json::Value>(&input).is_ok() {
                    return Ok(input);
                }
            }
            Ok(Ok(None)) | Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                return Ok(input);
            }
            Ok(Err(e)) => return Err(format!("cannot read stdin: {e}")),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                return Err(format!(
                    "stdin was not closed within {} s; letting the agent stop",
                    wait.as_secs()
                ));
            }
        }
    }
}

/// True when the command line is `volk hook stop …` (or any `volk hook` other than
/// `install`): a parse error there must not exit 2, which tells Claude Code to block
/// the stop, so a typo in a hook's flags would trap the agent.
pub fn is_stop_hook(args: &[std::ffi::OsString]) -> bool {
    args.get(1).is_some_and(|a| a == "hook")
        && args.get(2).is_none_or(|a| a != "install" && a != "status")
}

#[derive(Debug, Args)]
pub struct ReflectArgs {
    /// The config file [default: .prd_plugin/config.json at the project root].
    #[arg(long, global = true, value_name = "PATH")]
    config: Option<PathBuf>,
    #[command(subcommand)]
    command: ReflectCommand,
}

#[derive(Debug, Subcommand)]
enum ReflectCommand {
    /// Show the policy, the categories and their questions.
    List {
        /// Print the reflection section as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Add a category or a question.
    #[command(subcommand)]
    Create(CreateCommand),
    /// Rename, enable, disable or move.
    #[command(subcommand)]
    Update(UpdateCommand),
    /// Remove a category or a question.
    #[command(subcommand)]
    Delete(DeleteCommand),
    /// Show or change the policy: on/off, asking on Stop, questions per Stop.
    Policy(PolicyArgs),
}

#[derive(Debug, Subcommand)]
enum CreateCommand {
    /// Add a category; prints its id.
    Category {
        #[arg(long)]
        name: String,
        /// Lowercase letters, digits and dashes [default: derived from the name].
        #[arg(long)]
        id: Option<String>,
        #[arg(long)]
        disabled: bool,
    },
    /// Add a question; prints its new RFQ- id.
    Question {
        /// The id of the category that holds it.
        #[arg(long)]
        category: String,
        #[arg(long)]
        text: String,
        #[arg(long)]
        disabled: bool,
    },
}

#[derive(Debug, Args)]
struct Toggle {
    #[arg(long, conflicts_with = "disable")]
    enable: bool,
    #[arg(long)]
    disable: bool,
}

impl Toggle {
    fn value(&self) -> Option<bool> {
        match (self.enable, self.disable) {
            (true, _) => Some(true),
            (_, true) => Some(false),
            _ => None,
        }
    }
}

#[derive(Debug, Subcommand)]
enum UpdateCommand {
    Category {
        id: String,
        #[arg(long)]
        name: Option<String>,
        #[command(flatten)]
        toggle: Toggle,
    },
    Question {
        /// RFQ-…
        id: String,
        #[arg(long)]
        text: Option<String>,
        #[command(flatten)]
        toggle: Toggle,
        /// Move the question to the end of this category.
        #[arg(long)]
        category: Option<String>,
    },
}

#[derive(Debug, Subcommand)]
enum DeleteCommand {
    Category {
        id: String,
        /// Delete its questions too.
        #[arg(long)]
        force: bool,
    },
    Question {
        /// RFQ-…
        id: String,
    },
}

#[derive(Debug, Args)]
struct PolicyArgs {
    #[command(flatten)]
    toggle: Toggle,
    /// Whether the Stop hook of coding agents asks the questions.
    #[arg(long, value_name = "true|false")]
    on_stop: Option<bool>,
    /// At most this many questions per Stop (1 to 10).
    #[arg(long, value_name = "N")]
    max_questions: Option<u32>,
}

#[derive(Debug, Args)]
pub struct HookArgs {
    #[command(subcommand)]
    command: HookCommand,
}

#[derive(Debug, Subcommand)]
enum HookCommand {
    /// The Stop hook: reads the host's JSON on stdin, prints a block decision or nothing.
    Stop {
        /// The agent that runs the hook [default: detected from the input].
        #[arg(long, value_enum)]
        host: Option<Host>,
        /// The config file [default: .prd_plugin/config.json at the project root of the input's cwd].
        #[arg(long, value_name = "PATH")]
        config: Option<PathBuf>,
    },
    /// Register the Stop hook with a coding agent (idempotent).
    Install {
        #[arg(long, value_enum)]
        host: Host,
        /// In the user's settings instead of the project's.
        #[arg(long)]
        user: bool,
        /// The command that starts volk [default: the absolute path of this volk].
        #[arg(long, value_name = "CMD")]
        command: Option<String>,
    },
    /// Whether the hook is installed for each host, where its config is, and which
    /// questions the next Stop here asks.
    Status,
}

#[derive(Debug, Args)]
pub struct McpArgs {
    /// The config file [default: .prd_plugin/config.json at the project root].
    #[arg(long, value_name = "PATH")]
    config: Option<PathBuf>,
}

fn current_dir() -> anyhow::Result<PathBuf> {
    std::env::current_dir().map_err(|e| anyhow::anyhow!("cannot read the current directory: {e}"))
}

fn store_for(config: Option<PathBuf>) -> anyhow::Result<ConfigStore> {
    Ok(ConfigStore::new(match config {
        Some(path) => path,
        None => locate_config(&current_dir()?),
    }))
}

fn fail(error: ReflectionError) -> anyhow::Error {
    if error.is_user_error() {
        BadInput::err(error.to_string())
    } else {
        anyhow::Error::new(error)
    }
}

fn on_off(flag: bool) -> &'static str {
    if flag { "enabled" } else { "disabled" }
}

pub fn reflect(args: ReflectArgs) -> anyhow::Result<ExitCode> {
    let store = store_for(args.config)?;
    let mut out = crate::console::stdout();
    match args.command {
        ReflectCommand::List { json } => {
            let loaded = store.load().map_err(fail)?;
            if json {
                writeln!(
                    out,
                    "{}",
                    serde_json::to_string_pretty(&loaded.config.to_json())?
                )?;
            } else {
                print_list(&mut out, &store, &loaded)?;
            }
        }
        ReflectCommand::Create(CreateCommand::Category { name, id, disabled }) => {
            let made = ops::create_category(
                &store,
                ops::NewCategory {
                    name,
                    id,
                    enabled: !disabled,
                },
            )
            .map_err(fail)?;
            writeln!(out, "{}", made.id)?;
        }
        ReflectCommand::Create(CreateCommand::Question {
            category,
            text,
            disabled,
        }) => {
            let made = ops::create_question(
                &store,
                ops::NewQuestion {
                    category,
                    text,
                    enabled: !disabled,
                },
            )
            .map_err(fail)?;
            writeln!(out, "{}", made.question.id)?;
        }
        ReflectCommand::Update(UpdateCommand::Category { id, name, toggle }) => {
            let c = ops::update_category(
                &store,
                &id,
                ops::CategoryChange {
                    name,
                    enabled: toggle.value(),
                },
            )
            .map_err(fail)?;
            writeln!(
                out,
                "updated category {} \"{}\" ({})",
                c.id,
                c.name,
                on_off(c.enabled)
            )?;
        }
        ReflectCommand::Update(UpdateCommand::Question {
            id,
            text,
            toggle,
            category,
        }) => {
            let q = ops::update_question(
                &store,
                &id,
                ops::QuestionChange {
                    text,
                    enabled: toggle.value(),
                    category,
                },
            )
            .map_err(fail)?;
            writeln!(
                out,
                "updated {} in {} ({})",
                q.question.id,
                q.category,
                on_off(q.question.enabled)
            )?;
        }
        ReflectCommand::Delete(DeleteCommand::Category { id, force }) => {
            let mode = if force {
                DeleteMode::WithQuestions
            } else {
                DeleteMode::OnlyIfEmpty
            };
            let c = ops::delete_category(&store, &id, mode).map_err(fail)?;
            writeln!(
                out,
                "deleted category {} with {} question(s)",
                c.id, c.questions
            )?;
        }
        ReflectCommand::Delete(DeleteCommand::Question { id }) => {
            let q = ops::delete_question(&store, &id).map_err(fail)?;
            writeln!(out, "deleted {} from {}", q.question.id, q.category)?;
        }
        ReflectCommand::Policy(policy) => {
            let change = ops::PolicyChange {
                enabled: policy.toggle.value(),
                on_stop: policy.on_stop,
                max_questions_per_stop: policy.max_questions,
            };
            let p = if change.enabled.is_none()
                && change.on_stop.is_none()
                && change.max_questions_per_stop.is_none()
            {
                let c = store.load().map_err(fail)?.config;
                ops::Policy {
                    enabled: c.enabled,
                    on_stop: c.on_stop,
                    max_questions_per_stop: c.max_questions_per_stop,
                }
            } else {
                ops::update_policy(&store, change).map_err(fail)?
            };
            writeln!(
                out,
                "reflection {}; on stop: {}; at most {} question(s) per stop",
                on_off(p.enabled),
                if p.on_stop { "yes" } else { "no" },
                p.max_questions_per_stop
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn print_list(
    out: &mut impl Write,
    store: &ConfigStore,
    loaded: &super::store::Loaded,
) -> anyhow::Result<()> {
    let c = &loaded.config;
    let source = match loaded.source {
        Source::File => String::new(),
        Source::Defaults => " (no reflection section: the default set)".to_string(),
    };
    writeln!(out, "config: {}{source}", store.path().display())?;
    writeln!(
        out,
        "reflection {}; on stop: {}; at most {} question(s) per stop",
        on_off(c.enabled),
        if c.on_stop { "yes" } else { "no" },
        c.max_questions_per_stop
    )?;
    let asked: Vec<String> = select(c).into_iter().map(|q| q.id).collect();
    if !asked.is_empty() {
        writeln!(out, "asked: {}", asked.join(", "))?;
    }
    let architect: Vec<String> = select_for(c, Audience::Architect)
        .into_iter()
        .map(|q| q.id)
        .collect();
    if !architect.is_empty() {
        writeln!(out, "architect asks: {}", architect.join(", "))?;
    }
    for category in &c.categories {
        let off = if category.enabled { "" } else { "  [disabled]" };
        writeln!(out, "\n{}  {}{off}", category.id, category.name)?;
        if category.questions.is_empty() {
            writeln!(out, "  (no questions)")?;
        }
        for q in &category.questions {
            let off = if q.enabled { "" } else { "[disabled] " };
            writeln!(out, "  {}  {off}{}", q.id, q.text)?;
        }
    }
    Ok(())
}

pub fn hook(args: HookArgs) -> anyhow::Result<ExitCode> {
    match args.command {
        HookCommand::Stop { host, config } => Ok(stop_hook(host, config)),
        HookCommand::Install {
            host,
            user,
            command,
        } => install_hook(host, user, command),
        HookCommand::Status => hook_status(),
    }
}

/// The project an install or a status is for: the nearest `.prd_plugin/` up the tree,
/// else the repository root, else the current directory.
fn project_root_here() -> anyhow::Result<PathBuf> {
    let cwd = current_dir()?;
    let config = locate_config(&cwd);
    if let Some(root) = config
        .parent()
        .filter(|p| p.is_dir())
        .and_then(|p| p.parent())
    {
        return Ok(root.to_path_buf());
    }
    Ok(hook::project_root(&cwd, None).unwrap_or(cwd))
}

/// What the next Stop asks, in one line: the question ids and texts, or why none.
fn next_stop_line(config: Option<&std::path::Path>) -> String {
    let Some(path) = config else {
        return "the next Stop here asks nothing: no project hook is installed and there is no .prd_plugin/".into();
    };
    if std::env::var(hook::OPT_OUT_VAR).is_ok_and(|v| {
        matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "off" | "0" | "false" | "no" | "disabled"
        )
    }) {
        return format!("the next Stop asks nothing: {}=off", hook::OPT_OUT_VAR);
    }
    let loaded = match ConfigStore::new(path).load() {
        Ok(loaded) => loaded,
        Err(e) => return format!("the next Stop asks nothing (it lets the agent stop): {e}"),
    };
    let c = &loaded.config;
    if !c.enabled || !c.on_stop {
        return format!(
            "the next Stop asks nothing: reflection is {} in {}; `volk reflect policy --enable --on-stop true` turns it on",
            if c.enabled { "off on Stop" } else { "disabled" },
            path.display()
        );
    }
    let asked = select(c);
    if asked.is_empty() {
        return format!(
            "the next Stop asks nothing: no question is enabled in {}",
            path.display()
        );
    }
    let which = match loaded.source {
        Source::Defaults => "the default questions",
        Source::File => "the questions of the config",
    };
    let list: Vec<String> = asked
        .iter()
        .map(|q| format!("{} \"{}\"", q.id, q.text))
        .collect();
    format!(
        "the next Stop asks {which}: {}; change them with `volk reflect` (config {})",
        list.join(", "),
        path.display()
    )
}

fn hook_status() -> anyhow::Result<ExitCode> {
    let root = project_root_here()?;
    let home = dirs::home_dir();
    let mut out = crate::console::stdout();
    for host in [Host::Claude, Host::Codex, Host::Opencode] {
        let project = install::target_file(host, &Scope::Project(root.clone()));
        let mut line = format!(
            "{}: project hook {} ({})",
            host.name(),
            installed_word(install::is_installed(host, &project)),
            project.display()
        );
        if let Some(home) = &home {
            let user = install::target_file(host, &Scope::User(home.clone()));
            line.push_str(&format!(
                "; user hook {} ({})",
                installed_word(install::is_installed(host, &user)),
                user.display()
            ));
        }
        writeln!(out, "{line}")?;
    }
    let cwd = current_dir()?;
    let project_dir = std::env::var_os(hook::PROJECT_DIR_VAR)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from);
    let config = hook::find_config(&cwd, project_dir.as_deref());
    match &config {
        Some(path) if path.is_file() => writeln!(out, "config: {}", path.display())?,
        Some(path) => writeln!(
            out,
            "config: {} (not written yet: the default questions apply)",
            path.display()
        )?,
        None => writeln!(out, "config: none")?,
    }
    writeln!(out, "{}", next_stop_line(config.as_deref()))?;
    Ok(ExitCode::SUCCESS)
}

fn installed_word(yes: bool) -> &'static str {
    if yes { "installed" } else { "not installed" }
}

/// Runs the Stop hook and always exits 0: whatever fails, the agent may stop, and
/// stderr gets one line saying why.
fn stop_hook(host: Option<Host>, config: Option<PathBuf>) -> ExitCode {
    std::panic::set_hook(Box::new(|info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<&str>()
            .copied()
            .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
            .unwrap_or("panic")
            .replace('\n', " ");
        crate::console::note(&format!("volk hook stop: internal error: {message}"));
    }));
    let outcome = std::panic::catch_unwind(|| {
        let input = read_hook_input(MAX_HOOK_INPUT, HOOK_STDIN_WAIT)?;
        hook::decide(&input, &HookContext::from_env(host, config))
    });
    match outcome {
        Ok(Ok(decision)) => {
            tracing::debug!(?decision, "stop hook");
            if let Some(line) = decision.stdout() {
                let mut out = std::io::stdout().lock();
                if writeln!(out, "{line}").and_then(|()| out.flush()).is_err() {
                    crate::console::note("volk hook stop: cannot write to stdout");
                }
            }
        }
        Ok(Err(message)) => {
            crate::console::note(&format!("volk hook stop: {}", message.replace('\n', " ")))
        }
        Err(_) => {}
    }
    ExitCode::SUCCESS
}

fn install_hook(host: Host, user: bool, command: Option<String>) -> anyhow::Result<ExitCode> {
    let scope = if user {
        Scope::User(
            dirs::home_dir().ok_or_else(|| BadInput::err(InstallError::NoHome.to_string()))?,
        )
    } else {
        Scope::Project(project_root_here()?)
    };
    let volk = match command {
        Some(command) if !command.trim().is_empty() => command.trim().to_string(),
        Some(_) => return Err(BadInput::err("--command: must not be empty")),
        None => {
            let exe = std::env::current_exe()
                .map_err(|e| anyhow::anyhow!("cannot find the volk executable: {e}"))?;
            install::shell_quote(&exe.to_string_lossy())
        }
    };
    let fail = |e: InstallError| {
        if e.is_user_error() {
            BadInput::err(e.to_string())
        } else {
            anyhow::Error::new(e)
        }
    };
    let (path, outcome) = install::install(host, &scope, &volk).map_err(fail)?;
    let mut said = format!("{}: {}", outcome.describe(), path.display());
    if host == Host::Codex {
        said.push_str("; Codex runs it once you trust the project's hooks");
    }
    let config = match &scope {
        Scope::Project(root) => {
            if install::ensure_marker_ignored(root).map_err(fail)? {
                said.push_str(&format!(" ({} added to .gitignore)", install::IGNORE_LINE));
            }
            Some(locate_config(root))
        }
        Scope::User(_) => {
            let cwd = current_dir()?;
            hook::find_config(&cwd, None)
        }
    };
    crate::console::line(&said)?;
    crate::console::line(&next_stop_line(config.as_deref()))?;
    Ok(ExitCode::SUCCESS)
}

pub fn mcp(args: McpArgs) -> anyhow::Result<ExitCode> {
    let store = store_for(args.config)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(super::mcp::serve(store))?;
    Ok(ExitCode::SUCCESS)
}

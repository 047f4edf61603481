//! Questions the workbench asks about the project while a session runs: its history,
//! an older cycle, the cycle before the newest. The runtime owns the project
//! directory, so it answers them, each on a blocking task. Each kind of question is
//! single-flight in effect: when a newer question of the same kind has been asked, the
//! answer to an older one is dropped, however late it comes (gitui's `AsyncSingleJob`).

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use tokio::sync::mpsc::UnboundedSender;

use crate::project::history;
use crate::volk::protocol::{Event, Query};

/// Which answer slot a query takes: one newest ticket per kind.
fn kind(query: &Query) -> usize {
    match query {
        Query::History => 0,
        Query::Commit { .. } => 1,
        Query::PreviousCycle => 2,
        Query::Artifact(_) => 3,
    }
}

/// Answers queries about one project.
#[derive(Debug, Clone)]
pub struct Queries {
    project_dir: PathBuf,
    events: UnboundedSender<Event>,
    /// The newest request of each kind; an answer carrying an older number is dropped.
    /// Held while an answer is checked and sent, so an older answer can never be sent
    /// after a newer question was asked.
    newest: Arc<Mutex<[u64; 4]>>,
}

impl Queries {
    pub fn new(project_dir: PathBuf, events: UnboundedSender<Event>) -> Queries {
        Queries {
            project_dir,
            events,
            newest: Arc::new(Mutex::new([0; 4])),
        }
    }

    /// Starts answering `query` on a blocking task of the current tokio runtime.
    pub fn ask(&self, query: Query) {
        let kind = kind(&query);
        let ticket = {
            let mut newest = self.newest.lock().unwrap_or_else(|e| e.into_inner());
            newest[kind] += 1;
            newest[kind]
        };
        let dir = self.project_dir.clone();
        let events = self.events.clone();
        let newest = Arc::clone(&self.newest);
        tokio::task::spawn_blocking(move || {
            let answer = answer(&dir, query);
            let newest = newest.lock().unwrap_or_else(|e| e.into_inner());
            if newest[kind] != ticket {
                return; // a newer question of this kind was asked meanwhile
            }
            if let Some(event) = answer {
                let _ = events.send(event);
            }
        });
    }
}

fn answer(dir: &std::path::Path, query: Query) -> Option<Event> {
    Some(match query {
        Query::History => match crate::project::git::log(dir) {
            Ok(commits) => Event::History(commits),
            Err(e) => Event::QueryFailed(format!("history: {e}")),
        },
        Query::Commit {
            id,
            short_id,
            summary,
        } => match history::artifacts_at(dir, &id) {
            Ok(artifacts) => Event::OldCycle {
                short_id,
                summary,
                artifacts,
            },
            Err(e) => Event::QueryFailed(format!("commit {short_id}: {e}")),
        },
        Query::PreviousCycle => match history::previous_cycle(dir) {
            Ok(previous) => Event::PreviousCycle(previous?),
            Err(e) => {
                tracing::debug!("previous cycle of {}: {e}", dir.display());
                return None;
            }
        },
        Query::Artifact(section) => {
            let design = crate::project::Layout::new(dir).design_dir();
            Event::Artifact {
                section,
                read: crate::design::write::read_design_file(&design, section)
                    .map(|text| text.unwrap_or_default().trim_end().to_string())
                    .map_err(|e| e.to_string()),
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::design::Artifacts;
    use crate::design::write::write_design_docs;
    use crate::project::{Layout, git};

    fn project_with_two_cycles() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        git::init(dir.path()).unwrap();
        for n in 1..=2 {
            let artifacts = Artifacts {
                architecture: format!("cycle {n}"),
                ..Artifacts::default()
            };
            write_design_docs(&Layout::new(dir.path()).design_dir(), &artifacts).unwrap();
            git::commit_all(dir.path(), &format!("Design cycle {n}")).unwrap();
        }
        dir
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn only_the_newest_question_of_a_kind_is_answered() {
        let dir = project_with_two_cycles();
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let queries = Queries::new(dir.path().to_path_buf(), tx);
        let commits = git::log(dir.path()).unwrap();
        for c in commits.iter().rev() {
            queries.ask(Query::Commit {
                id: c.id.clone(),
                short_id: c.short_id.clone(),
                summary: c.summary.clone(),
            });
        }
        queries.ask(Query::PreviousCycle);
        drop(queries);
        let mut seen = Vec::new();
        while let Some(event) = rx.recv().await {
            seen.push(event);
        }
        let old: Vec<&str> = seen
            .iter()
            .filter_map(|e| match e {
                Event::OldCycle { short_id, .. } => Some(short_id.as_str()),
                _ => None,
            })
            .collect();
        // The first question may be answered before the second is asked; the last
        // answer is always the newest question's.
        assert_eq!(old.last(), Some(&commits[0].short_id.as_str()), "{seen:?}");
        assert!(seen.iter().any(|e| matches!(
            e,
            Event::PreviousCycle(a) if a.architecture == "cycle 1"
        )));
    }
}

//! Update cycles answered with edit blocks: reading each answer against the design,
//! the one repair request and the request for whole sections when blocks fail, what
//! the cycle cost against a full rewrite, and the lines that tell the person.
//!
//! Pure like the machine that calls it: the session's [`PatchLedger`] goes in with
//! the answer, and what to journal, say and ask next comes out.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::brief::Brief;
use crate::design::edit::repair::{FailedBlock, RepairKind, RepairRequest, SectionRepair};
use crate::design::edit::stream::{PatchStream, SectionChange, Settled};
use crate::design::edit::{EditBlock, Failure, SEARCH_MARKER};
use crate::design::{Artifacts, PerSection, Section};
use crate::volk::journal::JournalEvent;

const REPAIR: &str = include_str!("../../assets/prompts/repair.md");
const FULL: &str = include_str!("../../assets/prompts/full_section.md");

/// Bytes per token, the estimate the call metrics use when a provider sends no usage,
/// so streamed and full-rewrite figures are measured alike.
const BYTES_PER_TOKEN: u64 = 4;

pub fn tokens(bytes: u64) -> u64 {
    bytes.div_ceil(BYTES_PER_TOKEN)
}

/// What one cycle cost: the tokens its answers streamed, and what writing the whole
/// design again would have (the five artifacts after the cycle); and what its
/// prompts cost on the way in, as the provider counted them or as estimated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Cost {
    pub streamed_tokens: u64,
    pub full_rewrite_tokens: u64,
    /// Input tokens of every call of the cycle.
    #[serde(default)]
    pub prompt_tokens: u64,
    /// Where `prompt_tokens` comes from: every call's `usage`, or (for any call
    /// without one) the 4-bytes-a-token estimate.
    #[serde(default)]
    pub prompt_tokens_source: TokenSource,
    /// Input tokens the provider read from its prompt cache, when it says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_prompt_tokens: Option<u64>,
}

/// Whether a token count is the provider's or volk's estimate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenSource {
    #[default]
    Usage,
    Estimate,
}

impl Cost {
    fn of(streamed_bytes: u64, design: &Artifacts) -> Cost {
        let size: usize = design.iter().map(|(_, t)| t.len()).sum();
        Cost {
            streamed_tokens: tokens(streamed_bytes),
            full_rewrite_tokens: tokens(size as u64),
            ..Cost::default()
        }
    }

    /// Whether an answer of the cycle was read. A call that failed or was cancelled
    /// records only what it sent (`record_input`), which is not yet the cycle's cost:
    /// the `cycle_cost` journal entry, which the live workbench shows, is written only
    /// once an answer is read. Whoever shows the ledger's costs (a resumed or second
    /// workbench) leaves such a cycle out, so every instance shows the same figure.
    pub fn answered(&self) -> bool {
        self.full_rewrite_tokens > 0
    }

    /// Tokens not streamed thanks to edit blocks (never negative).
    pub fn saved(&self) -> u64 {
        self.full_rewrite_tokens
            .saturating_sub(self.streamed_tokens)
    }

    /// The status-bar form: `this cycle 1.1k tok · full rewrite ≈ 9.6k`; once the
    /// input is known, as short: `cycle 1.1k out · 12k in (8.0k cached) · rewrite ≈
    /// 9.6k` (`~12k in` for an estimate).
    pub fn status(&self) -> String {
        if self.prompt_tokens == 0 {
            return format!(
                "this cycle {} tok · full rewrite ≈ {}",
                short(self.streamed_tokens),
                short(self.full_rewrite_tokens)
            );
        }
        format!(
            "cycle {} out · {} · rewrite ≈ {}",
            short(self.streamed_tokens),
            self.input(),
            short(self.full_rewrite_tokens)
        )
    }

    /// `12k in`, `~12k in`, `12k in (8.0k cached)`.
    pub fn input(&self) -> String {
        let about = match self.prompt_tokens_source {
            TokenSource::Usage => "",
            TokenSource::Estimate => "~",
        };
        match self.cached_prompt_tokens {
            Some(cached) if cached > 0 => format!(
                "{about}{} in ({} cached)",
                short(self.prompt_tokens),
                short(cached)
            ),
            _ => format!("{about}{} in", short(self.prompt_tokens)),
        }
    }

    /// Adds one call's input: the provider's usage, else the estimate from the
    /// prompt's size.
    pub fn add_input(&mut self, prompt_bytes: u64, usage: Option<crate::reasoner::Usage>) {
        match usage {
            Some(u) if u.prompt_tokens > 0 => {
                self.prompt_tokens += u.prompt_tokens;
                if u.cached_prompt_tokens > 0 {
                    *self.cached_prompt_tokens.get_or_insert(0) += u.cached_prompt_tokens;
                }
            }
            _ => {
                self.prompt_tokens += tokens(prompt_bytes);
                self.prompt_tokens_source = TokenSource::Estimate;
            }
        }
    }
}

/// `950`, `1.1k`, `12k`.
pub fn short(n: u64) -> String {
    match n {
        0..1_000 => n.to_string(),
        1_000..10_000 => format!("{:.1}k", n as f64 / 1000.0),
        _ => format!("{}k", (n + 500) / 1000),
    }
}

/// Which request of an update cycle an answer answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Round {
    Answer,
    Repair,
    Full,
}

/// What happened to one section over the cycle, for the status line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    pub applied: u32,
    pub failed: u32,
    pub repaired: u32,
    /// Written whole by the first answer.
    pub whole: bool,
    /// Asked for in full after a failed repair, and written.
    pub rewritten: bool,
    /// Blocks still failing when the cycle closed.
    pub unresolved: u32,
}

/// The update cycle in progress, saved so a retried or resumed call continues it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    pub cycle: u32,
    pub round: Round,
    /// The design with every block applied so far.
    pub working: Artifacts,
    pub streamed_bytes: u64,
    pub tally: PerSection<Tally>,
}

/// One answer as the architect wrote it, blocks and all.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RawAnswer {
    pub cycle: u32,
    pub round: Round,
    pub text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CycleCost {
    pub cycle: u32,
    #[serde(flatten)]
    pub cost: Cost,
}

/// The session's record of edit blocks: the cycle in progress, every update answer,
/// and every cycle's cost.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PatchLedger {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub progress: Option<Progress>,
    #[serde(default)]
    pub raw: Vec<RawAnswer>,
    #[serde(default)]
    pub costs: Vec<CycleCost>,
    /// The repairs the cycle in progress has asked for, with the text each showed:
    /// the same repair is never paid for twice in one cycle.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub asked: Vec<AskedRepair>,
}

/// A repair request as it went out: what it asked and the sections' text it showed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AskedRepair {
    pub cycle: u32,
    pub request: RepairRequest,
    pub shown: Vec<String>,
}

impl AskedRepair {
    fn of(cycle: u32, request: RepairRequest, design: &Artifacts) -> AskedRepair {
        let shown = request
            .sections
            .iter()
            .map(|s| design.get(s.section).to_string())
            .collect();
        AskedRepair {
            cycle,
            request,
            shown,
        }
    }
}

impl PatchLedger {
    pub fn cost(&self, cycle: u32) -> Option<Cost> {
        self.costs
            .iter()
            .rev()
            .find(|c| c.cycle == cycle)
            .map(|c| c.cost)
    }

    /// Tokens saved over every cycle so far.
    pub fn saved(&self) -> u64 {
        self.costs.iter().map(|c| c.cost.saved()).sum()
    }

    /// Records a cycle's cost. A cycle answered again (the design compiler asked for
    /// a repair) adds what the new answers streamed; the full rewrite is the design's
    /// size after the last of them.
    fn record(&mut self, cycle: u32, cost: Cost) -> Cost {
        match self.costs.iter_mut().find(|c| c.cycle == cycle) {
            Some(known) => {
                known.cost.streamed_tokens += cost.streamed_tokens;
                known.cost.full_rewrite_tokens = cost.full_rewrite_tokens;
                known.cost
            }
            None => {
                self.costs.push(CycleCost { cycle, cost });
                cost
            }
        }
    }

    /// Records what one call of `cycle` sent: its prompt tokens (the provider's
    /// count, else the estimate) and those read from the provider's cache.
    pub fn record_input(
        &mut self,
        cycle: u32,
        prompt_bytes: u64,
        usage: Option<crate::reasoner::Usage>,
    ) {
        let at = match self.costs.iter().position(|c| c.cycle == cycle) {
            Some(at) => at,
            None => {
                self.costs.push(CycleCost {
                    cycle,
                    cost: Cost::default(),
                });
                self.costs.len() - 1
            }
        };
        self.costs[at].cost.add_input(prompt_bytes, usage);
    }

    /// The first cycle: a whole design, so streamed and full rewrite are alike.
    pub fn first_cycle(&mut self, text: &str, design: &Artifacts) -> Cost {
        let cost = Cost::of(text.len() as u64, design);
        self.record(1, cost)
    }
}

/// What to do after an answer.
#[derive(Debug, Clone)]
pub enum Next {
    /// Ask again (a repair, or sections in full) with this brief.
    Ask(Box<Brief>),
    /// The cycle is done: this is the design.
    Done { artifacts: Artifacts },
}

/// A block refused because it touches settled text: dropped, never repaired.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dropped {
    pub section: Section,
    pub block: EditBlock,
}

/// An answer read: journal entries (event, detail), lines for the person, what next.
#[derive(Debug, Clone)]
pub struct Reading {
    pub journal: Vec<(JournalEvent, Value)>,
    pub notices: Vec<String>,
    /// Blocks dropped because they touch settled text.
    pub dropped: Vec<Dropped>,
    /// Sections a repair answer changed though the repair did not ask for them:
    /// not applied, and the answer's `CHANGES:` lines about them do not count.
    pub ignored: Vec<Section>,
    pub next: Next,
}

/// Reads one answer of update cycle `cycle`. `design` is the design the cycle
/// revises, `brief` the brief of the call answered, and `settled` finds the settled
/// byte ranges of a design (asked again for each follow-up, whose design differs).
///
/// An answer with no section at all (only `CHANGES:`, prose, or nothing) is an
/// answer too: "no (further) change". The cycle closes with what applied so far, so
/// no follow-up ever throws away what the earlier answers of the cycle applied.
pub fn read_answer(
    ledger: &mut PatchLedger,
    design: &Artifacts,
    cycle: u32,
    brief: &Brief,
    text: &str,
    settled: &dyn Fn(&Artifacts) -> Settled,
) -> Reading {
    let mut reading = Reading {
        journal: Vec::new(),
        notices: Vec::new(),
        dropped: Vec::new(),
        ignored: Vec::new(),
        next: Next::Done {
            artifacts: design.clone(),
        },
    };
    // A follow-up answer is read against the design the earlier answers left.
    let base = match &ledger.progress {
        Some(p) if p.cycle == cycle => p.working.clone(),
        _ => design.clone(),
    };
    let mut stream = PatchStream::with_settled(base.clone(), settled(&base));
    stream.feed(text);
    let mut progress = match ledger.progress.take() {
        Some(p) if p.cycle == cycle => p,
        _ => Progress {
            cycle,
            round: Round::Answer,
            working: design.clone(),
            streamed_bytes: 0,
            tally: PerSection::default(),
        },
    };
    let round = progress.round;
    ledger.raw.push(RawAnswer {
        cycle,
        round,
        text: text.to_string(),
    });
    progress.streamed_bytes += text.len() as u64;
    let outcome = stream.finish();
    let asked = brief.asked_sections();
    let mut failing: Vec<SectionRepair> = Vec::new();
    let mut only_blocks = true;
    for section in Section::ALL {
        let change = outcome.get(section);
        let tally = &mut progress.tally[section];
        let unasked = asked.as_ref().is_some_and(|a| !a.contains(&section));
        if unasked && !matches!(change, SectionChange::Kept) {
            only_blocks &= matches!(change, SectionChange::Patched { .. });
            reading.ignored.push(section);
            continue;
        }
        match change {
            SectionChange::Kept => continue,
            SectionChange::Whole(text) => {
                // The protocol makes a section with any other text whole; when that
                // text holds edit blocks too, the person should look at it.
                let mixed = text.lines().any(|l| l.trim() == SEARCH_MARKER);
                if mixed {
                    reading.notices.push(format!(
                        "{}: edit blocks mixed with other text; the section was replaced whole, please check it",
                        section.title()
                    ));
                }
                reading.journal.push((
                    JournalEvent::SectionRewritten,
                    json!({ "section": section.key(), "round": round, "mixed_with_blocks": mixed }),
                ));
                match round {
                    Round::Answer => tally.whole = true,
                    Round::Repair => tally.repaired += tally.failed,
                    Round::Full => tally.rewritten = true,
                }
                tally.unresolved = 0;
            }
            SectionChange::Patched { blocks, .. } => {
                let mut failures = Vec::new();
                for (index, b) in blocks.iter().enumerate() {
                    let detail = match &b.result {
                        Ok(applied) => json!({
                            "section": section.key(), "round": round, "block": index + 1,
                            "outcome": "applied", "match": applied.how,
                            "removed": applied.removed, "added": applied.added,
                        }),
                        // Settled text is not negotiated: the block goes, and no
                        // repair round asks about it.
                        Err(failure @ Failure::Settled) => {
                            reading.dropped.push(Dropped {
                                section,
                                block: b.block.clone(),
                            });
                            reading.notices.push(format!(
                                "{}: a block touching settled text was dropped",
                                section.title()
                            ));
                            json!({
                                "section": section.key(), "round": round, "block": index + 1,
                                "outcome": "dropped", "reason": failure.code(),
                                "message": failure.to_string(),
                            })
                        }
                        Err(failure) => {
                            failures.push(FailedBlock {
                                block: b.block.clone(),
                                reason: failure.to_string(),
                            });
                            json!({
                                "section": section.key(), "round": round, "block": index + 1,
                                "outcome": "failed", "reason": failure.code(),
                                "message": failure.to_string(),
                            })
                        }
                    };
                    reading.journal.push((JournalEvent::EditBlock, detail));
                }
                let dropped = reading
                    .dropped
                    .iter()
                    .filter(|d| d.section == section)
                    .count();
                let applied = blocks.len().saturating_sub(failures.len() + dropped) as u32;
                match round {
                    Round::Answer => {
                        tally.applied += applied;
                        tally.failed += failures.len() as u32;
                    }
                    Round::Repair if failures.is_empty() => tally.repaired += tally.failed,
                    Round::Repair => {}
                    Round::Full if failures.is_empty() => tally.rewritten = true,
                    Round::Full => {}
                }
                tally.unresolved = failures.len() as u32;
                if !failures.is_empty() {
                    failing.push(SectionRepair { section, failures });
                }
            }
        }
    }
    progress.working = outcome.artifacts(&progress.working);
    if !reading.ignored.is_empty() {
        // The repair's answer has no say over what the repair did not ask about.
        for section in &reading.ignored {
            progress
                .working
                .set(*section, base.get(*section).to_string());
        }
        let keys: Vec<&str> = reading.ignored.iter().map(|s| s.key()).collect();
        let what = if only_blocks { "edited" } else { "rewrote" };
        reading.notices.push(format!(
            "repair answer also {what} {}, which the repair did not ask for: ignored",
            keys.join(", ")
        ));
        reading.journal.push((
            JournalEvent::UnaskedSectionsIgnored,
            json!({
                "round": round,
                "sections": keys,
                "asked": asked.unwrap_or_default().iter().map(|s| s.key()).collect::<Vec<_>>(),
            }),
        ));
    }
    let next_round = match (round, failing.is_empty()) {
        (_, true) | (Round::Full, _) => None,
        (Round::Answer, false) => Some(Round::Repair),
        (Round::Repair, false) => Some(Round::Full),
    };
    // A repair the cycle already asked for, over the same text, would get the same
    // answer: ask for the sections in full instead, and after that for nothing more.
    ledger.asked.retain(|a| a.cycle == cycle);
    let repeats = |kind: RepairKind| {
        let request = RepairRequest {
            kind,
            sections: failing.clone(),
        };
        ledger
            .asked
            .contains(&AskedRepair::of(cycle, request, &progress.working))
    };
    let next_round = match next_round {
        Some(Round::Repair) if repeats(RepairKind::Blocks) => {
            reading.notices.push(format!(
                "cycle {cycle}: this block repair was already asked for in this cycle"
            ));
            (!repeats(RepairKind::Full)).then_some(Round::Full)
        }
        Some(Round::Full) if repeats(RepairKind::Full) => None,
        other => other,
    };
    match next_round {
        Some(next) => {
            let kind = match next {
                Round::Full => RepairKind::Full,
                _ => RepairKind::Blocks,
            };
            let names: Vec<&str> = failing.iter().map(|s| s.section.title()).collect();
            reading.notices.push(match kind {
                RepairKind::Blocks => format!(
                    "cycle {cycle}: blocks failed in {}; asking for a repair",
                    names.join(", ")
                ),
                RepairKind::Full => format!(
                    "cycle {cycle}: the repair failed in {}; asking for the section in full",
                    names.join(", ")
                ),
            });
            reading.journal.push((
                JournalEvent::EditRepairRequested,
                json!({ "kind": kind, "sections": failing.iter().map(|s| s.section.key()).collect::<Vec<_>>() }),
            ));
            let mut ask = brief.clone();
            ask.current = Some(progress.working.clone());
            let request = RepairRequest {
                kind,
                sections: failing,
            };
            ledger
                .asked
                .push(AskedRepair::of(cycle, request.clone(), &progress.working));
            ask.repair = Some(request);
            progress.round = next;
            ledger.progress = Some(progress);
            reading.next = Next::Ask(Box::new(ask));
        }
        None => {
            let cost = ledger.record(cycle, Cost::of(progress.streamed_bytes, &progress.working));
            if let Some(line) = status_line(&progress.tally) {
                reading.notices.push(line);
            }
            reading.journal.push((
                JournalEvent::CycleCost,
                json!({ "cycle": cycle, "cost": cost, "sections": section_tallies(&progress.tally) }),
            ));
            reading.notices.push(cost.status());
            reading.next = Next::Done {
                artifacts: progress.working,
            };
        }
    }
    reading
}

/// The `CHANGES:` lines of an answer without those about `ignored` sections, whose
/// changes were not applied. Lines that cannot be read stay, to be reported.
pub fn changes_without(changes: &str, ignored: &[Section]) -> String {
    changes
        .lines()
        .filter(|line| {
            let about = crate::design::changes::parse_changes(line);
            !about.lines.iter().any(|c| {
                matches!(c.target, crate::design::changes::Target::Artifact(s) if ignored.contains(&s))
            })
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn section_tallies(tally: &PerSection<Tally>) -> Value {
    let mut out = serde_json::Map::new();
    for section in Section::ALL {
        let t = tally[section];
        if t != Tally::default() {
            out.insert(section.key().into(), json!(t));
        }
    }
    Value::Object(out)
}

fn plural(n: u32, one: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {one}s")
    }
}

/// `API spec: 2 blocks applied, 1 repaired; Architecture: rewritten whole`.
pub fn status_line(tally: &PerSection<Tally>) -> Option<String> {
    let mut parts = Vec::new();
    for section in Section::ALL {
        let t = tally[section];
        let mut what = Vec::new();
        if t.whole {
            what.push("rewritten whole".to_string());
        }
        if t.applied > 0 {
            what.push(format!("{} applied", plural(t.applied, "block")));
        }
        if t.repaired > 0 {
            what.push(format!("{} repaired", t.repaired));
        }
        if t.rewritten {
            what.push("asked for in full".to_string());
        }
        if t.unresolved > 0 {
            what.push(format!("{} not applied", plural(t.unresolved, "block")));
        }
        if !what.is_empty() {
            parts.push(format!("{}: {}", section.title(), what.join(", ")));
        }
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// How much of each half of a failed block the repair request shows back. A block that
/// matched nothing can be as long as the model made it; echoing it whole could push the
/// repair past the model's context window, and a retried step would fail the same way.
const ECHO_LIMIT: usize = 4096;

/// A failed block as the repair request shows it: each half clipped at a line end near
/// [`ECHO_LIMIT`], with a note of what was left out.
fn echoed(block: &EditBlock) -> String {
    fn clip(text: &str) -> String {
        if text.len() <= ECHO_LIMIT {
            return text.to_string();
        }
        let mut end = ECHO_LIMIT;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let end = text[..end].rfind('\n').unwrap_or(end);
        format!(
            "{}\n… ({} more bytes not shown)",
            &text[..end],
            text.len() - end
        )
    }
    EditBlock::new(clip(&block.search), clip(&block.replace)).render()
}

/// The prompt of a follow-up request: the failed blocks and why, or the sections to
/// write in full, each with its current text.
pub fn repair_prompt(brief: &Brief, repair: &RepairRequest) -> String {
    let current = brief.current.clone().unwrap_or_default();
    let mut sections = String::new();
    for s in &repair.sections {
        let _ = writeln!(
            sections,
            "## {}\n\nCurrent text of {}:\n\n{}:\n{}\n",
            s.section.title(),
            s.section.title(),
            s.section.marker(),
            current.get(s.section)
        );
        if repair.kind == RepairKind::Blocks {
            for (i, f) in s.failures.iter().enumerate() {
                let _ = writeln!(
                    sections,
                    "Failed block {} ({}):\n\n{}",
                    i + 1,
                    f.reason,
                    echoed(&f.block)
                );
            }
        }
    }
    let markers: Vec<String> = repair
        .sections
        .iter()
        .map(|s| format!("{}:", s.section.marker()))
        .collect();
    let template = match repair.kind {
        RepairKind::Blocks => REPAIR,
        RepairKind::Full => FULL,
    };
    crate::template::render(
        template,
        &[
            ("cycle", &brief.cycle.to_string()),
            ("markers", &markers.join(", ")),
            ("sections", &sections),
            ("task_summary", &brief.task_summary),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::design::edit::EditBlock;

    fn design() -> Artifacts {
        Artifacts {
            architecture: "# A\n\n## Open questions\n\n1. Schema?".into(),
            requirements: "FR-01: add".into(),
            file_tree: "src/\n  a.py".into(),
            api_spec: "add(name: str) -> int\nlist() -> list".into(),
            class_diagram: "classDiagram\n  class A".into(),
        }
    }

    fn block(search: &str, replace: &str) -> String {
        EditBlock::new(search, replace).render()
    }

    fn no_settled(_: &Artifacts) -> Settled {
        Settled::default()
    }

    #[test]
    fn a_block_in_settled_text_is_dropped_and_asks_for_no_repair() {
        let mut ledger = PatchLedger::default();
        let settle_first_line = |design: &Artifacts| {
            let mut settled = Settled::default();
            let spec = &design.api_spec;
            let end = spec.find('\n').unwrap_or(spec.len());
            settled[Section::ApiSpec].push(0..end);
            settled
        };
        let text = format!(
            "API_SPEC:\n{}{}",
            block("add(name: str) -> int", "add(name: str, due: date) -> int"),
            block("list() -> list", "list() -> list[Task]")
        );
        let r = read_answer(
            &mut ledger,
            &design(),
            2,
            &Brief::default(),
            &text,
            &settle_first_line,
        );
        let Next::Done { artifacts, .. } = r.next else {
            panic!("{:?}", r.next)
        };
        assert_eq!(
            artifacts.api_spec, "add(name: str) -> int\nlist() -> list[Task]",
            "the settled line stays, the other block applies"
        );
        assert_eq!(r.dropped.len(), 1);
        assert_eq!(r.dropped[0].section, Section::ApiSpec);
        assert!(
            r.journal
                .iter()
                .any(|(e, d)| *e == JournalEvent::EditBlock && d["reason"] == "settled")
        );
        assert!(r.notices.iter().any(|n| n == "API spec: 1 block applied"));
    }

    #[test]
    fn an_answer_without_sections_keeps_what_applied_and_closes_the_cycle() {
        let mut ledger = PatchLedger::default();
        let text = format!(
            "API_SPEC:\n{}{}",
            block("add(name: str) -> int", "add(name: str, due: date) -> int"),
            block("remove() -> None", "delete() -> None")
        );
        let brief = Brief {
            cycle: 2,
            ..Brief::default()
        };
        let r = read_answer(&mut ledger, &design(), 2, &brief, &text, &no_settled);
        let Next::Ask(ask) = r.next else { panic!() };
        for polite in [
            "CHANGES:\n- Q1.1 none: nothing more to change\n",
            "I leave it.",
            "",
        ] {
            let mut again = ledger.clone();
            let r = read_answer(&mut again, &design(), 2, &ask, polite, &no_settled);
            let Next::Done { artifacts } = r.next else {
                panic!("{polite:?}: {:?}", r.next)
            };
            let cost = again.cost(2).unwrap();
            assert!(
                artifacts
                    .api_spec
                    .starts_with("add(name: str, due: date) -> int")
            );
            assert_eq!(
                cost.streamed_tokens,
                tokens((text.len() + polite.len()) as u64)
            );
            assert!(again.progress.is_none());
        }
    }

    #[test]
    fn clean_blocks_close_the_cycle_with_its_cost() {
        let mut ledger = PatchLedger::default();
        let text = format!(
            "API_SPEC:\n{}{}",
            block("add(name: str) -> int", "add(name: str, due: date) -> int"),
            block("list() -> list", "list() -> list[Task]")
        );
        let r = read_answer(
            &mut ledger,
            &design(),
            2,
            &Brief::default(),
            &text,
            &no_settled,
        );
        let Next::Done { artifacts } = r.next else {
            panic!("{:?}", r.next)
        };
        let cost = ledger.cost(2).unwrap();
        assert_eq!(
            artifacts.api_spec,
            "add(name: str, due: date) -> int\nlist() -> list[Task]"
        );
        assert_eq!(artifacts.architecture, design().architecture);
        assert_eq!(cost.streamed_tokens, tokens(text.len() as u64));
        assert_eq!(ledger.cost(2), Some(cost));
        assert!(r.notices.iter().any(|n| n == "API spec: 2 blocks applied"));
        assert_eq!(
            r.journal
                .iter()
                .filter(|(e, _)| *e == JournalEvent::EditBlock)
                .count(),
            2
        );
        assert_eq!(ledger.raw.len(), 1);
        assert!(ledger.progress.is_none());
    }

    #[test]
    fn a_huge_failed_block_is_shown_back_clipped() {
        let mut ledger = PatchLedger::default();
        let brief = Brief {
            cycle: 2,
            ..Brief::default()
        };
        let huge = format!("remove() -> None\n{}", "é".repeat(1_000_000));
        let text = format!("API_SPEC:\n{}", block(&huge, "delete() -> None"));
        let r = read_answer(&mut ledger, &design(), 2, &brief, &text, &no_settled);
        let Next::Ask(ask) = r.next else { panic!() };
        let prompt = repair_prompt(&ask, ask.repair.as_ref().unwrap());
        assert!(prompt.len() < 64 * 1024, "prompt is {} bytes", prompt.len());
        assert!(
            prompt.contains("remove() -> None"),
            "the block's start is shown"
        );
        assert!(prompt.contains("delete() -> None"));
        assert!(prompt.contains("more bytes not shown"));
    }

    #[test]
    fn a_failed_block_asks_once_for_a_repair_then_for_the_section_in_full() {
        let mut ledger = PatchLedger::default();
        let brief = Brief {
            cycle: 2,
            ..Brief::default()
        };
        let text = format!(
            "API_SPEC:\n{}{}",
            block("add(name: str) -> int", "add(name: str, due: date) -> int"),
            block("remove() -> None", "delete() -> None")
        );
        let r = read_answer(&mut ledger, &design(), 2, &brief, &text, &no_settled);
        let Next::Ask(ask) = r.next else { panic!() };
        let repair = ask.repair.clone().unwrap();
        assert_eq!(repair.kind, RepairKind::Blocks);
        assert_eq!(repair.sections[0].section, Section::ApiSpec);
        let prompt = repair_prompt(&ask, &repair);
        assert!(prompt.contains("remove() -> None"));
        assert!(prompt.contains("no match"));
        assert!(
            prompt.contains("add(name: str, due: date) -> int"),
            "current text carries the applied block"
        );

        // The repair fails too: the section is asked for in full.
        let again = format!("API_SPEC:\n{}", block("drop() -> None", "x"));
        let r = read_answer(&mut ledger, &design(), 2, &ask, &again, &no_settled);
        let Next::Ask(full) = r.next else { panic!() };
        assert_eq!(full.repair.as_ref().unwrap().kind, RepairKind::Full);
        let prompt = repair_prompt(&full, full.repair.as_ref().unwrap());
        assert!(prompt.contains("in full"));

        let whole = "API_SPEC:\nadd(name: str, due: date) -> int\ndelete() -> None\n";
        let r = read_answer(&mut ledger, &design(), 2, &full, whole, &no_settled);
        let Next::Done { artifacts } = r.next else {
            panic!()
        };
        let cost = ledger.cost(2).unwrap();
        assert_eq!(
            artifacts.api_spec,
            "add(name: str, due: date) -> int\ndelete() -> None"
        );
        assert_eq!(
            cost.streamed_tokens,
            tokens((text.len() + again.len() + whole.len()) as u64)
        );
        assert!(
            r.notices
                .iter()
                .any(|n| n == "API spec: 1 block applied, asked for in full")
        );
        assert_eq!(ledger.raw.len(), 3);
    }

    /// A later pass of the same cycle (the design compiler's) that fails the same
    /// block over the same text gets no second identical repair: it is asked for the
    /// section in full, and after that the cycle closes with what applied.
    #[test]
    fn a_repair_already_asked_in_the_cycle_is_not_asked_again() {
        let mut ledger = PatchLedger::default();
        let brief = Brief {
            cycle: 2,
            ..Brief::default()
        };
        let miss = format!("API_SPEC:\n{}", block("no such line", "x"));
        let r = read_answer(&mut ledger, &design(), 2, &brief, &miss, &no_settled);
        let Next::Ask(ask) = r.next else { panic!() };
        assert_eq!(ask.repair.as_ref().unwrap().kind, RepairKind::Blocks);
        // The repair answers about nothing it was asked: the cycle closes.
        let r = read_answer(
            &mut ledger,
            &design(),
            2,
            &ask,
            "nothing to add",
            &no_settled,
        );
        assert!(matches!(r.next, Next::Done { .. }));

        // A new pass (the design compiler's) starts over and misses the same way.
        ledger.progress = None;
        let r = read_answer(&mut ledger, &design(), 2, &brief, &miss, &no_settled);
        let Next::Ask(full) = r.next else { panic!() };
        assert_eq!(full.repair.as_ref().unwrap().kind, RepairKind::Full);
        assert!(r.notices.iter().any(|n| n.contains("already asked for")));
        let r = read_answer(&mut ledger, &design(), 2, &full, "", &no_settled);
        assert!(matches!(r.next, Next::Done { .. }));

        // And once more: nothing is left to ask that was not asked.
        ledger.progress = None;
        let r = read_answer(&mut ledger, &design(), 2, &brief, &miss, &no_settled);
        let Next::Done { artifacts } = r.next else {
            panic!("asked again: {:?}", r.next)
        };
        assert_eq!(artifacts.api_spec, design().api_spec);

        // The next cycle asks afresh.
        let next = Brief {
            cycle: 3,
            ..Brief::default()
        };
        let r = read_answer(&mut ledger, &design(), 3, &next, &miss, &no_settled);
        assert!(matches!(r.next, Next::Ask(_)));
        assert_eq!(ledger.asked.len(), 1);
    }

    #[test]
    fn a_block_repair_answer_may_change_only_the_sections_it_asked_for() {
        let mut ledger = PatchLedger::default();
        let text = format!(
            "API_SPEC:\n{}",
            block("remove() -> None", "delete() -> None")
        );
        let r = read_answer(
            &mut ledger,
            &design(),
            2,
            &Brief::default(),
            &text,
            &no_settled,
        );
        assert!(r.ignored.is_empty(), "the main answer may change anything");
        let Next::Ask(ask) = r.next else { panic!() };
        assert_eq!(ask.asked_sections(), Some(vec![Section::ApiSpec]));
        // The repair fixes the block, and also rewrites the file tree and patches the
        // requirements, which nobody asked about.
        let fix = format!(
            "FILE_TREE:\n/etc/passwd\n\nREQUIREMENTS:\n{}\nAPI_SPEC:\n{}",
            block("FR-01: add", "FR-01: add\nFR-09: rm -rf"),
            block("list() -> list", "list() -> list\ndelete() -> None")
        );
        let r = read_answer(&mut ledger, &design(), 2, &ask, &fix, &no_settled);
        assert_eq!(r.ignored, vec![Section::Requirements, Section::FileTree]);
        let Next::Done { artifacts, .. } = r.next else {
            panic!()
        };
        assert_eq!(
            artifacts.api_spec,
            "add(name: str) -> int\nlist() -> list\ndelete() -> None"
        );
        assert_eq!(artifacts.file_tree, design().file_tree);
        assert_eq!(artifacts.requirements, design().requirements);
        let notices: Vec<&String> = r
            .notices
            .iter()
            .filter(|n| n.contains("did not ask for"))
            .collect();
        assert_eq!(
            notices,
            [
                "repair answer also rewrote requirements, file_tree, which the repair did not ask for: ignored"
            ]
        );
        let ignored: Vec<&Value> = r
            .journal
            .iter()
            .filter(|(e, _)| *e == JournalEvent::UnaskedSectionsIgnored)
            .map(|(_, d)| d)
            .collect();
        assert_eq!(ignored.len(), 1);
        assert_eq!(ignored[0]["sections"], json!(["requirements", "file_tree"]));
        assert_eq!(ignored[0]["asked"], json!(["api_spec"]));
        assert_eq!(ignored[0]["round"], "repair");
        // No block of an ignored section is journaled as applied.
        assert!(
            !r.journal
                .iter()
                .any(|(e, d)| *e == JournalEvent::EditBlock && d["section"] == "requirements")
        );
    }

    #[test]
    fn a_design_compiler_repair_asks_about_the_sections_with_findings() {
        let mut ledger = PatchLedger::default();
        let brief = Brief {
            cycle: 2,
            current: Some(design()),
            pass: crate::brief::Pass::LintRepair,
            lint_sections: vec![Section::ClassDiagram],
            ..Brief::default()
        };
        let fix = format!(
            "CLASS_DIAGRAM:\n{}\nARCHITECTURE:\n{}",
            block("class A", "class A\n  class B"),
            block("# A", "# Rewritten")
        );
        let r = read_answer(&mut ledger, &design(), 2, &brief, &fix, &no_settled);
        assert_eq!(r.ignored, vec![Section::Architecture]);
        assert!(r.notices.iter().any(|n| n
            == "repair answer also edited architecture, which the repair did not ask for: ignored"));
        let Next::Done { artifacts, .. } = r.next else {
            panic!()
        };
        assert!(artifacts.class_diagram.contains("class B"));
        assert_eq!(artifacts.architecture, design().architecture);
        // The cycle's own request is not limited.
        let main = Brief {
            pass: crate::brief::Pass::Main,
            ..brief
        };
        assert_eq!(main.asked_sections(), None);
    }

    #[test]
    fn changes_lines_about_an_ignored_section_are_dropped() {
        let changes = "- Q2.1 api_spec: renamed remove\n- - file_tree: moved\n- D030 FILE_TREE: x\nnot a line";
        assert_eq!(
            changes_without(changes, &[Section::FileTree]),
            "- Q2.1 api_spec: renamed remove\nnot a line"
        );
    }

    #[test]
    fn a_repair_that_applies_counts_as_repaired() {
        let mut ledger = PatchLedger::default();
        let text = format!(
            "API_SPEC:\n{}{}{}",
            block("add(name: str) -> int", "add(name: str, due: date) -> int"),
            block("list() -> list", "list() -> list[Task]"),
            block("remove() -> None", "delete() -> None")
        );
        let r = read_answer(
            &mut ledger,
            &design(),
            2,
            &Brief::default(),
            &text,
            &no_settled,
        );
        let Next::Ask(ask) = r.next else { panic!() };
        let fix = format!("API_SPEC:\n{}", block("", "delete() -> None"));
        let r = read_answer(&mut ledger, &design(), 2, &ask, &fix, &no_settled);
        assert!(matches!(r.next, Next::Done { .. }));
        assert!(
            r.notices
                .iter()
                .any(|n| n == "API spec: 2 blocks applied, 1 repaired"),
            "{:?}",
            r.notices
        );
    }

    #[test]
    fn a_repair_answer_ending_with_its_changes_still_closes_the_cycle() {
        let mut ledger = PatchLedger::default();
        let text = format!(
            "API_SPEC:\n{}CHANGES:\n- Q1.1 api_spec: renamed remove\n",
            block("remove() -> None", "delete() -> None")
        );
        let r = read_answer(
            &mut ledger,
            &design(),
            2,
            &Brief::default(),
            &text,
            &no_settled,
        );
        let Next::Ask(ask) = r.next else {
            panic!("{:?}", r.next)
        };
        let fix = format!(
            "API_SPEC:\n{}\nCHANGES:\n- Q1.1 api_spec: added delete\n",
            block("", "delete() -> None")
        );
        let r = read_answer(&mut ledger, &design(), 2, &ask, &fix, &no_settled);
        let Next::Done { artifacts, .. } = r.next else {
            panic!("{:?}", r.next)
        };
        assert!(
            artifacts.api_spec.ends_with("delete() -> None"),
            "{}",
            artifacts.api_spec
        );
        assert!(
            !artifacts.api_spec.contains("CHANGES"),
            "{}",
            artifacts.api_spec
        );
    }

    #[test]
    fn blocks_mixed_with_other_text_replace_the_section_whole_with_a_warning() {
        let mut ledger = PatchLedger::default();
        let text = format!(
            "API_SPEC:\napi_spec.md\n{}",
            block("list() -> list", "list() -> list[Task]")
        );
        let r = read_answer(
            &mut ledger,
            &design(),
            2,
            &Brief::default(),
            &text,
            &no_settled,
        );
        let Next::Done { artifacts, .. } = r.next else {
            panic!("{:?}", r.next)
        };
        assert!(
            artifacts
                .api_spec
                .starts_with("api_spec.md\n<<<<<<< SEARCH")
        );
        assert!(
            r.notices
                .iter()
                .any(|n| n.starts_with("API spec: edit blocks mixed with other text"))
        );
    }

    #[test]
    fn short_figures() {
        assert_eq!(short(950), "950");
        assert_eq!(short(1_100), "1.1k");
        assert_eq!(short(9_600), "9.6k");
        assert_eq!(short(12_400), "12k");
        let mut cost = Cost {
            streamed_tokens: 1_100,
            full_rewrite_tokens: 9_600,
            ..Cost::default()
        };
        assert_eq!(cost.status(), "this cycle 1.1k tok · full rewrite ≈ 9.6k");
        cost.add_input(
            0,
            Some(crate::reasoner::Usage {
                prompt_tokens: 12_000,
                completion_tokens: 1_100,
                cached_prompt_tokens: 8_000,
            }),
        );
        assert_eq!(
            cost.status(),
            "cycle 1.1k out · 12k in (8.0k cached) · rewrite ≈ 9.6k"
        );
        cost.add_input(4_000, None);
        assert_eq!(cost.prompt_tokens, 13_000);
        assert_eq!(cost.prompt_tokens_source, TokenSource::Estimate);
        assert!(cost.input().starts_with("~13k in"));
    }
}

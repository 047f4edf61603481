//! The live view of an update answer and the cost meter.
//!
//! While an update streams, each tab shows its section as the blocks so far make it:
//! a section the answer has not reached shows the current text, a patched one shows
//! the text with every applied block and its new lines marked, a whole one streams as
//! in cycle 1. The half-written block is named in the tab's title, never applied.

use crate::design::edit::stream::{LiveView, PatchStream};
use crate::design::parser::SectionParser;
use crate::design::{Artifacts, PerSection, Section};
use crate::tui::document::Document;
use crate::volk::patch_cycle::{Cost, CycleCost, short};

/// What a section's document shows now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shown {
    Current,
    /// Patched, drawn after this many blocks.
    Blocks(usize),
    Whole,
}

/// Whether the caller still has to stream the section's text itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Synced {
    /// Written whole: stream the parser's lines as for a first design.
    Whole,
    /// The document is up to date.
    Done,
}

/// An update answer being drawn.
#[derive(Debug, Clone)]
pub struct LivePatch {
    stream: PatchStream,
    shown: PerSection<Shown>,
}

impl LivePatch {
    /// Draws on top of `current`, the design the answer revises.
    pub fn new(current: Artifacts) -> LivePatch {
        LivePatch {
            stream: PatchStream::new(current),
            shown: PerSection::from_fn(|_| Shown::Current),
        }
    }

    pub fn feed(&mut self, text: &str) -> Option<Section> {
        self.stream.feed(text)
    }

    pub fn parser(&self) -> &SectionParser {
        self.stream.parser()
    }

    /// The design as this answer leaves it (the base of a repair that follows).
    pub fn design(&self) -> Artifacts {
        let base = self.stream.base().clone();
        self.stream.clone().finish().artifacts(&base)
    }

    /// Brings `doc` (and its new-line `marks`) up to date for `section`. On the
    /// switch to a whole section the document is emptied and `consumed` reset, so the
    /// caller streams it from its first line.
    pub fn sync(
        &mut self,
        section: Section,
        doc: &mut Document,
        marks: &mut Vec<bool>,
        consumed: &mut usize,
    ) -> Synced {
        match self.stream.view(section) {
            LiveView::Untouched => Synced::Done,
            LiveView::Whole => {
                if self.shown[section] != Shown::Whole {
                    self.shown[section] = Shown::Whole;
                    doc.clear();
                    marks.clear();
                    *consumed = 0;
                }
                Synced::Whole
            }
            LiveView::Blocks { patch, .. } => {
                let blocks = self.stream.blocks(section);
                if self.shown[section] != Shown::Blocks(blocks) {
                    self.shown[section] = Shown::Blocks(blocks);
                    if let Some(patch) = patch {
                        doc.set_text(&patch.text());
                        *marks = patch.lines().map(|(_, fresh)| fresh).collect();
                    }
                }
                doc.set_tail("");
                Synced::Done
            }
        }
    }

    /// The line to keep in view in a patched section: where the block being written
    /// will land, else the last block that applied.
    pub fn focus(&self, section: Section) -> Option<usize> {
        let LiveView::Blocks { patch, pending, .. } = self.stream.view(section) else {
            return None;
        };
        let at_last = self.stream.last_applied(section);
        let Some(first) = pending.and_then(|p| p.search.iter().find(|l| !l.trim().is_empty()))
        else {
            return at_last;
        };
        let wanted = first.trim();
        match patch {
            Some(patch) => patch.lines().position(|(l, _)| l.trim() == wanted),
            None => self
                .stream
                .base()
                .get(section)
                .split('\n')
                .position(|l| l.trim() == wanted),
        }
        .or(at_last)
    }

    /// `2 blocks applied · block 3 pending (SEARCH 2 lines, REPLACE 1)`, for the tab
    /// title while a section is patched.
    pub fn label(&self, section: Section) -> Option<String> {
        let LiveView::Blocks {
            pending,
            applied,
            failed,
            ..
        } = self.stream.view(section)
        else {
            return None;
        };
        let mut parts = vec![format!(
            "{applied} block{} applied",
            if applied == 1 { "" } else { "s" }
        )];
        if failed > 0 {
            parts.push(format!("{failed} failed"));
        }
        if let Some(p) = pending {
            let lines = |n: usize| format!("{n} line{}", if n == 1 { "" } else { "s" });
            let replace = p.replace.map_or("…".to_string(), |r| lines(r.len()));
            parts.push(format!(
                "block {} pending (SEARCH {}, REPLACE {replace})",
                applied + failed + 1,
                lines(p.search.len())
            ));
        }
        Some(parts.join(" · "))
    }
}

/// Each cycle's cost as the journal reports it, for the status bar and the summary.
#[derive(Debug, Clone, Default)]
pub struct CostMeter {
    costs: Vec<(u32, Cost)>,
}

impl CostMeter {
    /// The costs the core computed (on `volk open`, and after every transition): the
    /// cycles whose answer was read (see [`Cost::answered`]), so a failed call's input
    /// alone never shows as a cycle.
    pub fn restore(&mut self, costs: &[CycleCost]) {
        self.costs = costs
            .iter()
            .filter(|c| c.cost.answered())
            .map(|c| (c.cycle, c.cost))
            .collect();
    }

    pub fn latest(&self) -> Option<Cost> {
        self.costs.last().map(|(_, c)| *c)
    }

    /// `12k tokens saved over 2 update cycles`, once an update cycle is done.
    pub fn summary(&self) -> Option<String> {
        let updates: Vec<&Cost> = self
            .costs
            .iter()
            .filter(|(c, _)| *c > 1)
            .map(|(_, cost)| cost)
            .collect();
        if updates.is_empty() {
            return None;
        }
        let saved: u64 = updates.iter().map(|c| c.saved()).sum();
        let streamed: u64 = updates.iter().map(|c| c.streamed_tokens).sum();
        let full: u64 = updates.iter().map(|c| c.full_rewrite_tokens).sum();
        // What the prompts cost on the way in, over every cycle (the first too).
        let mut input = Cost::default();
        for (_, c) in &self.costs {
            input.prompt_tokens += c.prompt_tokens;
            if c.prompt_tokens_source == crate::volk::patch_cycle::TokenSource::Estimate {
                input.prompt_tokens_source = c.prompt_tokens_source;
            }
            if let Some(cached) = c.cached_prompt_tokens {
                *input.cached_prompt_tokens.get_or_insert(0) += cached;
            }
        }
        let inward = if input.prompt_tokens > 0 {
            format!(", {}", input.input())
        } else {
            String::new()
        };
        Some(format!(
            "{} tokens saved over {} update cycle{} ({} streamed{inward}, full rewrites ≈ {})",
            short(saved),
            updates.len(),
            if updates.len() == 1 { "" } else { "s" },
            short(streamed),
            short(full)
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::highlight::Grammar;

    fn current() -> Artifacts {
        Artifacts {
            api_spec: "Module: a\n  add(x) -> int\n  list() -> list".into(),
            file_tree: "src/\n  a.py".into(),
            ..Artifacts::default()
        }
    }

    #[test]
    fn a_patched_section_shows_applied_blocks_marked_and_names_the_pending_one() {
        let mut live = LivePatch::new(current());
        let mut doc = Document::new(Grammar::Plain, "base16-ocean.dark");
        doc.set_text(&current().api_spec);
        let (mut marks, mut consumed) = (Vec::new(), 0);
        live.feed("API_SPEC:\n<<<<<<< SEARCH\n  add(x) -> int\n=======\n  add(x, y) -> int\n>>>>>>> REPLACE\n<<<<<<< SEARCH\n  list() -> list\n=====");
        let synced = live.sync(Section::ApiSpec, &mut doc, &mut marks, &mut consumed);
        assert_eq!(synced, Synced::Done);
        assert_eq!(
            doc.text(),
            "Module: a\n  add(x, y) -> int\n  list() -> list"
        );
        assert_eq!(marks, [false, true, false]);
        assert_eq!(
            live.label(Section::ApiSpec).unwrap(),
            "1 block applied · block 2 pending (SEARCH 1 line, REPLACE …)"
        );
        assert_eq!(
            live.focus(Section::ApiSpec),
            Some(2),
            "follows the block being written"
        );
        assert_eq!(live.label(Section::FileTree), None);
    }

    #[test]
    fn a_resumed_meter_shows_the_last_answered_cycle_as_the_live_one_did() {
        // Cycle 3's call failed: the ledger holds only what it sent.
        let mut ledger = crate::volk::patch_cycle::PatchLedger::default();
        ledger.record_input(1, 4_000, None);
        let design = crate::design::Artifacts {
            architecture: "x".repeat(4_000),
            ..Default::default()
        };
        ledger.first_cycle(&"x".repeat(4_000), &design);
        ledger.record_input(3, 5_000, None);
        // Live, the meter had the core's list as cycle 1 ended; resumed, the list as
        // cycle 3's failed call left it.
        let mut live = CostMeter::default();
        live.restore(&ledger.costs[..1]);
        let mut resumed = CostMeter::default();
        resumed.restore(&ledger.costs);
        assert_eq!(resumed.latest(), live.latest());
        assert!(resumed.latest().unwrap().answered());
    }

    #[test]
    fn the_meter_sums_what_update_cycles_saved() {
        let mut meter = CostMeter::default();
        let cost = |cycle: u32, value: serde_json::Value| CycleCost {
            cycle,
            cost: serde_json::from_value(value).unwrap(),
        };
        let mut costs: Vec<CycleCost> = [(1, 9_000, 9_000), (2, 1_100, 9_600), (3, 900, 9_800)]
            .into_iter()
            .map(|(cycle, streamed, full)| {
                cost(
                    cycle,
                    serde_json::json!({"streamed_tokens": streamed, "full_rewrite_tokens": full}),
                )
            })
            .collect();
        meter.restore(&costs);
        assert_eq!(
            meter.latest().unwrap().status(),
            "this cycle 900 tok · full rewrite ≈ 9.8k"
        );
        assert_eq!(
            meter.summary().unwrap(),
            "17k tokens saved over 2 update cycles (2.0k streamed, full rewrites ≈ 19k)"
        );
        costs[2] = cost(
            3,
            serde_json::json!({"streamed_tokens": 900, "full_rewrite_tokens": 9_800,
                "prompt_tokens": 12_000, "prompt_tokens_source": "usage", "cached_prompt_tokens": 9_000}),
        );
        meter.restore(&costs);
        assert_eq!(
            meter.latest().unwrap().status(),
            "cycle 900 out · 12k in (9.0k cached) · rewrite ≈ 9.8k"
        );
        assert_eq!(
            meter.summary().unwrap(),
            "17k tokens saved over 2 update cycles (2.0k streamed, 12k in (9.0k cached), full rewrites ≈ 19k)"
        );
    }
}

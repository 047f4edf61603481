//! D033: a type an API signature or a diagram member uses that the design specifies
//! nowhere. A reviewer asks "what is `StripeOptions`?" when no artifact declares it,
//! the architecture does not name it as coming from the stack, no import brings it
//! and it is not the language's own.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use crate::design::Section;
use crate::design::model::{DesignModel, Lang};

use super::diagnostic::{Code, Diagnostic};

pub fn check(model: &DesignModel, out: &mut Vec<Diagnostic>) {
    let mut known: HashSet<&str> = HashSet::new();
    for c in model.api.classes() {
        known.insert(&c.name);
        known.extend(c.generics.iter().map(String::as_str));
        known.extend(c.bases.iter().map(String::as_str));
    }
    known.extend(model.diagram.classes.iter().map(|c| c.name.as_str()));
    known.extend(model.named.iter().map(String::as_str));
    known.extend(model.api.imported.iter().map(String::as_str));
    let unknown = |name: &str, lang: Lang| !known.contains(name) && !lang.is_builtin(name);
    // The first use of each unknown name: one finding per name, where it first appears.
    let mut first: HashMap<&str, (Section, Range<usize>)> = HashMap::new();
    let mut order: Vec<&str> = Vec::new();
    let api_uses = model.api.modules.iter().flat_map(|m| {
        m.functions
            .iter()
            .map(|f| (&f.types, f.lang))
            .chain(m.classes.iter().flat_map(|c| {
                std::iter::once((&c.header_types, c.lang))
                    .chain(c.methods.iter().map(|f| (&f.types, f.lang)))
            }))
    });
    for (types, lang) in api_uses {
        for (name, span) in types {
            if unknown(name, lang) {
                record(&mut first, &mut order, name, Section::ApiSpec, span);
            }
        }
    }
    for class in &model.diagram.classes {
        for member in &class.members {
            for (name, span) in &member.types {
                if unknown(name, model.lang) {
                    record(&mut first, &mut order, name, Section::ClassDiagram, span);
                }
            }
        }
    }
    for name in order {
        let Some((section, span)) = first.get(name) else {
            continue;
        };
        out.push(
            Diagnostic::new(
                Code::UnspecifiedType,
                *section,
                span.clone(),
                format!("type `{name}` is used here but specified nowhere in the design"),
            )
            .note(format!(
                "help: declare `{name}` in the API spec, or name where it comes from in the architecture (`package.{name}`)"
            )),
        );
    }
}

/// Keeps the earliest use: the API spec before the diagram, then by position.
fn record<'a>(
    first: &mut HashMap<&'a str, (Section, Range<usize>)>,
    order: &mut Vec<&'a str>,
    name: &'a str,
    section: Section,
    span: &Range<usize>,
) {
    match first.get_mut(name) {
        Some((s, at)) => {
            if *s == section && span.start < at.start {
                *at = span.clone();
            }
        }
        None => {
            first.insert(name, (section, span.clone()));
            order.push(name);
        }
    }
}

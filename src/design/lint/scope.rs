//! What a class diagram says it leaves out ("DTOs omitted", "enums are not shown",
//! "Records used only as request bodies (`CreateInvoice`) are omitted"): the kinds
//! and names D031 does not ask it to draw.

use crate::design::model::text::is_fence;
use crate::design::model::{ApiClass, ClassKind};

/// Kinds of class a note may leave out, each with the words that name it and the
/// name endings that mark its classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Left {
    Dto,
    Record,
    Enum,
    Exception,
    Event,
    Module,
    Interface,
    Entity,
    Config,
    Test,
    /// Spring Data, TypeORM and the like: persistence interfaces a diagram often skips.
    Repository,
}

const WORDS: &[(&str, Left)] = &[
    ("dto", Left::Dto),
    ("request", Left::Dto),
    ("response", Left::Dto),
    ("payload", Left::Dto),
    ("view model", Left::Dto),
    ("record", Left::Record),
    ("value object", Left::Record),
    ("data class", Left::Record),
    ("enum", Left::Enum),
    ("exception", Left::Exception),
    ("error", Left::Exception),
    ("event", Left::Event),
    ("module", Left::Module),
    ("interface", Left::Interface),
    ("port", Left::Interface),
    ("entit", Left::Entity),
    ("config", Left::Config),
    ("setting", Left::Config),
    ("option", Left::Config),
    ("test", Left::Test),
    ("repositor", Left::Repository),
    ("dao", Left::Repository),
];

/// Words that make a sentence say something is left out.
const OMITS: &[&str] = &[
    "omit",
    "left out",
    "leave out",
    "leaves out",
    "not shown",
    "not drawn",
    "excluded",
    "exclude",
    "elided",
    "hidden",
    "not included",
    "does not show",
    "doesn't show",
    "skipped",
    "without",
];

#[derive(Debug, Default)]
pub struct DiagramScope {
    kinds: Vec<Left>,
    names: Vec<String>,
    /// "Only the domain model is shown": whatever is not drawn is left out on purpose.
    partial: bool,
}

impl DiagramScope {
    /// Reads the prose around the diagram and its `%%` comments and notes.
    pub fn read(text: &str) -> DiagramScope {
        let mut scope = DiagramScope::default();
        let mut in_fence = false;
        for line in text.lines() {
            let trimmed = line.trim();
            if is_fence(trimmed) {
                in_fence = !in_fence;
                continue;
            }
            let note = trimmed.starts_with("%%") || trimmed.starts_with("note");
            if in_fence && !note {
                continue;
            }
            let lower = trimmed.to_ascii_lowercase();
            let only = lower.contains("only")
                && ["show", "draw", "cover", "depict", "focus", "include"]
                    .iter()
                    .any(|w| lower.contains(w));
            scope.partial |= only;
            if !OMITS.iter().any(|w| lower.contains(w)) {
                continue;
            }
            for (word, kind) in WORDS {
                if lower.contains(word) && !scope.kinds.contains(kind) {
                    scope.kinds.push(*kind);
                }
            }
            for code in trimmed.split('`').skip(1).step_by(2) {
                scope.names.push(code.trim().to_string());
            }
        }
        scope
    }

    /// The diagram says DTOs are left out (or leaves out all it does not draw).
    pub fn leaves_out_dtos(&self) -> bool {
        self.partial || self.kinds.contains(&Left::Dto)
    }

    pub fn leaves_out(&self, class: &ApiClass) -> bool {
        if self.partial || self.names.contains(&class.name) {
            return true;
        }
        let name = class.name.as_str();
        self.kinds.iter().any(|k| match k {
            Left::Dto => [
                "Dto", "DTO", "Request", "Response", "Payload", "Body", "Input", "Output",
            ]
            .iter()
            .any(|s| name.ends_with(s)),
            Left::Record => class.kind == ClassKind::Record,
            Left::Enum => class.kind == ClassKind::Enum,
            Left::Exception => name.ends_with("Exception") || name.ends_with("Error"),
            Left::Event => name.ends_with("Event"),
            Left::Module => name.ends_with("Module"),
            Left::Interface => matches!(class.kind, ClassKind::Interface | ClassKind::Trait),
            Left::Entity => name.ends_with("Entity"),
            Left::Config => ["Config", "Settings", "Options"]
                .iter()
                .any(|s| name.ends_with(s)),
            Left::Test => name.ends_with("Test") || name.ends_with("Tests"),
            Left::Repository => ["Repository", "Repo", "Dao", "DAO"]
                .iter()
                .any(|s| name.ends_with(s)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::design::model::api;

    #[test]
    fn a_note_leaves_out_its_kinds_and_names() {
        let spec = api::parse(
            "```ts\nexport class PlaceOrderDto {}\nexport class OrdersModule {}\nexport class Order {}\n```\n```csharp\npublic sealed record CreateInvoice(Guid Id);\n```\n",
        );
        let scope = DiagramScope::read(
            "Nest modules and DTOs are omitted.\n\n```mermaid\nclassDiagram\n  class Order\n```\n",
        );
        let left: Vec<&str> = spec
            .classes()
            .filter(|c| scope.leaves_out(c))
            .map(|c| c.name.as_str())
            .collect();
        assert_eq!(left, ["PlaceOrderDto", "OrdersModule"]);
        let repos =
            DiagramScope::read("%% Spring Data repositories and the request records are omitted.");
        let java = api::parse(
            "```java\npublic interface BookRepository extends JpaRepository<Book, UUID> {}\npublic record BorrowRequest(UUID bookId) {}\npublic class Book {}\n```\n",
        );
        let left: Vec<&str> = java
            .classes()
            .filter(|c| repos.leaves_out(c))
            .map(|c| c.name.as_str())
            .collect();
        assert_eq!(left, ["BookRepository", "BorrowRequest"]);
        let named = DiagramScope::read(
            "Records used only as request bodies (`CreateInvoice`) are omitted.",
        );
        assert!(
            spec.classes()
                .filter(|c| named.leaves_out(c))
                .any(|c| c.name == "CreateInvoice")
        );
        assert!(
            DiagramScope::read("All classes are drawn.")
                .kinds
                .is_empty()
        );
        assert!(DiagramScope::read("Only the domain layer is shown.").partial);
    }
}

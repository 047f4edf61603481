//! Key bindings as data. Every pane and popup declares its keys once, as a table of
//! [`Binding`]s whose key presses carry the component's commands; its `on_key` looks
//! the key up in that table and matches on the command. The help window, the
//! key-hint bar and `docs/workbench.md`'s key list are all written from the tables,
//! and a test presses every declared key (and every undeclared one) against its
//! handler, so the three cannot drift from what the keys do.

use std::any::Any;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// What a component did with a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Handled {
    /// The key did something here (perhaps only a notice saying why not now).
    Consumed,
    /// Not this component's key: the next layer may take it.
    Ignored,
    /// A popup is done and closes (it may have opened another in its place).
    Close,
}

impl Handled {
    pub fn is_ignored(self) -> bool {
        self == Handled::Ignored
    }
}

/// One key press a binding stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Chord {
    Key(KeyCode, KeyModifiers),
    /// Any printed character without Ctrl (text typed into a field).
    AnyChar,
    /// Every key no other binding of the component names (a text editor's keys, or
    /// "any other key closes").
    AnyKey,
}

impl Chord {
    pub const fn plain(code: KeyCode) -> Chord {
        Chord::Key(code, KeyModifiers::NONE)
    }

    pub const fn ch(c: char) -> Chord {
        Chord::Key(KeyCode::Char(c), KeyModifiers::NONE)
    }

    pub const fn ctrl(c: char) -> Chord {
        Chord::Key(KeyCode::Char(c), KeyModifiers::CONTROL)
    }

    /// Whether `key` is this chord (Shift is part of the character, so it is ignored
    /// for characters).
    pub fn matches(&self, key: &KeyEvent) -> bool {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match *self {
            Chord::AnyChar => matches!(key.code, KeyCode::Char(_)) && !ctrl,
            Chord::AnyKey => true,
            Chord::Key(code, mods) => {
                let mods_match = match code {
                    KeyCode::Char(_) => ctrl == mods.contains(KeyModifiers::CONTROL),
                    _ => {
                        key.modifiers.difference(KeyModifiers::SHIFT)
                            == mods.difference(KeyModifiers::SHIFT)
                    }
                };
                key.code == code && mods_match
            }
        }
    }

    /// A key event for this chord (the tests press it).
    pub fn event(&self) -> KeyEvent {
        match *self {
            Chord::AnyChar | Chord::AnyKey => KeyEvent::new(KeyCode::Char('z'), KeyModifiers::NONE),
            Chord::Key(code, mods) => KeyEvent::new(code, mods),
        }
    }
}

/// A move up or down a list or a document, shared by the components that scroll.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Motion {
    Down,
    Up,
    PageDown,
    PageUp,
    Top,
    Bottom,
}

/// The group a binding is listed under in the help window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    Tabs,
    Reading,
    Reviewing,
    Finishing,
    Popups,
    Always,
}

impl Group {
    pub const ALL: [Group; 6] = [
        Group::Tabs,
        Group::Reading,
        Group::Reviewing,
        Group::Finishing,
        Group::Always,
        Group::Popups,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Group::Tabs => "Tabs",
            Group::Reading => "Reading",
            Group::Reviewing => "Reviewing as J:Junior",
            Group::Finishing => "Finishing",
            Group::Popups => "In a window",
            Group::Always => "Always",
        }
    }
}

/// How a binding appears in the key-hint bar: shortest words, and a rank (lower
/// first) so the most useful keys survive a narrow terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hint {
    pub key: &'static str,
    pub what: &'static str,
    pub rank: u8,
}

/// One key (or a few keys doing one thing) of one component. Each key press carries
/// the command it runs, so the table is the dispatch: a component's `on_key` looks the
/// key up ([`command`]) and matches on the command, and no key is written twice.
///
/// `S` is the state a binding's condition reads (a pane's: the workbench); a popup's
/// bindings read none (`()`), as a popup judges its keys by its own state.
pub struct Binding<C: 'static, S: 'static = ()> {
    /// The keys as the help window names them (`j k / ↑ ↓`).
    pub keys: &'static str,
    pub help: &'static str,
    pub group: Group,
    /// In the hint bar when valid; `None`: help only.
    pub hint: Option<Hint>,
    /// The key presses this binding stands for, each with its command.
    pub chords: &'static [(Chord, C)],
    /// Whether the key acts now; the hint bar lists only keys that do.
    pub when: fn(&S) -> bool,
}

/// For bindings that always act.
pub fn always<S>(_: &S) -> bool {
    true
}

impl<C: 'static, S: 'static> Binding<C, S> {
    /// A binding that always acts and has no hint.
    pub const fn new(
        keys: &'static str,
        help: &'static str,
        group: Group,
        chords: &'static [(Chord, C)],
    ) -> Binding<C, S> {
        Binding {
            keys,
            help,
            group,
            hint: None,
            chords,
            when: always::<S>,
        }
    }

    pub const fn hint(mut self, key: &'static str, what: &'static str, rank: u8) -> Binding<C, S> {
        self.hint = Some(Hint { key, what, rank });
        self
    }

    pub const fn when(mut self, when: fn(&S) -> bool) -> Binding<C, S> {
        self.when = when;
        self
    }
}

/// A binding as the help window, the hint bar and the tests see it: its words and
/// keys without the component's command type, so every component's table can be
/// listed together.
pub trait Listed {
    fn keys(&self) -> &'static str;
    fn help(&self) -> &'static str;
    fn group(&self) -> Group;
    fn hint(&self) -> Option<Hint>;
    /// Whether the key acts now in `state` (a binding whose condition reads another
    /// kind of state than this one acts).
    fn acts(&self, state: &dyn Any) -> bool;
    /// The key presses, in declaration order.
    fn chords(&self) -> Vec<Chord>;

    fn matches(&self, key: &KeyEvent) -> bool {
        self.chords().iter().any(|c| c.matches(key))
    }
}

impl<C: 'static, S: 'static> Listed for Binding<C, S> {
    fn keys(&self) -> &'static str {
        self.keys
    }

    fn help(&self) -> &'static str {
        self.help
    }

    fn group(&self) -> Group {
        self.group
    }

    fn hint(&self) -> Option<Hint> {
        self.hint
    }

    fn acts(&self, state: &dyn Any) -> bool {
        state.downcast_ref::<S>().is_none_or(|s| (self.when)(s))
    }

    fn chords(&self) -> Vec<Chord> {
        self.chords.iter().map(|(chord, _)| *chord).collect()
    }
}

impl std::fmt::Debug for dyn Listed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.keys(), self.help())
    }
}

/// `?`, in the workbench and on the summary screen: the words are declared once.
pub const HELP_KEY: Chord = Chord::ch('?');

pub const fn help<C, S>(chords: &'static [(Chord, C)]) -> Binding<C, S> {
    Binding::new("?", "this help", Group::Always, chords)
}

/// `q` alone, in the workbench and on the summary screen (which quits without asking).
pub const QUIT_KEY: Chord = Chord::ch('q');

pub const fn quit<C, S>(chords: &'static [(Chord, C)]) -> Binding<C, S> {
    Binding::new(
        "q",
        "quit (asks when a draft is unsent or a call runs)",
        Group::Always,
        chords,
    )
}

/// Whether two listings are one binding (by their words: a `const` table may sit at
/// more than one address).
pub fn same(a: &dyn Listed, b: &dyn Listed) -> bool {
    a.keys() == b.keys() && a.help() == b.help()
}

/// A component's table, listed.
pub fn listed<C: 'static, S: 'static>(table: &'static [Binding<C, S>]) -> Vec<&'static dyn Listed> {
    table.iter().map(|b| b as &'static dyn Listed).collect()
}

/// The command `key` runs in `table`: a key named outright wins over "any printed
/// character", which wins over "any other key", whatever the order of the table.
pub fn command<C: Copy + 'static, S: 'static>(
    table: &[Binding<C, S>],
    key: &KeyEvent,
) -> Option<C> {
    let specificity = |chord: &Chord| match chord {
        Chord::Key(..) => 0,
        Chord::AnyChar => 1,
        Chord::AnyKey => 2,
    };
    (0..3).find_map(|rank| {
        table
            .iter()
            .flat_map(|b| b.chords)
            .find(|(chord, _)| specificity(chord) == rank && chord.matches(key))
            .map(|(_, command)| *command)
    })
}
